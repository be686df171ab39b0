#include "libiashim/src/kernel_registry.h"

#include "common/wire/collective_kernel.h"
#include "common/wire/kernel_id.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "common/text/text.h"

namespace iashim {

KernelRegistry::KernelRegistry()
    // Zeroed pages from calloc: the 1 MiB slot table costs memory only where used.
    : slots_(static_cast<std::atomic<uint64_t>*>(std::calloc(kSlots, sizeof(uint64_t)))),
      infos_(new KernelInfo[kMaxKernels + 1]) {
  if (slots_ == nullptr) throw std::bad_alloc();
}

uint32_t KernelRegistry::IdOfSlow(uintptr_t h) {
  // A handle must leave kIdBits free at the top (user-space pointers do).
  if (h == 0 || (uint64_t(h) >> (64 - kIdBits)) != 0) return kOtherKernel;
  size_t i = Index(h);
  for (int probe = 0; probe < kMaxProbes; ++probe, i = (i + 1) & (kSlots - 1)) {
    uint64_t slot = slots_[i].load(std::memory_order_acquire);
    if (slot != 0) {
      if ((slot >> kIdBits) == h) return uint32_t(slot & kMaxKernels);
      continue;
    }
    // Empty: claim an id, then the slot. Losing the race for the slot to the
    // same handle wastes one id; to another handle, keep probing.
    const uint32_t id = next_id_.fetch_add(1, std::memory_order_acq_rel);
    if (id > kMaxKernels) {
      next_id_.store(kMaxKernels + 1, std::memory_order_relaxed);
      return kOtherKernel;
    }
    infos_[id].handle.store(h, std::memory_order_relaxed);
    const uint64_t packed = (uint64_t(h) << kIdBits) | id;
    if (slots_[i].compare_exchange_strong(slot, packed, std::memory_order_acq_rel)) return id;
    if ((slot >> kIdBits) == h) return uint32_t(slot & kMaxKernels);
  }
  return kOtherKernel;
}

void KernelRegistry::SetName(const void* handle, std::string_view name) {
  const uint32_t id = IdOf(handle);
  if (id == kOtherKernel) return;
  KernelInfo& k = infos_[id];
  const uint64_t hash = KernelId(name);
  if (k.hash.load(std::memory_order_acquire) == hash) return;
  char* copy = static_cast<char*>(std::malloc(name.size() + 1));
  if (copy == nullptr) return;
  std::memcpy(copy, name.data(), name.size());
  copy[name.size()] = '\0';
  // A renamed handle (module unloaded, address reused) keeps the old string
  // alive: the background thread may be reading it. Renames are rare.
  k.name.store(copy, std::memory_order_release);
  k.hash.store(hash, std::memory_order_release);
  const bool collective = IsCollectiveKernel(name);
  k.collective.store(collective, std::memory_order_relaxed);
  if (collective) any_collective_.store(true, std::memory_order_relaxed);
}

}  // namespace iashim
