#include "libiashim/src/window_aggregator.h"

namespace iashim {

KernelWindow& WindowAggregator::Slot(uint32_t kernel) {
  if (kernel >= index_of_.size()) index_of_.resize(kernel + 1, -1);
  int32_t& at = index_of_[kernel];
  if (at < 0) {
    at = int32_t(current_.kernels.size());
    current_.kernels.emplace_back();
    current_.kernels.back().kernel = kernel;
  }
  return current_.kernels[at];
}

void WindowAggregator::Add(const LaunchRecord& r, uint64_t time_ns) {
  switch (r.kind) {
    case RecordKind::kLaunch: {
      ++current_.launches;
      ++total_launches_;
      iterations_.OnLaunch();
      KernelWindow& k = Slot(r.kernel);
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

void WindowAggregator::AddSample(uint32_t kernel, uint64_t gpu_ns) {
  KernelWindow& k = Slot(kernel);
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
  WindowSummary out = std::move(current_);
  current_ = WindowSummary{};
  start_ns_ = end_ns;
  return out;
}

}  // namespace iashim
