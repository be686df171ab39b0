// A process's budget on its GPU: the share of GPU time it may use, a cap on its
// kernels in flight, and its priority. It comes from IASHIM_SHARE,
// IASHIM_MAX_INFLIGHT and IASHIM_PRIORITY at start, and is replaced at run
// time by Budget messages from the coordinator (schemas/telemetry.fbs).
// Pure: conversions and validation only; the launch gate enforces it.
#ifndef IASHIM_BUDGET_H_
#define IASHIM_BUDGET_H_

#include <cstdint>
#include <optional>
#include <string>

#include "libiashim/src/config.h"

namespace iashim {

namespace wire {
struct Budget;
}  // namespace wire

struct Budget {
  static constexpr double kMinShare = 0.001;

  double share = 1.0;         // (0, 1]; 1 = no limit on GPU time
  uint32_t max_inflight = 0;  // 0 = no cap
  Priority priority = Priority::kGuaranteed;
  uint64_t expires_ns = 0;    // CLOCK_MONOTONIC; 0 = never
  uint64_t seq = 0;           // coordinator's sequence number; 0 for the start-up budget

  bool unthrottled() const { return share >= 1.0 && max_inflight == 0; }
  bool expired(uint64_t now_ns) const { return expires_ns != 0 && now_ns >= expires_ns; }
};

// The budget IASHIM_* variables asked for (never expires).
Budget BudgetFromConfig(const Config& config);

// A coordinator's Budget message received at `now_ns`, or nullopt (with the
// reason) if a field is out of range. Nothing is clamped silently.
std::optional<Budget> BudgetFromWire(const wire::Budget& message, uint64_t now_ns,
                                     std::string* error);

// "share 0.30, max 8 in flight, opportunistic, expires in 2.0 s": for logs.
std::string Describe(const Budget& budget, uint64_t now_ns);

}  // namespace iashim

#endif  // IASHIM_BUDGET_H_
