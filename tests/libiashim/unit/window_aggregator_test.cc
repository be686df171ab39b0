#include "libiashim/src/window_aggregator.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace iashim {
namespace {

LaunchRecord Launch(uint32_t kernel, uint32_t gx, uint32_t gy, uint32_t gz, uint16_t bx,
                    uint16_t by = 1, uint16_t bz = 1, uint32_t shared_mem = 0) {
  LaunchRecord r{};
  r.kind = RecordKind::kLaunch;
  r.api = CallApi::kLaunchKernel;
  r.kernel = kernel;
  r.grid[0] = gx;
  r.grid[1] = gy;
  r.grid[2] = gz;
  r.block[0] = bx;
  r.block[1] = by;
  r.block[2] = bz;
  r.shared_mem = shared_mem;
  r.sample = kNotSampled;
  return r;
}

LaunchRecord GraphLaunch() {
  LaunchRecord r{};
  r.kind = RecordKind::kGraphLaunch;
  r.api = CallApi::kGraphLaunch;
  r.sample = kNotSampled;
  return r;
}

LaunchRecord Sync() {
  LaunchRecord r{};
  r.kind = RecordKind::kSync;
  r.api = CallApi::kStreamSynchronize;
  r.sample = kNotSampled;
  return r;
}

const KernelWindow* Find(const WindowSummary& w, uint32_t kernel) {
  for (const KernelWindow& k : w.kernels) {
    if (k.kernel == kernel) return &k;
  }
  return nullptr;
}

TEST(WindowAggregator, EmptyWindow) {
  WindowAggregator agg(1000);
  EXPECT_EQ(agg.start_ns(), 1000u);
  const WindowSummary w = agg.Close(2000);
  EXPECT_EQ(w.start_ns, 1000u);
  EXPECT_EQ(w.end_ns, 2000u);
  EXPECT_EQ(w.launches, 0u);
  EXPECT_EQ(w.graph_launches, 0u);
  EXPECT_EQ(w.syncs, 0u);
  EXPECT_EQ(w.iterations, 0u);
  EXPECT_EQ(w.iteration_ns, 0u);
  EXPECT_TRUE(w.kernels.empty());
}

TEST(WindowAggregator, CountsLaunchesGraphLaunchesAndSyncs) {
  WindowAggregator agg(0);
  for (int i = 0; i < 3; ++i) agg.Add(Launch(1, 1, 1, 1, 32), 10);
  for (int i = 0; i < 2; ++i) agg.Add(Launch(2, 1, 1, 1, 32), 20);
  agg.Add(GraphLaunch(), 30);
  agg.Add(Sync(), 40);
  agg.Add(Sync(), 50);
  const WindowSummary w = agg.Close(100);
  EXPECT_EQ(w.launches, 5u);  // graph launches are counted apart
  EXPECT_EQ(w.graph_launches, 1u);
  EXPECT_EQ(w.syncs, 2u);
  ASSERT_EQ(w.kernels.size(), 2u);
  ASSERT_NE(Find(w, 1), nullptr);
  ASSERT_NE(Find(w, 2), nullptr);
  EXPECT_EQ(Find(w, 1)->launches, 3u);
  EXPECT_EQ(Find(w, 2)->launches, 2u);
}

// The shape reported is the last launch's; blocks_total sums every launch.
TEST(WindowAggregator, PerKernelShapeAndBlocks) {
  WindowAggregator agg(0);
  agg.Add(Launch(7, 10, 2, 3, 128, 2, 1, 4096), 1);
  agg.Add(Launch(7, 100, 1, 1, 256, 1, 4, 0), 2);
  agg.Add(Launch(7, 4, 4, 4, 64, 8, 2, 1024), 3);
  const WindowSummary w = agg.Close(10);
  const KernelWindow* k = Find(w, 7);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->launches, 3u);
  EXPECT_EQ(k->grid[0], 4u);
  EXPECT_EQ(k->grid[1], 4u);
  EXPECT_EQ(k->grid[2], 4u);
  EXPECT_EQ(k->block[0], 64u);
  EXPECT_EQ(k->block[1], 8u);
  EXPECT_EQ(k->block[2], 2u);
  EXPECT_EQ(k->shared_mem, 1024u);
  EXPECT_EQ(k->blocks_total, 60u + 100 + 64);
  EXPECT_EQ(k->sampled, 0u);
}

