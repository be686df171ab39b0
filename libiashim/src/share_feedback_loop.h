// The drainer's side of share feedback: every kPeriodNs while the process is
// held to a share below 1, reads the GPU time NVML accounted to it and lets
// ShareFeedback (share_feedback.h) rescale the launch gate's charges.
//
// A reading only counts when the same budget was in force over its whole
// interval; the first reading after a budget change or an unthrottled spell
// only sets the starting point. Without NVML (or when NVML does not list this
// process) nothing changes: the gate runs on its cost model alone.
#ifndef IASHIM_SHARE_FEEDBACK_LOOP_H_
#define IASHIM_SHARE_FEEDBACK_LOOP_H_

#include <cstdint>
#include <memory>

#include "nvml_usage.h"
#include "share_feedback.h"

namespace iashim {

class LaunchGate;

class ShareFeedbackLoop {
 public:
  static constexpr uint64_t kPeriodNs = 500'000'000;  // NVML samples every ~1/6 s

  explicit ShareFeedbackLoop(int pid) : pid_(pid) {}
  ~ShareFeedbackLoop();

  // Called by the drainer on every pass (cheap until a period has passed).
  void Tick(uint64_t now_ns, LaunchGate& gate);

  // The last reading of this process's GPU time share, -1 if none.
  double last_reading() const { return last_reading_; }

 private:
  const int pid_;
  std::unique_ptr<NvmlUsage> usage_;
  bool unavailable_ = false;  // NVML failed to open: not retried
  ShareFeedback feedback_;
  uint64_t next_ns_ = 0;
  bool measuring_ = false;    // a starting point was taken under the budget below
  uint64_t budget_seq_ = 0;
  double budget_share_ = 1.0;
  uint64_t held_seen_ = 0;
  double last_reading_ = -1.0;
};

}  // namespace iashim

#endif  // IASHIM_SHARE_FEEDBACK_LOOP_H_
