#include "libiashim/src/collective_pacer.h"

#include <algorithm>
#include <cstdint>

namespace iashim {

uint64_t CollectivePace::transfer_ns() const { return durations_.Least(); }

uint64_t CollectivePace::Observe(uint64_t duration_ns, bool throttled) {
  durations_.Push(duration_ns);
  if (!throttled) {
    hold_ns_ = 0;
    waits_.Clear();
    unheld_.Clear();
    since_probe_ = 0;
    probed_once_ = probing_ = false;
    return 0;
  }
  // Launched with what Observe returned last (the drainer reads a launch's
  // duration before the next collective is launched, one iteration later).
  unheld_.Push(next_hold_ns() + duration_ns);
  if (probing_) {
    // The probe's launch (or one just before it): its duration is in the
    // window, where it bounds the transfer; as a wait it would read as "came
    // last" and halve the hold.
    probing_ = false;
    return hold_ns_;
  }
  const uint64_t transfer = transfer_ns();
  const uint64_t wait = duration_ns - transfer;  // transfer is the least: never negative
  waits_.Push(wait);
  const uint64_t margin = kMarginNs + transfer / 10;
  if (wait <= margin) {
    hold_ns_ /= 2;  // arrived last, or nearly: the others would wait for a longer hold
  } else if (waits_.size() == kRecent) {  // before: not yet a lead, one wait may be chance
    const uint64_t lead = waits_.Least();
    if (lead > margin) hold_ns_ = std::min(hold_ns_ + (lead - margin) / 2, kMaxHoldNs);
  }
  ++since_probe_;
  if (since_probe_ < (probed_once_ ? kProbeEvery : kRecent)) return hold_ns_;
  since_probe_ = 0;
  probed_once_ = probing_ = true;
  probe_hold_ns_ = std::min(unheld_.Least(), kMaxHoldNs);
  return probe_hold_ns_;
}

void CollectivePacer::Observe(uint32_t kernel, int device, uint64_t duration_ns, bool throttled) {
  if (kernel == 0) return;  // "other": not one kernel, nothing to learn
  if (device_ < 0) device_ = device;
  if (device != device_) several_devices_.store(true, std::memory_order_relaxed);
  for (size_t i = 0; i < kMaxPaced; ++i) {
    const uint32_t owner = slots_[i].kernel.load(std::memory_order_relaxed);
    if (owner != kernel && owner != 0) continue;
    if (owner == 0) slots_[i].kernel.store(kernel, std::memory_order_relaxed);
    slots_[i].hold_ns.store(paces_[i].Observe(duration_ns, throttled), std::memory_order_relaxed);
    return;
  }
}

uint64_t CollectivePacer::HoldNs(uint32_t kernel) const {
  if (several_devices_.load(std::memory_order_relaxed)) return 0;
  for (const Slot& slot : slots_) {
    const uint32_t owner = slot.kernel.load(std::memory_order_relaxed);
    if (owner == kernel) return slot.hold_ns.load(std::memory_order_relaxed);
    if (owner == 0) return 0;  // slots fill in order: no later one is taken
  }
  return 0;
}

}  // namespace iashim
