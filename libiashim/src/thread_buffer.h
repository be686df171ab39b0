// Per-thread telemetry buffers: each launching thread owns a single-producer
// ring of LaunchRecords that only the background thread consumes, so a hook
// pays two ordinary stores and no lock. A full ring drops the record and
// counts it; the hook never waits.
//
// Buffers are created on a thread's first launch, linked into a global list
// that the background thread walks, and reused after their thread exits.
// Each buffer also holds the CUDA event pairs that time its sampled launches.
#ifndef IASHIM_THREAD_BUFFER_H_
#define IASHIM_THREAD_BUFFER_H_

#include <atomic>
#include <cstdint>

#include "libiashim/src/cuda_api.h"
#include "libiashim/src/cycle_clock.h"
#include "libiashim/src/launch_device.h"
#include "libiashim/src/launch_record.h"

namespace iashim {

// Two events around one sampled launch. The producer thread hands it to the
// background thread by setting in_flight; the background thread hands it back.
struct EventPair {
  std::atomic<bool> in_flight{false};
  CUcontext ctx = nullptr;  // the context the events were created in
  CUevent start = nullptr;
  CUevent end = nullptr;
};

class ThreadBuffer {
 public:
  static constexpr uint32_t kCapacity = 8192;  // records; a power of two
  static constexpr int kEventPairs = 32;

  // The calling thread's buffer, created or reused on first use; null only
  // if memory is exhausted.
  static ThreadBuffer* Current() {
    ThreadBuffer* b = tls_current_;
    return b != nullptr ? b : Attach();
  }

  // Producer side (the owning thread). Claim() returns the next free slot to
  // fill in place (copying a record built elsewhere costs store-forwarding
  // stalls), or null when the ring is full: the record is dropped and counted.
  // Publish() hands the claimed slot to the consumer.
  LaunchRecord* Claim() {
    const uint64_t h = head_.load(std::memory_order_relaxed);
    if (h - tail_cache_ >= kCapacity) {
      tail_cache_ = tail_.load(std::memory_order_acquire);
      if (h - tail_cache_ >= kCapacity) {
        dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        return nullptr;
      }
    }
    return &records_[h & (kCapacity - 1)];
  }
  void Publish() {
    head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  // A timestamp for a launch record. Reading the TSC is a third of a launch's
  // cost, so unless `exact` (a trace wants every launch's time) it is read
  // once every kTickReuse launches and reused in between: telemetry windows
  // are 100 ms, and synchronisation records always read the clock.
  static constexpr int kTickReuse = 8;
  uint64_t LaunchTicks(bool exact) {
    if (exact || --tick_countdown_ <= 0) {
      tick_countdown_ = kTickReuse;
      last_ticks_ = CycleNow();
    }
    return last_ticks_;
  }
  // True once every `every` calls (the count-down is the thread's own).
  bool TakeSampleTurn(uint32_t every) {
    if (--sample_countdown_ > 0) return false;
    sample_countdown_ = every;
    return true;
  }
  // The device of the thread's current context, as last asked (launch_device.h).
  DeviceCache& device_cache() { return device_cache_; }
  // A free event pair in context `ctx`, creating events if needed; -1 if none.
  int AcquireEventPair(CUcontext ctx);
  void ReleaseEventPair(int slot) {
    pairs_[slot].in_flight.store(false, std::memory_order_release);
  }
  EventPair& pair(int slot) { return pairs_[slot]; }
  void AddSampleCost(uint64_t ns) {
    sample_cost_ns_.store(sample_cost_ns_.load(std::memory_order_relaxed) + ns,
                          std::memory_order_relaxed);
    samples_.store(samples_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // Consumer side (the background thread). Calls f(record, sequence) for each
  // record in order and returns how many there were.
  template <typename F>
  uint64_t Drain(F&& f) {
    const uint64_t t = tail_.load(std::memory_order_relaxed);
    const uint64_t h = head_.load(std::memory_order_acquire);
    for (uint64_t i = t; i != h; ++i) f(records_[i & (kCapacity - 1)], i);
    tail_.store(h, std::memory_order_release);
    return h - t;
  }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  uint64_t sample_cost_ns() const { return sample_cost_ns_.load(std::memory_order_relaxed); }
  uint64_t samples() const { return samples_.load(std::memory_order_relaxed); }
  uint32_t index() const { return index_.load(std::memory_order_relaxed); }
  // The owning thread has exited (the buffer can be reused once drained).
  bool retired() const { return state_.load(std::memory_order_acquire) == kRetired; }
  // Hands a retired, drained buffer back for reuse by a new thread.
  void Recycle() { state_.store(kFree, std::memory_order_release); }
  bool HasPairsInFlight() const;
  // Destroys the events of every pair not in flight (their context may be
  // about to go, taking them with it); the next sample creates new ones.
  void DestroyIdleEventPairs();

  ThreadBuffer* next() const { return next_; }
  static ThreadBuffer* Head() { return head_of_list_.load(std::memory_order_acquire); }

  // In a fork() child: buffers of threads that no longer exist are retired,
  // records of the parent are discarded, event pairs (the parent's CUDA
  // objects) forgotten.
  static void ResetAfterFork();

 private:
  enum State : int { kFree = 0, kOwned = 1, kRetired = 2 };
  ThreadBuffer() = default;
  static ThreadBuffer* Attach();
  static void Detach(void*);

  // Producer-written.
  alignas(64) std::atomic<uint64_t> head_{0};
  uint64_t tail_cache_ = 0;
  uint64_t last_ticks_ = 0;
  int32_t tick_countdown_ = 0;
  int32_t sample_countdown_ = 1;
  DeviceCache device_cache_;
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> sample_cost_ns_{0};
  std::atomic<uint64_t> samples_{0};
  // Consumer-written.
  alignas(64) std::atomic<uint64_t> tail_{0};
  // Shared.
  alignas(64) std::atomic<int> state_{kOwned};
  std::atomic<uint32_t> index_{0};
  ThreadBuffer* next_ = nullptr;
  EventPair pairs_[kEventPairs];
  LaunchRecord records_[kCapacity];

  static thread_local ThreadBuffer* tls_current_ __attribute__((tls_model("initial-exec")));
  static std::atomic<ThreadBuffer*> head_of_list_;
  static std::atomic<uint32_t> next_index_;
};

}  // namespace iashim

#endif  // IASHIM_THREAD_BUFFER_H_
