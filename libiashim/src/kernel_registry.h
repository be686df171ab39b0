// Which kernel a CUfunction (or CUkernel) handle is, found on every launch
// without a lock: a fixed open-addressing table whose slots each hold the
// handle and a dense kernel id packed into one 64-bit word, so a look-up is one
// multiply and (almost always) one load.
//
// Ids index a fixed array of KernelInfo holding the name and its hash. Names
// arrive from the naming hooks (cuModuleGetFunction, cuLibraryGetKernel,
// cuFuncGetName); a handle first seen at launch gets an id at once and its
// name later, from the background thread.
#ifndef IASHIM_KERNEL_REGISTRY_H_
#define IASHIM_KERNEL_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <string_view>

namespace iashim {

struct KernelInfo {
  std::atomic<const char*> name{nullptr};  // owned; never freed (see SetName)
  std::atomic<uint64_t> hash{0};           // KernelId(name); 0 until named
  std::atomic<uintptr_t> handle{0};        // the CUfunction/CUkernel it was seen as
  std::atomic<bool> collective{false};     // NCCL's (IsCollectiveKernel): timed on every launch
};

class KernelRegistry {
 public:
  static constexpr int kIdBits = 16;
  static constexpr uint32_t kMaxKernels = (1u << kIdBits) - 1;  // id 0 = "other"
  static constexpr uint32_t kOtherKernel = 0;  // table full or handle unpackable

  KernelRegistry();
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  // The id of `handle`, registering it if new. Lock-free, allocation-free.
  uint32_t IdOf(const void* handle) {
    const uintptr_t h = reinterpret_cast<uintptr_t>(handle);
    const uint64_t slot = slots_[Index(h)].load(std::memory_order_acquire);
    if ((slot >> kIdBits) == h && h != 0) return uint32_t(slot & kMaxKernels);
    return IdOfSlow(h);
  }

  // Records `name` for `handle` (copied). Not for the launch path: allocates.
  void SetName(const void* handle, std::string_view name);

  // Whether kernel `id` is a collective (NCCL's), to be timed on every launch.
  // For the launch path: a process that never named a collective (most) only
  // reads a flag beside the table pointers, not the kernel's entry.
  bool IsCollective(uint32_t id) const {
    return any_collective_.load(std::memory_order_relaxed) &&
           infos_[id].collective.load(std::memory_order_relaxed);
  }

  // Count of ids handed out (ids are 1..count()).
  uint32_t count() const { return next_id_.load(std::memory_order_acquire) - 1; }
  const KernelInfo& info(uint32_t id) const { return infos_[id]; }
  KernelInfo& info(uint32_t id) { return infos_[id]; }

 private:
  static constexpr int kSlotBits = 17;
  static constexpr size_t kSlots = size_t(1) << kSlotBits;
  static constexpr int kMaxProbes = 64;

  static size_t Index(uintptr_t h) {
    return size_t((uint64_t(h) * 0x9E3779B97F4A7C15ULL) >> (64 - kSlotBits));
  }
  uint32_t IdOfSlow(uintptr_t h);

  std::atomic<uint64_t>* slots_;
  KernelInfo* infos_;
  std::atomic<bool> any_collective_{false};  // some kernel was named as a collective
  std::atomic<uint32_t> next_id_{1};
};

}  // namespace iashim

#endif  // IASHIM_KERNEL_REGISTRY_H_