// Grids up to 2^31-1 x 65535 x 65535 must not overflow the block count.
TEST(WindowAggregator, BlocksTotalDoesNotOverflow32Bits) {
  WindowAggregator agg(0);
  agg.Add(Launch(1, 0x7fffffff, 65535, 65535, 1), 1);
  agg.Add(Launch(1, 0x7fffffff, 65535, 65535, 1), 2);
  const WindowSummary w = agg.Close(10);
  EXPECT_EQ(w.kernels[0].blocks_total, 2 * (uint64_t(0x7fffffff) * 65535 * 65535));
}

TEST(WindowAggregator, SamplesMinMaxSum) {
  WindowAggregator agg(0);
  agg.Add(Launch(3, 1, 1, 1, 32), 1);
  agg.AddSample(3, 0, 500);
  agg.AddSample(3, 0, 200);
  agg.AddSample(3, 0, 900);
  const WindowSummary w = agg.Close(10);
  const KernelWindow* k = Find(w, 3);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->sampled, 3u);
  EXPECT_EQ(k->gpu_ns_min, 200u);
  EXPECT_EQ(k->gpu_ns_max, 900u);
  EXPECT_EQ(k->gpu_ns_sum, 1600u);
}

// A single sample is both the minimum and the maximum, even when it is 0.
TEST(WindowAggregator, SingleSampleIsMinAndMax) {
  WindowAggregator agg(0);
  agg.AddSample(4, 0, 0);
  agg.AddSample(5, 0, 77);
  const WindowSummary w = agg.Close(10);
  ASSERT_NE(Find(w, 4), nullptr);
  EXPECT_EQ(Find(w, 4)->gpu_ns_min, 0u);
  EXPECT_EQ(Find(w, 4)->gpu_ns_max, 0u);
  EXPECT_EQ(Find(w, 4)->sampled, 1u);
  EXPECT_EQ(Find(w, 5)->gpu_ns_min, 77u);
  EXPECT_EQ(Find(w, 5)->gpu_ns_max, 77u);
}

// A sample can arrive in the window after its launch's: it still counts, in a
// kernel entry that has no launches of its own.
TEST(WindowAggregator, SampleWithoutLaunchInWindow) {
  WindowAggregator agg(0);
  agg.Add(Launch(9, 1, 1, 1, 32), 1);
  agg.Close(10);
  agg.AddSample(9, 0, 1234);
  const WindowSummary w = agg.Close(20);
  const KernelWindow* k = Find(w, 9);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->launches, 0u);
  EXPECT_EQ(k->sampled, 1u);
  EXPECT_EQ(k->gpu_ns_sum, 1234u);
  EXPECT_EQ(w.launches, 0u);
}

TEST(WindowAggregator, CloseResetsAndNextWindowStartsAtPreviousEnd) {
  WindowAggregator agg(100);
  agg.Add(Launch(1, 2, 1, 1, 32), 110);
  agg.Add(GraphLaunch(), 120);
  agg.Add(Sync(), 130);
  agg.AddSample(1, 0, 50);
  const WindowSummary first = agg.Close(200);
  EXPECT_EQ(first.start_ns, 100u);
  EXPECT_EQ(first.end_ns, 200u);
  EXPECT_EQ(agg.start_ns(), 200u);

  agg.Add(Launch(1, 5, 1, 1, 64), 210);
  const WindowSummary second = agg.Close(300);
  EXPECT_EQ(second.start_ns, 200u);
  EXPECT_EQ(second.end_ns, 300u);
  EXPECT_EQ(second.launches, 1u);
  EXPECT_EQ(second.graph_launches, 0u);
  EXPECT_EQ(second.syncs, 0u);
  ASSERT_EQ(second.kernels.size(), 1u);
  // Fresh per-kernel statistics: nothing carried over from the first window.
  EXPECT_EQ(second.kernels[0].launches, 1u);
  EXPECT_EQ(second.kernels[0].blocks_total, 5u);
  EXPECT_EQ(second.kernels[0].sampled, 0u);
  EXPECT_EQ(second.kernels[0].gpu_ns_sum, 0u);

  const WindowSummary third = agg.Close(400);
  EXPECT_EQ(third.start_ns, 300u);
  EXPECT_TRUE(third.kernels.empty());
  EXPECT_EQ(third.launches, 0u);
}

