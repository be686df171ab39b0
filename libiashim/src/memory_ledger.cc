#include "libiashim/src/memory_ledger.h"

#include <cstdlib>
#include <new>

namespace iashim {

// Key 0 marks an empty slot and ~0 a freed one (a tombstone, reused by later
// inserts); those two keys are never recorded. Value: bytes << 16 | context
// << 8 | device.
struct MemoryLedger::Table {
  static constexpr int kBits = 17;
  static constexpr size_t kSlots = size_t(1) << kBits;
  static constexpr int kMaxProbes = 256;
  static constexpr uint64_t kEmpty = 0;
  static constexpr uint64_t kTombstone = ~uint64_t(0);

  struct Slot {
    std::atomic<uint64_t> key;
    std::atomic<uint64_t> value;
  };
  Slot* slots;

  Table() : slots(static_cast<Slot*>(std::calloc(kSlots, sizeof(Slot)))) {
    if (slots == nullptr) throw std::bad_alloc();
  }
  ~Table() { std::free(slots); }

  static size_t Index(uint64_t key) { return size_t((key * 0x9E3779B97F4A7C15ULL) >> (64 - kBits)); }

  bool Insert(uint64_t key, uint64_t value) {
    size_t i = Index(key);
    for (int probe = 0; probe < kMaxProbes; ++probe, i = (i + 1) & (kSlots - 1)) {
      uint64_t k = slots[i].key.load(std::memory_order_acquire);
      if (k != kEmpty && k != kTombstone) continue;
      // Publish the value first; it is read only after the key is seen.
      if (slots[i].key.compare_exchange_strong(k, kTombstone - 1, std::memory_order_acq_rel)) {
        slots[i].value.store(value, std::memory_order_relaxed);
        slots[i].key.store(key, std::memory_order_release);
        return true;
      }
    }
    return false;
  }

  // Removes every entry whose value `match`es; returns their values.
  template <typename Match, typename Each>
  void EraseIf(Match&& match, Each&& each) {
    for (size_t i = 0; i < kSlots; ++i) {
      uint64_t k = slots[i].key.load(std::memory_order_acquire);
      if (k == kEmpty || k >= kTombstone - 1) continue;
      const uint64_t v = slots[i].value.load(std::memory_order_relaxed);
      if (!match(v)) continue;
      // A concurrent free of the same key may win; then it gives the bytes back.
      if (slots[i].key.compare_exchange_strong(k, kTombstone, std::memory_order_acq_rel)) {
        each(k, v);
      }
    }
  }

  // Removes `key`; returns its value through `value`.
  bool Erase(uint64_t key, uint64_t* value) {
    size_t i = Index(key);
    for (int probe = 0; probe < kMaxProbes; ++probe, i = (i + 1) & (kSlots - 1)) {
      uint64_t k = slots[i].key.load(std::memory_order_acquire);
      if (k == kEmpty) return false;
      if (k != key) continue;
      const uint64_t v = slots[i].value.load(std::memory_order_relaxed);
      if (slots[i].key.compare_exchange_strong(k, kTombstone, std::memory_order_acq_rel)) {
        *value = v;
        return true;
      }
      return false;  // a concurrent free of the same pointer won
    }
    return false;
  }
};

MemoryLedger::MemoryLedger(uint64_t limit_bytes)
    : limit_(limit_bytes),
      pointers_(std::make_unique<Table>()),
      handles_(std::make_unique<Table>()),
      arrays_(std::make_unique<Table>()) {}

MemoryLedger::~MemoryLedger() = default;

bool MemoryLedger::Reserve(int device, uint64_t bytes) {
  if (!Valid(device)) return true;
  std::atomic<uint64_t>& used = used_[device];
  uint64_t current = used.load(std::memory_order_relaxed);
  uint64_t next;
  do {
    next = current + bytes;
    if (next < current || (limit_ != 0 && next > limit_)) {
      refused_[device].fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  } while (!used.compare_exchange_weak(current, next, std::memory_order_relaxed));
  uint64_t peak = peak_[device].load(std::memory_order_relaxed);
  while (next > peak && !peak_[device].compare_exchange_weak(peak, next, std::memory_order_relaxed)) {
  }
  int count = device_count_.load(std::memory_order_relaxed);
  while (device + 1 > count &&
         !device_count_.compare_exchange_weak(count, device + 1, std::memory_order_relaxed)) {
  }
  return true;
}

void MemoryLedger::Unreserve(int device, uint64_t bytes) {
  if (Valid(device)) used_[device].fetch_sub(bytes, std::memory_order_relaxed);
}

namespace {

constexpr uint64_t Pack(uint64_t bytes, uint8_t context, int device) {
  return (bytes << 16) | (uint64_t(context) << 8) | uint64_t(device);
}
constexpr int DeviceOf(uint64_t value) { return int(value & 0xff); }
constexpr uint8_t ContextOf(uint64_t value) { return uint8_t((value >> 8) & 0xff); }
constexpr uint64_t BytesOf(uint64_t value) { return value >> 16; }

}  // namespace

void MemoryLedger::Record(Kind kind, uint64_t key, int device, uint64_t bytes, uint8_t context) {
  if (!Valid(device)) return;
  // 2^48 bytes (256 TiB) is more than any one allocation can be.
  const bool ok = key != Table::kEmpty && key < Table::kTombstone - 1 && bytes < (uint64_t(1) << 48) &&
                  table(kind).Insert(key, Pack(bytes, context, device));
  if (!ok) {
    Unreserve(device, bytes);
    untracked_.fetch_add(1, std::memory_order_relaxed);
  }
}

std::optional<MemoryLedger::Allocation> MemoryLedger::Detach(Kind kind, uint64_t key) {
  uint64_t value = 0;
  if (key == Table::kEmpty || key >= Table::kTombstone - 1 || !table(kind).Erase(key, &value)) {
    return std::nullopt;
  }
  return Allocation{kind, key, DeviceOf(value), BytesOf(value), ContextOf(value)};
}

size_t MemoryLedger::ReleaseContext(uint8_t context) {
  if (context == kNoContext) return 0;
  size_t released = 0;
  // VMM handles outlive contexts (they are released by cuMemRelease only).
  for (Kind kind : {Kind::kPointer, Kind::kArray}) {
    table(kind).EraseIf([context](uint64_t v) { return ContextOf(v) == context; },
                        [this, &released](uint64_t, uint64_t v) {
                          Unreserve(DeviceOf(v), BytesOf(v));
                          ++released;
                        });
  }
  return released;
}

bool MemoryLedger::Forget(Kind kind, uint64_t key) {
  const std::optional<Allocation> a = Detach(kind, key);
  if (a) Return(*a);
  return a.has_value();
}

uint64_t MemoryLedger::used(int device) const {
  return Valid(device) ? used_[device].load(std::memory_order_relaxed) : 0;
}
uint64_t MemoryLedger::peak(int device) const {
  return Valid(device) ? peak_[device].load(std::memory_order_relaxed) : 0;
}
uint64_t MemoryLedger::refused(int device) const {
  return Valid(device) ? refused_[device].load(std::memory_order_relaxed) : 0;
}

}  // namespace iashim
