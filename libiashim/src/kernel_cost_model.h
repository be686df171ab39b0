// What each kernel costs in GPU time, learned from the sampled durations (the
// CUDA event pairs of 1 launch in N), so the budget's token bucket can charge
// a launch before it runs.
//
// Per kernel id (KernelRegistry's dense ids) an exponentially weighted moving
// average that falls fast (weight 1/2 on a shorter sample) and rises slowly
// (1/32 on a longer one), so it tracks the kernel's uncontended GPU time: a
// kernel sharing the GPU with another process's runs longer by a factor both
// suffer alike, so charging uncontended time keeps every process's take in
// proportion to its share. A sample above kMaxStepUp times the estimate counts
// as kMaxStepUp times it. A lasting change upwards is still followed (it
// takes tens of samples).
//
// A kernel not yet sampled costs the prior: the mean of every sample seen so
// far (all kernels), or kDefaultEstimateNs before the first sample.
//
// Readers (the launch path, any thread) take one relaxed load, two for a
// kernel not yet sampled; AddSample is for one writer thread (the drainer).
#ifndef IASHIM_KERNEL_COST_MODEL_H_
#define IASHIM_KERNEL_COST_MODEL_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "libiashim/src/kernel_registry.h"

namespace iashim {

class KernelCostModel {
 public:
  // Ids run 0 (KernelRegistry's "other") to kMaxKernels inclusive. Larger ids
  // are folded into 0.
  static constexpr uint32_t kMaxKernels = KernelRegistry::kMaxKernels;
  static constexpr uint64_t kDefaultEstimateNs = 20'000;  // 20 us: a typical small kernel
  static constexpr uint32_t kDownShift = 1;  // weight 1/2 on a shorter sample
  static constexpr uint32_t kUpShift = 5;    // weight 1/32 on a longer one
  static constexpr uint64_t kMaxStepUp = 4;
  // Longer samples are taken as this long (a kernel that long is a hang or a
  // debugger, not a cost), which also keeps the arithmetic far from overflow.
  static constexpr uint64_t kMaxSampleNs = 60'000'000'000;  // 60 s

  KernelCostModel();
  KernelCostModel(const KernelCostModel&) = delete;
  KernelCostModel& operator=(const KernelCostModel&) = delete;

  // Estimated GPU time of one launch of `kernel`, never 0. Lock-free.
  uint64_t EstimateNs(uint32_t kernel) const {
    const uint64_t v = estimates_[Slot(kernel)].load(std::memory_order_relaxed);
    return v != 0 ? v : prior_ns_.load(std::memory_order_relaxed);
  }

  // Folds one measured duration into `kernel`'s estimate. One writer thread.
  void AddSample(uint32_t kernel, uint64_t gpu_ns);

  // Whether `kernel` has had a sample (else it costs the prior).
  bool Sampled(uint32_t kernel) const {
    return estimates_[Slot(kernel)].load(std::memory_order_relaxed) != 0;
  }
  uint64_t prior_ns() const { return prior_ns_.load(std::memory_order_relaxed); }
  uint64_t samples() const { return samples_.load(std::memory_order_relaxed); }

 private:
  static uint32_t Slot(uint32_t kernel) { return kernel <= kMaxKernels ? kernel : 0; }

  // kMaxKernels + 1 estimates, allocated once; 0 = not sampled yet.
  std::unique_ptr<std::atomic<uint64_t>[]> estimates_;
  std::atomic<uint64_t> prior_ns_{kDefaultEstimateNs};
  std::atomic<uint64_t> samples_{0};
  // Written and read by the writer thread only.
  uint64_t sum_ns_ = 0;  // at most 2^64 / kMaxSampleNs samples before saturating: ~3e8
};

}  // namespace iashim

#endif  // IASHIM_KERNEL_COST_MODEL_H_
