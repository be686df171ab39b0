#include "coordinator/policy/telemetry_window.h"

namespace iashim::policy {

WindowDefect CheckWindow(const TelemetryWindow& w, const WindowLimits& limits) {
  if (w.window_end_ns <= w.window_start_ns) return WindowDefect::kEmpty;
  const uint64_t length_ns = w.window_end_ns - w.window_start_ns;
  if (length_ns > limits.max_window_ns) return WindowDefect::kTooLong;
  if (w.iteration_ns > limits.max_iteration_ns) return WindowDefect::kAbsurdIteration;
  const double rate = static_cast<double>(w.launches) / (static_cast<double>(length_ns) * 1e-9);
  if (rate > limits.max_launches_per_s) return WindowDefect::kAbsurdRate;
  for (const KernelWindow& k : w.kernels) {
    // Compared as sum > max * sampled so that no division (and no zero
    // divisor) is involved; long double keeps the product exact enough.
    if (k.sampled > 0 && static_cast<long double>(k.gpu_ns_sum) >
                             static_cast<long double>(limits.max_kernel_ns) * k.sampled) {
      return WindowDefect::kAbsurdKernel;
    }
  }
  // Written so that NaN fails the test.
  if (!(w.budget_share > 0.0 && w.budget_share <= 1.0)) return WindowDefect::kAbsurdShare;
  if (w.mem_used_bytes > limits.max_mem_bytes || w.mem_limit_bytes > limits.max_mem_bytes) {
    return WindowDefect::kAbsurdMemory;
  }
  // One thread cannot wait longer than the window; the shim reads the wait
  // a little off the window's bounds, hence the margin.
  if (w.cpu_wait_ns > 2 * length_ns + 1'000'000'000) return WindowDefect::kAbsurdCpuWait;
  return WindowDefect::kNone;
}

std::string_view WindowDefectName(WindowDefect defect) {
  switch (defect) {
    case WindowDefect::kNone:
      return "none";
    case WindowDefect::kEmpty:
      return "empty";
    case WindowDefect::kTooLong:
      return "too long";
    case WindowDefect::kAbsurdIteration:
      return "absurd iteration time";
    case WindowDefect::kAbsurdRate:
      return "absurd launch rate";
    case WindowDefect::kAbsurdKernel:
      return "absurd kernel duration";
    case WindowDefect::kAbsurdShare:
      return "absurd budget share";
    case WindowDefect::kAbsurdMemory:
      return "absurd memory";
    case WindowDefect::kAbsurdCpuWait:
      return "absurd CPU wait";
  }
  return "unknown";
}

}  // namespace iashim::policy
