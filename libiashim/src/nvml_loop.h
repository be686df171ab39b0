// The shim's one thread that calls NVML, every kPeriodNs, for two readers:
//
// - Share feedback: while the process is held to a share below 1, it reads
//   the GPU time NVML accounted to the process and lets ShareFeedback
//   (share_feedback.h) rescale the launch gate's charges. A reading only
//   counts when the same budget was in force over its whole interval; the
//   first reading after a budget change or an unthrottled spell only sets the
//   starting point.
// - Energy: while telemetry goes to a coordinator, it reads the total energy
//   counter of the GPU the process runs on, which the coordinator splits among
//   the GPU's jobs by their GPU time.
//
// A thread of its own, started the first time one of them needs it, because
// an NVML call can take milliseconds (the first loads the library): on the
// drainer's thread it would delay budgets and telemetry. Without NVML (or
// when NVML does not list this process) nothing changes: the gate runs on its
// cost model alone and telemetry says the energy is unknown.
#ifndef IASHIM_NVML_LOOP_H_
#define IASHIM_NVML_LOOP_H_

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

class NvmlLoop {
 public:
  static constexpr uint64_t kPeriodNs = 500'000'000;  // NVML samples every ~1/6 s

  // `feedback`: correct the gate's charges (IASHIM_SHARE_FEEDBACK); `energy`:
  // read the GPU's energy counter (telemetry is sent).
  NvmlLoop(int pid, LaunchGate* gate, bool feedback, bool energy)
      : pid_(pid), gate_(gate), feedback_on_(feedback), energy_on_(energy) {}
  ~NvmlLoop() { Stop(); }
  NvmlLoop(const NvmlLoop&) = delete;
  NvmlLoop& operator=(const NvmlLoop&) = delete;

  // Called by the drainer on every pass: starts the thread the first time a
  // reader needs it (energy at once, feedback once the gate is throttled); a
  // relaxed load otherwise.
  void StartIfNeeded();
  // Stops and joins the thread (idempotent).
  void Stop();

  // The last reading of this process's GPU time share, -1 if none.
  double last_reading() const { return last_reading_.load(std::memory_order_relaxed); }
  // The last reading of the process's GPU's energy counter in joules, -1 if none.
  double gpu_energy_j() const { return energy_j_.load(std::memory_order_relaxed); }

 private:
  void Run();
  void Tick();
  void FeedbackTick();

  const int pid_;
  LaunchGate* const gate_;
  const bool feedback_on_;
  const bool energy_on_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool started_ = false;
  std::atomic<double> last_reading_{-1.0};
  std::atomic<double> energy_j_{-1.0};

  // Used by the loop's thread only.
  std::unique_ptr<NvmlUsage> usage_;
  ShareFeedback feedback_;
  bool measuring_ = false;  // a starting point was taken under the budget below
  uint64_t budget_seq_ = 0;
  double budget_share_ = 1.0;
  uint64_t held_seen_ = 0;
};

}  // namespace iashim

#endif  // IASHIM_NVML_LOOP_H_
