#include "libiashim/src/window_aggregator.h"

namespace iashim {

KernelWindow& WindowAggregator::Slot(uint32_t kernel, uint8_t device) {
  if (kernel >= index_of_.size()) index_of_.resize(kernel + 1, -1);
  // Most processes use one device: the chain is one slot long.
  int32_t* link = &index_of_[kernel];
  while (*link >= 0 && current_.kernels[*link].device != device) link = &next_on_device_[*link];
  const int32_t at = *link >= 0 ? *link : int32_t(current_.kernels.size());
  if (*link < 0) {
    *link = at;  // before the push_back below, which may move `link`'s vector
    current_.kernels.emplace_back();
    current_.kernels.back().kernel = kernel;
    current_.kernels.back().device = device;
    next_on_device_.push_back(-1);
  }
  return current_.kernels[at];
}

void WindowAggregator::Add(const LaunchRecord& r, uint64_t time_ns) {
  switch (r.kind) {
    case RecordKind::kLaunch: {
      ++current_.launches;
      ++total_launches_;
      iterations_.OnLaunch();
      KernelWindow& k = Slot(r.kernel, r.device);
      ++k.launches;
      for (int i = 0; i < 3; ++i) {
        k.grid[i] = r.grid[i];
        k.block[i] = r.block[i];
      }
      k.shared_mem = r.shared_mem;
      k.blocks_total += uint64_t(r.grid[0]) * r.grid[1] * r.grid[2];
      break;
    }
    case RecordKind::kGraphLaunch:
      ++current_.graph_launches;
      ++total_graph_launches_;
      iterations_.OnLaunch();
      break;
    case RecordKind::kSync:
      ++current_.syncs;
      iterations_.OnSync(time_ns);
      break;
  }
}

void WindowAggregator::AddSample(uint32_t kernel, uint8_t device, uint64_t gpu_ns) {
  KernelWindow& k = Slot(kernel, device);
  if (k.sampled == 0 || gpu_ns < k.gpu_ns_min) k.gpu_ns_min = gpu_ns;
  if (gpu_ns > k.gpu_ns_max) k.gpu_ns_max = gpu_ns;
  ++k.sampled;
  k.gpu_ns_sum += gpu_ns;
}

WindowSummary WindowAggregator::Close(uint64_t end_ns) {
  const IterationDetector::Completed done = iterations_.Take();
  current_.start_ns = start_ns_;
  current_.end_ns = end_ns;
  current_.iterations = done.iterations;
  current_.iteration_ns = done.iterations > 0 ? done.total_ns / done.iterations : 0;
  for (const KernelWindow& k : current_.kernels) index_of_[k.kernel] = -1;
  next_on_device_.clear();
  WindowSummary out = std::move(current_);
  current_ = WindowSummary{};
  start_ns_ = end_ns;
  return out;
}

}  // namespace iashim
