// Per-device accounting of the memory this process allocated, and the quota.
//
// An allocation reserves its bytes before the real call (so concurrent
// allocations cannot overshoot the quota together), then is recorded under its
// pointer or VMM handle so its free can return exactly those bytes. The maps
// are fixed lock-free open-addressing tables: allocation and free take no lock.
// A free of something never recorded changes nothing.
#ifndef IASHIM_MEMORY_LEDGER_H_
#define IASHIM_MEMORY_LEDGER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

namespace iashim {

class MemoryLedger {
 public:
  static constexpr int kMaxDevices = 64;
  // Keys: a device pointer, a VMM handle, or a CUarray / CUmipmappedArray
  // handle (distinct live driver objects, so one table serves both).
  enum class Kind { kPointer, kVmmHandle, kArray };

  // `limit_bytes` per device; 0 means no quota (accounting only).
  explicit MemoryLedger(uint64_t limit_bytes);
  ~MemoryLedger();
  MemoryLedger(const MemoryLedger&) = delete;
  MemoryLedger& operator=(const MemoryLedger&) = delete;

  // Takes `bytes` on `device` if the quota allows; false (and counted as a
  // refusal) if not. Devices outside [0, kMaxDevices) are not limited.
  bool Reserve(int device, uint64_t bytes);
  // Gives back a reservation whose allocation failed.
  void Unreserve(int device, uint64_t bytes);
  // The context an allocation belongs to, as a small number
  // (context_slots.h); kNoContext for one that outlives contexts (VMM) or
  // whose context is not known.
  static constexpr uint8_t kNoContext = 0;

  // Records a successful allocation. If the table is full the allocation is
  // not tracked and its reservation is returned (the quota fails open).
  void Record(Kind kind, uint64_t key, int device, uint64_t bytes, uint8_t context = kNoContext);
  // Forgets an allocation and returns its bytes; false if never recorded.
  bool Forget(Kind kind, uint64_t key);

  // A free in two steps (allocation_path.h, Deallocate): the record comes out
  // of the table before the real free, its bytes still counted, and then
  // either its bytes come back (the free succeeded) or the record goes back
  // in (it failed). Taking it out while the driver still holds the object
  // keeps another thread's allocation, which the driver may give the same
  // address the moment it is free, from being taken out by this free.
  struct Allocation {
    Kind kind;
    uint64_t key;
    int device;
    uint64_t bytes;
    uint8_t context = kNoContext;
  };
  std::optional<Allocation> Detach(Kind kind, uint64_t key);
  void Return(const Allocation& a) { Unreserve(a.device, a.bytes); }
  void Reattach(const Allocation& a) { Record(a.kind, a.key, a.device, a.bytes, a.context); }
  // The second step: its bytes back if the free succeeded, the record back if not.
  void Settle(const Allocation& a, bool freed) { freed ? Return(a) : Reattach(a); }

  // Forgets every allocation of `context` and returns its bytes: the driver
  // frees a context's memory when the context is destroyed or reset
  // (hooks_context.cc). Matched by context, not address, so an allocation of
  // another context that the driver gave a freed address meanwhile stays.
  // Returns how many allocations it forgot. kNoContext forgets nothing.
  // It runs after the driver freed the memory: if in that window another
  // thread gets a freed address and frees it again, that free may take the
  // old record, and the new one stays charged (a window of one driver call,
  // in a program that tears a context down while other threads allocate).
  size_t ReleaseContext(uint8_t context);

  uint64_t limit() const { return limit_; }
  uint64_t used(int device) const;
  uint64_t peak(int device) const;
  // Refusals so far on `device` (monotonic).
  uint64_t refused(int device) const;
  uint64_t untracked() const { return untracked_.load(std::memory_order_relaxed); }
  // Highest device index that ever held memory, plus one.
  int device_count() const { return device_count_.load(std::memory_order_relaxed); }

 private:
  struct Table;
  Table& table(Kind kind) {
    return kind == Kind::kPointer ? *pointers_ : kind == Kind::kVmmHandle ? *handles_ : *arrays_;
  }
  static bool Valid(int device) { return device >= 0 && device < kMaxDevices; }

  const uint64_t limit_;
  std::unique_ptr<Table> pointers_;
  std::unique_ptr<Table> handles_;
  std::unique_ptr<Table> arrays_;
  std::atomic<uint64_t> used_[kMaxDevices] = {};
  std::atomic<uint64_t> peak_[kMaxDevices] = {};
  std::atomic<uint64_t> refused_[kMaxDevices] = {};
  std::atomic<uint64_t> untracked_{0};
  std::atomic<int> device_count_{0};
};

}  // namespace iashim

#endif  // IASHIM_MEMORY_LEDGER_H_
