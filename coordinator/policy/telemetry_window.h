// One telemetry window of one training process, as the policy sees it.
//
// The daemon fills a TelemetryWindow from each verified TelemetryBatch
// (schemas/telemetry.fbs) and hands it to that process's JobProfile. Keeping
// the policy's input a plain struct, not the FlatBuffers table, keeps the
// policy free of the wire format and lets tests and iashim-clustersim build
// windows directly.
#ifndef IASHIM_POLICY_TELEMETRY_WINDOW_H_
#define IASHIM_POLICY_TELEMETRY_WINDOW_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace iashim::policy {

// One kernel's launches within one window.
struct KernelWindow {
  uint64_t kernel = 0;      // FNV-1a hash of the kernel's name (the wire id)
  uint32_t launches = 0;    // launches in the window
  uint32_t sampled = 0;     // of those, timed on the GPU with CUDA events
  uint64_t gpu_ns_sum = 0;  // total GPU time of the sampled launches
};

struct TelemetryWindow {
  // CLOCK_MONOTONIC of the process's host, as on the wire. Only differences
  // and the order of windows of one process are used.
  uint64_t window_start_ns = 0;
  uint64_t window_end_ns = 0;
  uint64_t launches = 0;      // kernel launches in the window
  uint32_t iterations = 0;    // training iterations completed in the window
  uint64_t iteration_ns = 0;  // mean time of those iterations; 0 = none completed
  uint32_t sample_every = 0;  // 1 in N launches was timed
  std::vector<KernelWindow> kernels;
  uint64_t mem_used_bytes = 0;
  uint64_t mem_limit_bytes = 0;  // 0 = no quota
  double budget_share = 1.0;     // share of GPU time in force at the window's end
  uint64_t held_launches = 0;    // launches the launch gate held back
  uint64_t held_ns = 0;          // their total time held
  // The longest any one thread of the process waited for a CPU (run queue)
  // in the window; 0 = none or not measured (libiashim/src/run_queue_wait.h).
  uint64_t cpu_wait_ns = 0;
};

// Bounds past which a window is not believed. They are far outside anything a
// real job produces, so they only catch corrupt or mis-converted input.
struct WindowLimits {
  uint64_t max_window_ns = 600'000'000'000;       // 10 min
  uint64_t max_iteration_ns = 3'600'000'000'000;  // 1 h
  uint64_t max_kernel_ns = 60'000'000'000;        // mean sampled duration, 1 min
  double max_launches_per_s = 1e7;                // ~100x what a host thread can issue
  uint64_t max_mem_bytes = uint64_t{1} << 50;     // 1 PiB
};

// What is wrong with a window on its own (ordering against earlier windows is
// the profile's business).
enum class WindowDefect {
  kNone,
  kEmpty,            // ends at or before it starts
  kTooLong,          // longer than max_window_ns
  kAbsurdIteration,  // iteration_ns above max_iteration_ns
  kAbsurdRate,       // more launches per second than max_launches_per_s
  kAbsurdKernel,     // a kernel's mean sampled duration above max_kernel_ns
  kAbsurdShare,      // budget_share not in (0, 1] or not finite
  kAbsurdMemory,     // used or limit above max_mem_bytes
  kAbsurdCpuWait,    // cpu_wait_ns above twice the window's length + 1 s
};

WindowDefect CheckWindow(const TelemetryWindow& window, const WindowLimits& limits = {});

std::string_view WindowDefectName(WindowDefect defect);

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_TELEMETRY_WINDOW_H_
