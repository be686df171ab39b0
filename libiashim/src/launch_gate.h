// The launch gate: holds a launch back until the process's budget allows it.
//
// Unthrottled (share 1, no in-flight cap) the gate is one relaxed load on the
// launch path. Throttled, a launch:
//   1. waits its turn: per stream in arrival order, across streams by stream
//      priority (GateQueue) - the local reordering;
//   2. waits until the token bucket of its device (refilled at `share` of
//      wall time) is out of debt, then is charged the kernel's estimated GPU
//      time (KernelCostModel, learned from sampled durations). The share is
//      of each GPU the process uses: a process driving four GPUs at share 0.5
//      gets half of each, not half of one spread over four;
//   3. with an in-flight cap, waits until fewer than the cap of this process's
//      kernels are unfinished on the GPU (an event recorded after each launch).
// Waiting blocks the launching thread on a condition variable until the exact
// time the bucket allows (or a budget change), never spinning, never in fixed
// ticks. A held launch has not reached the driver, and its own thread is the
// one waiting, so a synchronising call elsewhere cannot wait on it: program
// order is kept and nothing deadlocks.
#ifndef IASHIM_LAUNCH_GATE_H_
#define IASHIM_LAUNCH_GATE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>

#include "libiashim/src/budget.h"
#include "libiashim/src/cuda_api.h"
#include "libiashim/src/gate_queue.h"
#include "libiashim/src/token_bucket.h"

namespace iashim {

class LaunchGate {
 public:
  LaunchGate(const Budget& initial, uint64_t now_ns);

  // The launch path's only cost when unthrottled.
  bool throttled() const { return throttled_.load(std::memory_order_relaxed); }

  // Blocks until a launch costing `cost_ns` of GPU time may be submitted on
  // `stream` (CUDA stream priority `stream_priority`, lower = sooner) of
  // device ordinal `device` (-1: unknown, one bucket of its own). Returns the
  // nanoseconds it waited.
  uint64_t Admit(uint64_t cost_ns, uint64_t stream, int stream_priority, int device = -1);

  // After a successful launch on `stream` (per-thread variant or not): with an
  // in-flight cap, records an event to learn when it finishes.
  void Submitted(CUstream stream, bool per_thread);

  // Replaces the budget in force (wakes every waiter). Only a budget with a
  // higher seq than the one in force applies; returns whether it did.
  bool SetBudget(const Budget& budget, uint64_t now_ns);
  // An expired budget means unthrottled.
  void ExpireIfDue(uint64_t now_ns);
  Budget budget() const;
  // Destroys the in-flight markers' events while their context still exists
  // (it may be about to go); the window starts empty again.
  void ForgetCudaObjects();

  // Multiplies every charge from now on (share feedback, share_feedback.h);
  // clamped to [0.01, 100], NaN ignored.
  void SetChargeScale(double scale);
  double charge_scale() const;

  uint64_t held_launches() const { return held_.load(std::memory_order_relaxed); }
  uint64_t held_ns() const { return held_ns_.load(std::memory_order_relaxed); }

 private:
  struct Inflight {
    CUcontext ctx;
    CUevent event;
  };
  void ApplyLocked(const Budget& budget, uint64_t now_ns);
  // Pops finished launches; true if the window has room.
  bool InflightRoomLocked();
  // Takes a free event in `ctx` (creates one if needed), or null.
  CUevent TakeEventLocked(CUcontext ctx);
  // The bucket of `device`, made full at the share in force when first used.
  TokenBucket& BucketLocked(int device, uint64_t now_ns);

  mutable std::mutex mu_;
  std::condition_variable changed_;
  Budget budget_;
  double charge_scale_ = 1.0;  // guarded by mu_
  std::map<int, TokenBucket> buckets_;  // by device ordinal; a handful at most
  GateQueue queue_;
  uint64_t next_ticket_ = 1;
  std::deque<Inflight> inflight_;
  std::deque<Inflight> free_events_;
  std::atomic<bool> throttled_{false};
  std::atomic<uint64_t> held_{0};
  std::atomic<uint64_t> held_ns_{0};
};

}  // namespace iashim

#endif  // IASHIM_LAUNCH_GATE_H_