// Kernels that appear in a later window in another order each keep their own
// entry (the id-to-entry index is reset with the window).
TEST(WindowAggregator, KernelIndexIsRebuiltPerWindow) {
  WindowAggregator agg(0);
  agg.Add(Launch(1, 1, 1, 1, 32), 1);
  agg.Add(Launch(2, 2, 1, 1, 32), 2);
  agg.Close(10);
  agg.Add(Launch(2, 3, 1, 1, 32), 11);
  agg.Add(Launch(5, 4, 1, 1, 32), 12);
  agg.Add(Launch(1, 6, 1, 1, 32), 13);
  const WindowSummary w = agg.Close(20);
  ASSERT_EQ(w.kernels.size(), 3u);
  EXPECT_EQ(Find(w, 1)->blocks_total, 6u);
  EXPECT_EQ(Find(w, 2)->blocks_total, 3u);
  EXPECT_EQ(Find(w, 5)->blocks_total, 4u);
}

TEST(WindowAggregator, TotalsAccumulateAcrossWindows) {
  WindowAggregator agg(0);
  uint64_t end = 0;
  for (int window = 1; window <= 5; ++window) {
    for (int i = 0; i < window; ++i) agg.Add(Launch(1, 1, 1, 1, 32), end + 1);
    agg.Add(GraphLaunch(), end + 2);
    agg.Add(GraphLaunch(), end + 3);
    end += 100;
    const WindowSummary w = agg.Close(end);
    EXPECT_EQ(w.launches, uint64_t(window));
    EXPECT_EQ(w.graph_launches, 2u);
  }
  EXPECT_EQ(agg.total_launches(), 15u);
  EXPECT_EQ(agg.total_graph_launches(), 10u);
}

// Syncs drive the iteration detector; the window reports the mean iteration.
TEST(WindowAggregator, IterationsAndMeanDuration) {
  WindowAggregator agg(0);
  agg.Add(Launch(1, 1, 1, 1, 32), 500);
  agg.Add(Sync(), 1000);  // first boundary
  agg.Add(Launch(1, 1, 1, 1, 32), 1500);
  agg.Add(Sync(), 3000);
  agg.Add(GraphLaunch(), 3500);  // graph launches count as launches between syncs
  agg.Add(Sync(), 6000);
  const WindowSummary w = agg.Close(7000);
  EXPECT_EQ(w.iterations, 2u);
  EXPECT_EQ(w.iteration_ns, 2500u);

  // The detector carries over: the next window's iteration starts at 6000.
  agg.Add(Launch(1, 1, 1, 1, 32), 8000);
  agg.Add(Sync(), 10000);
  const WindowSummary next = agg.Close(11000);
  EXPECT_EQ(next.iterations, 1u);
  EXPECT_EQ(next.iteration_ns, 4000u);
}

// A process driving several GPUs: each (kernel, device) pair is its own entry,
// with its own launches and samples, in every window.
TEST(WindowAggregator, OneEntryPerKernelAndDevice) {
  WindowAggregator agg(0);
  for (int window = 0; window < 2; ++window) {
    for (uint8_t device : {uint8_t{0}, uint8_t{1}, uint8_t{1}, kUnknownDevice}) {
      LaunchRecord r = Launch(6, 4, 1, 1, 128);
      r.device = device;
      agg.Add(r, 1);
    }
    agg.AddSample(6, 1, 300);
    agg.AddSample(6, 2, 50);  // a device with no launch in the window
    const WindowSummary w = agg.Close(uint64_t(10 * (window + 1)));
    ASSERT_EQ(w.kernels.size(), 4u) << "window " << window;
    auto on = [&](uint8_t device) -> const KernelWindow& {
      for (const KernelWindow& k : w.kernels) {
        if (k.kernel == 6 && k.device == device) return k;
      }
      ADD_FAILURE() << "no entry for device " << int(device);
      return w.kernels[0];
    };
    EXPECT_EQ(on(0).launches, 1u);
    EXPECT_EQ(on(0).sampled, 0u);
    EXPECT_EQ(on(1).launches, 2u);
    EXPECT_EQ(on(1).gpu_ns_sum, 300u);
    EXPECT_EQ(on(2).launches, 0u);
    EXPECT_EQ(on(2).gpu_ns_sum, 50u);
    EXPECT_EQ(on(kUnknownDevice).launches, 1u);
    EXPECT_EQ(w.launches, 4u);
  }
}

}  // namespace
}  // namespace iashim
