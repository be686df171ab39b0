#include "libiashim/src/context_slots.h"

namespace iashim {

ContextSlots& ContextSlots::Get() {
  static ContextSlots* slots = new ContextSlots;
  return *slots;
}

uint8_t ContextSlots::Find(CUcontext ctx) const {
  if (ctx == nullptr) return MemoryLedger::kNoContext;
  for (int i = 1; i < kSlots; ++i) {
    if (by_slot_[i].load(std::memory_order_acquire) == ctx) return static_cast<uint8_t>(i);
  }
  return MemoryLedger::kNoContext;
}

uint8_t ContextSlots::SlotOf(CUcontext ctx) {
  if (const uint8_t found = Find(ctx); found != MemoryLedger::kNoContext || ctx == nullptr) {
    return found;
  }
  std::lock_guard<std::mutex> lock(assign_mu_);
  if (const uint8_t found = Find(ctx); found != MemoryLedger::kNoContext) return found;
  for (int i = 1; i < kSlots; ++i) {
    if (by_slot_[i].load(std::memory_order_relaxed) == nullptr) {
      by_slot_[i].store(ctx, std::memory_order_release);
      return static_cast<uint8_t>(i);
    }
  }
  return MemoryLedger::kNoContext;
}

void ContextSlots::Drop(CUcontext ctx) {
  if (ctx == nullptr) return;
  std::lock_guard<std::mutex> lock(assign_mu_);
  for (int i = 1; i < kSlots; ++i) {
    if (by_slot_[i].load(std::memory_order_relaxed) == ctx) {
      by_slot_[i].store(nullptr, std::memory_order_release);
    }
  }
}

void ContextSlots::NotePrimary(CUdevice device, CUcontext ctx) {
  if (device >= 0 && device < MemoryLedger::kMaxDevices) {
    primaries_[device].store(ctx, std::memory_order_release);
  }
}

CUcontext ContextSlots::Primary(CUdevice device) const {
  return device >= 0 && device < MemoryLedger::kMaxDevices
             ? primaries_[device].load(std::memory_order_acquire)
             : nullptr;
}

}  // namespace iashim
