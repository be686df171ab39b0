#include "libiashim/src/launch_gate.h"

#include <algorithm>
#include <chrono>

#include "libiashim/src/cycle_clock.h"
#include "libiashim/src/real_driver.h"

namespace iashim {
namespace {
// Events kept for the in-flight window; past this the window stops tracking
// (fails open) rather than grow without bound.
constexpr size_t kMaxEvents = 4096;
}  // namespace

LaunchGate::LaunchGate(const Budget& initial, uint64_t now_ns)
    : budget_(initial) {
  BucketLocked(-1, now_ns);
  throttled_.store(!initial.unthrottled(), std::memory_order_relaxed);
}

TokenBucket& LaunchGate::BucketLocked(int device, uint64_t now_ns) {
  return buckets_.try_emplace(device, budget_.share, now_ns).first->second;
}

uint64_t LaunchGate::Admit(uint64_t cost_ns, uint64_t stream, int stream_priority, int device) {
  const uint64_t start_ns = MonotonicNs();
  bool waited = false;
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t ticket = next_ticket_++;
  queue_.Enqueue(ticket, stream, stream_priority);
  while (throttled_.load(std::memory_order_relaxed)) {
    const std::optional<uint64_t> next = queue_.Next();
    if (!next || *next != ticket) {
      waited = true;
      changed_.wait(lock);  // someone ahead of us; they notify when they go
      continue;
    }
    if (budget_.max_inflight != 0 && !InflightRoomLocked()) {
      // Wait for our oldest unfinished kernel outside the lock: it stays in
      // the window (so its event is not reused) until we pop it.
      const Inflight oldest = inflight_.front();
      waited = true;
      lock.unlock();
      if (auto sync = IASHIM_REAL(cuEventSynchronize)) sync(oldest.event);
      lock.lock();
      continue;
    }
    if (budget_.share >= 1.0) break;
    const uint64_t now_ns = MonotonicNs();
    TokenBucket& bucket = BucketLocked(device, now_ns);
    const uint64_t wait_ns = bucket.WaitNs(now_ns);
    if (wait_ns == 0) {
      bucket.Charge(static_cast<uint64_t>(double(cost_ns) * charge_scale_), now_ns);
      break;
    }
    waited = true;
    // Until the bucket allows, or the budget changes (which notifies).
    changed_.wait_for(lock, std::chrono::nanoseconds(wait_ns));
  }
  queue_.Remove(ticket);
  lock.unlock();
  changed_.notify_all();
  if (!waited) return 0;
  const uint64_t held = MonotonicNs() - start_ns;
  held_.fetch_add(1, std::memory_order_relaxed);
  held_ns_.fetch_add(held, std::memory_order_relaxed);
  return held;
}

void LaunchGate::Submitted(CUstream stream, bool per_thread) {
  std::lock_guard<std::mutex> lock(mu_);
  if (budget_.max_inflight == 0) return;
  auto get_ctx = IASHIM_REAL(cuCtxGetCurrent);
  auto record = per_thread ? IASHIM_REAL(cuEventRecord_ptsz) : IASHIM_REAL(cuEventRecord);
  CUcontext ctx = nullptr;
  if (get_ctx == nullptr || record == nullptr || get_ctx(&ctx) != CUDA_SUCCESS) return;
  CUevent event = TakeEventLocked(ctx);
  if (event == nullptr) return;
  if (record(event, stream) != CUDA_SUCCESS) {
    free_events_.push_back({ctx, event});
    return;
  }
  inflight_.push_back({ctx, event});
}

bool LaunchGate::InflightRoomLocked() {
  auto query = IASHIM_REAL(cuEventQuery);
  while (!inflight_.empty()) {
    // Finished, or failed (a destroyed context): either way no longer in flight.
    if (query != nullptr && query(inflight_.front().event) == CUDA_ERROR_NOT_READY) break;
    free_events_.push_back(inflight_.front());
    inflight_.pop_front();
  }
  return inflight_.size() < budget_.max_inflight;
}

CUevent LaunchGate::TakeEventLocked(CUcontext ctx) {
  for (auto it = free_events_.begin(); it != free_events_.end(); ++it) {
    if (it->ctx == ctx) {
      const CUevent e = it->event;
      free_events_.erase(it);
      return e;
    }
  }
  if (inflight_.size() + free_events_.size() >= kMaxEvents) return nullptr;
  auto create = IASHIM_REAL(cuEventCreate);
  CUevent e = nullptr;
  if (create == nullptr || create(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) return nullptr;
  return e;
}

bool LaunchGate::SetBudget(const Budget& budget, uint64_t now_ns) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (budget.seq <= budget_.seq) return false;  // stale or repeated
    ApplyLocked(budget, now_ns);
  }
  changed_.notify_all();
  return true;
}

void LaunchGate::ExpireIfDue(uint64_t now_ns) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!budget_.expired(now_ns)) return;
    Budget unthrottled;
    unthrottled.seq = budget_.seq;
    ApplyLocked(unthrottled, now_ns);
  }
  changed_.notify_all();
}

void LaunchGate::ApplyLocked(const Budget& budget, uint64_t now_ns) {
  budget_ = budget;
  for (auto& [device, bucket] : buckets_) bucket.SetShare(budget.share, now_ns);
  throttled_.store(!budget.unthrottled(), std::memory_order_relaxed);
}

void LaunchGate::ForgetCudaObjects() {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto destroy = IASHIM_REAL(cuEventDestroy_v2)) {
    for (const Inflight& i : inflight_) destroy(i.event);
    for (const Inflight& i : free_events_) destroy(i.event);
  }
  inflight_.clear();
  free_events_.clear();
}

void LaunchGate::SetChargeScale(double scale) {
  if (!(scale == scale)) return;
  std::lock_guard<std::mutex> lock(mu_);
  charge_scale_ = std::clamp(scale, 0.01, 100.0);
}

double LaunchGate::charge_scale() const {
  std::lock_guard<std::mutex> lock(mu_);
  return charge_scale_;
}

Budget LaunchGate::budget() const {
  std::lock_guard<std::mutex> lock(mu_);
  return budget_;
}

}  // namespace iashim
