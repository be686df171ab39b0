// Folds launch records into per-window statistics per kernel and device: what
// one TelemetryBatch reports. Pure and single-threaded (the background thread).
#ifndef IASHIM_WINDOW_AGGREGATOR_H_
#define IASHIM_WINDOW_AGGREGATOR_H_

#include <cstdint>
#include <vector>

#include "libiashim/src/iteration_detector.h"
#include "libiashim/src/launch_record.h"

namespace iashim {

struct KernelWindow {
  uint32_t kernel = 0;  // KernelRegistry id
  uint8_t device = kUnknownDevice;  // CUdevice ordinal it ran on
  uint32_t launches = 0;
  uint32_t grid[3] = {};
  uint32_t block[3] = {};
  uint32_t shared_mem = 0;
  uint64_t blocks_total = 0;
  uint32_t sampled = 0;
  uint64_t gpu_ns_sum = 0;
  uint64_t gpu_ns_min = 0;
  uint64_t gpu_ns_max = 0;
};

struct WindowSummary {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t launches = 0;
  uint64_t graph_launches = 0;
  uint32_t syncs = 0;
  uint32_t iterations = 0;
  uint64_t iteration_ns = 0;  // mean, 0 if none
  std::vector<KernelWindow> kernels;  // (kernel, device) pairs seen in the window
};

class WindowAggregator {
 public:
  explicit WindowAggregator(uint64_t start_ns) : start_ns_(start_ns) {}

  // `time_ns` is the record's time in CLOCK_MONOTONIC nanoseconds.
  void Add(const LaunchRecord& r, uint64_t time_ns);
  // A sampled GPU duration of kernel `kernel` on `device`, counted in the current window.
  void AddSample(uint32_t kernel, uint8_t device, uint64_t gpu_ns);
  // Ends the window at `end_ns` and starts the next one.
  WindowSummary Close(uint64_t end_ns);

  uint64_t start_ns() const { return start_ns_; }
  uint64_t total_launches() const { return total_launches_; }
  uint64_t total_graph_launches() const { return total_graph_launches_; }

 private:
  KernelWindow& Slot(uint32_t kernel, uint8_t device);

  uint64_t start_ns_;
  WindowSummary current_;
  // kernel id -> position in current_.kernels of its first device's slot, -1;
  // a kernel's slots on other devices follow through next_on_device_.
  std::vector<int32_t> index_of_;
  std::vector<int32_t> next_on_device_;  // parallel to current_.kernels
  IterationDetector iterations_;
  uint64_t total_launches_ = 0;
  uint64_t total_graph_launches_ = 0;
};

}  // namespace iashim

#endif  // IASHIM_WINDOW_AGGREGATOR_H_
