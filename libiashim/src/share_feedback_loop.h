// Share feedback's own thread: every kPeriodNs while the process is held to a
// share below 1, it reads the GPU time NVML accounted to the process and lets
// ShareFeedback (share_feedback.h) rescale the launch gate's charges.
//
// A thread of its own, started the first time the gate is throttled, because
// an NVML call can take milliseconds (the first loads the library): on the
// drainer's thread it would delay budgets and telemetry.
//
// A reading only counts when the same budget was in force over its whole
// interval; the first reading after a budget change or an unthrottled spell
// only sets the starting point. Without NVML (or when NVML does not list this
// process) nothing changes: the gate runs on its cost model alone.
#ifndef IASHIM_SHARE_FEEDBACK_LOOP_H_
#define IASHIM_SHARE_FEEDBACK_LOOP_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "libiashim/src/nvml_usage.h"
#include "libiashim/src/share_feedback.h"

namespace iashim {

class LaunchGate;

class ShareFeedbackLoop {
 public:
  static constexpr uint64_t kPeriodNs = 500'000'000;  // NVML samples every ~1/6 s

  ShareFeedbackLoop(int pid, LaunchGate* gate) : pid_(pid), gate_(gate) {}
  ~ShareFeedbackLoop() { Stop(); }
  ShareFeedbackLoop(const ShareFeedbackLoop&) = delete;
  ShareFeedbackLoop& operator=(const ShareFeedbackLoop&) = delete;

  // Called by the drainer on every pass: starts the thread the first time the
  // gate is throttled; a relaxed load otherwise.
  void StartIfThrottled();
  // Stops and joins the thread (idempotent).
  void Stop();

  // The last reading of this process's GPU time share, -1 if none.
  double last_reading() const { return last_reading_.load(std::memory_order_relaxed); }

 private:
  void Run();
  void Tick();

  const int pid_;
  LaunchGate* const gate_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool started_ = false;
  std::atomic<double> last_reading_{-1.0};

  // Used by the loop's thread only.
  std::unique_ptr<NvmlUsage> usage_;
  ShareFeedback feedback_;
  bool measuring_ = false;  // a starting point was taken under the budget below
  uint64_t budget_seq_ = 0;
  double budget_share_ = 1.0;
  uint64_t held_seen_ = 0;
};

}  // namespace iashim

#endif  // IASHIM_SHARE_FEEDBACK_LOOP_H_
