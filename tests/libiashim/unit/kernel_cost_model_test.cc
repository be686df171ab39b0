#include "libiashim/src/kernel_cost_model.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

namespace iashim {
namespace {

constexpr uint64_t kUs = 1'000;

TEST(KernelCostModel, DefaultBeforeAnySample) {
  KernelCostModel m;
  EXPECT_EQ(m.EstimateNs(1), KernelCostModel::kDefaultEstimateNs);
  EXPECT_EQ(m.EstimateNs(0), KernelCostModel::kDefaultEstimateNs);
  EXPECT_EQ(m.EstimateNs(KernelCostModel::kMaxKernels), KernelCostModel::kDefaultEstimateNs);
  EXPECT_FALSE(m.Sampled(1));
  EXPECT_EQ(m.samples(), 0u);
  EXPECT_EQ(m.prior_ns(), 20 * kUs);
}

TEST(KernelCostModel, FirstSampleIsTheEstimate) {
  KernelCostModel m;
  m.AddSample(7, 300 * kUs);
  EXPECT_TRUE(m.Sampled(7));
  EXPECT_EQ(m.EstimateNs(7), 300 * kUs);
}

// Unsampled kernels cost the mean of every sample so far, of all kernels.
TEST(KernelCostModel, PriorIsTheMeanOfAllSamples) {
  KernelCostModel m;
  m.AddSample(1, 100 * kUs);
  EXPECT_EQ(m.EstimateNs(2), 100 * kUs);
  m.AddSample(3, 300 * kUs);
  m.AddSample(1, 200 * kUs);
  EXPECT_EQ(m.prior_ns(), 200 * kUs);  // (100 + 300 + 200) / 3
  EXPECT_EQ(m.EstimateNs(2), 200 * kUs);
  EXPECT_EQ(m.EstimateNs(65'000), 200 * kUs);
  EXPECT_EQ(m.samples(), 3u);
  // A sampled kernel keeps its own estimate, whatever the prior does.
  EXPECT_EQ(m.EstimateNs(3), 300 * kUs);
}

// Weight 1/32 on a longer sample, 1/2 on a shorter one.
TEST(KernelCostModel, EwmaSteps) {
  KernelCostModel m;
  m.AddSample(5, 800 * kUs);
  m.AddSample(5, 1'600 * kUs);  // within the 4x step limit
  EXPECT_EQ(m.EstimateNs(5), 825 * kUs);  // 800 + 800/32
  m.AddSample(5, 25 * kUs);
  EXPECT_EQ(m.EstimateNs(5), 425 * kUs);  // 825 - 800/2
}

TEST(KernelCostModel, FollowsAFasterKernelQuicklyAndASlowerOneEventually) {
  KernelCostModel m;
  m.AddSample(9, 50 * kUs);
  // Faster: within 1% after 20 samples.
  for (int i = 0; i < 20; ++i) m.AddSample(9, 10 * kUs);
  EXPECT_NEAR(double(m.EstimateNs(9)), 10.0 * kUs, 0.01 * 10 * kUs);
  // Slower by 10x for good: reached, more slowly (within 1% after 300).
  for (int i = 0; i < 300; ++i) m.AddSample(9, 100 * kUs);
  EXPECT_NEAR(double(m.EstimateNs(9)), 100.0 * kUs, 0.01 * 100 * kUs);
}

// Under contention a kernel's samples spread upwards from its uncontended
// time; the estimate stays near the low end, not the mean.
TEST(KernelCostModel, TracksTheUncontendedTimeUnderNoise) {
  KernelCostModel m;
  // 320..480 us, repeating: the shortest is 320, the mean 400.
  const uint64_t pattern[] = {320 * kUs, 480 * kUs, 400 * kUs, 360 * kUs, 440 * kUs};
  for (int i = 0; i < 500; ++i) m.AddSample(11, pattern[i % 5]);
  EXPECT_GE(m.EstimateNs(11), 320 * kUs);
  EXPECT_LT(m.EstimateNs(11), 380 * kUs);
}

// A lone spike (a kernel queued behind another process's) barely moves the
// estimate, and it decays back.
TEST(KernelCostModel, OutlierIsDamped) {
  KernelCostModel m;
  for (int i = 0; i < 10; ++i) m.AddSample(4, 100 * kUs);
  m.AddSample(4, 100'000 * kUs);         // 1000x, counted as 4x
  EXPECT_EQ(m.EstimateNs(4), 109'375u);  // 100 + (400 - 100) / 32 us
  for (int i = 0; i < 10; ++i) m.AddSample(4, 100 * kUs);
  EXPECT_NEAR(double(m.EstimateNs(4)), 100.0 * kUs, 0.01 * 100 * kUs);
}

TEST(KernelCostModel, KernelsAreIndependent) {
  KernelCostModel m;
  m.AddSample(1, 10 * kUs);
  m.AddSample(2, 1'000 * kUs);
  m.AddSample(KernelCostModel::kMaxKernels, 5 * kUs);
  EXPECT_EQ(m.EstimateNs(1), 10 * kUs);
  EXPECT_EQ(m.EstimateNs(2), 1'000 * kUs);
  EXPECT_EQ(m.EstimateNs(KernelCostModel::kMaxKernels), 5 * kUs);
  EXPECT_FALSE(m.Sampled(0));
}

// Ids past the table go to "other" (id 0), as the registry does when full.
TEST(KernelCostModel, OutOfRangeIdsFoldIntoOther) {
  KernelCostModel m;
  m.AddSample(KernelCostModel::kMaxKernels + 1, 70 * kUs);
  EXPECT_TRUE(m.Sampled(0));
  EXPECT_EQ(m.EstimateNs(0), 70 * kUs);
  EXPECT_EQ(m.EstimateNs(std::numeric_limits<uint32_t>::max()), 70 * kUs);
}

TEST(KernelCostModel, ExtremeSamples) {
  KernelCostModel m;
  m.AddSample(1, 0);  // never 0: 0 marks "not sampled"
  EXPECT_TRUE(m.Sampled(1));
  EXPECT_EQ(m.EstimateNs(1), 1u);
  m.AddSample(1, 0);
  EXPECT_EQ(m.EstimateNs(1), 1u);
  m.AddSample(2, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(m.EstimateNs(2), KernelCostModel::kMaxSampleNs);
  for (int i = 0; i < 100; ++i) m.AddSample(2, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(m.EstimateNs(2), KernelCostModel::kMaxSampleNs);
  EXPECT_GT(m.prior_ns(), 0u);
  EXPECT_LE(m.prior_ns(), KernelCostModel::kMaxSampleNs);
}

// The launch path reads while the drainer writes: every read is a value some
// sample could have produced (or the default), and TSan sees no race.
TEST(KernelCostModel, ConcurrentReadersAndWriter) {
  KernelCostModel m;
  constexpr uint32_t kKernels = 64;
  constexpr uint64_t kLo = 10 * kUs;
  constexpr uint64_t kHi = 30 * kUs;
  std::atomic<bool> done{false};
  std::atomic<uint64_t> bad{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      uint64_t reads = 0;
      while (!done.load(std::memory_order_acquire) || reads < 1'000) {
        for (uint32_t k = 0; k < kKernels; ++k) {
          const uint64_t v = m.EstimateNs(k);
          if (v != KernelCostModel::kDefaultEstimateNs && (v < kLo || v > kHi)) {
            bad.fetch_add(1, std::memory_order_relaxed);
          }
          ++reads;
        }
      }
    });
  }
  std::thread writer([&] {
    for (int i = 0; i < 20'000; ++i) {
      const uint32_t k = uint32_t(i) % kKernels;
      m.AddSample(k, i % 2 == 0 ? kLo : kHi);
    }
    done.store(true, std::memory_order_release);
  });
  writer.join();
  for (std::thread& r : readers) r.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_EQ(m.samples(), 20'000u);
  for (uint32_t k = 0; k < kKernels; ++k) EXPECT_TRUE(m.Sampled(k));
}

}  // namespace
}  // namespace iashim
