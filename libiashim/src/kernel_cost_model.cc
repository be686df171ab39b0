#include "libiashim/src/kernel_cost_model.h"

#include <algorithm>

namespace iashim {

KernelCostModel::KernelCostModel()
    : estimates_(new std::atomic<uint64_t>[size_t(kMaxKernels) + 1]()) {}

void KernelCostModel::AddSample(uint32_t kernel, uint64_t gpu_ns) {
  // 0 marks "not sampled", so the smallest cost is 1 ns.
  gpu_ns = std::clamp<uint64_t>(gpu_ns, 1, kMaxSampleNs);

  // The prior is the plain mean of raw samples: there is no estimate to damp
  // against yet. The sum saturates instead of wrapping.
  const uint64_t n = samples_.load(std::memory_order_relaxed) + 1;
  sum_ns_ = sum_ns_ > UINT64_MAX - gpu_ns ? UINT64_MAX : sum_ns_ + gpu_ns;
  samples_.store(n, std::memory_order_relaxed);
  prior_ns_.store(std::max<uint64_t>(1, sum_ns_ / n), std::memory_order_relaxed);

  std::atomic<uint64_t>& slot = estimates_[Slot(kernel)];
  const uint64_t old = slot.load(std::memory_order_relaxed);
  uint64_t next;
  if (old == 0) {
    next = gpu_ns;  // the first sample is the best guess there is
  } else {
    const uint64_t sample = std::min(gpu_ns, old * kMaxStepUp);
    // Down fast, up slowly: the estimate tracks the kernel's uncontended
    // time, in unsigned arithmetic either way round.
    next = sample >= old ? old + ((sample - old) >> kUpShift) : old - ((old - sample) >> kDownShift);
  }
  slot.store(std::max<uint64_t>(1, next), std::memory_order_relaxed);
}

}  // namespace iashim
