// What every allocation hook does around the real call: reserve the bytes
// against the device's quota, call, and record the allocation under the key it
// produced so that its free gives exactly those bytes back. Shared by the
// memory, array and graph-memory hooks (hooks_memory.cc, hooks_array.cc,
// hooks_graph_memory.cc).
#ifndef IASHIM_ALLOCATION_PATH_H_
#define IASHIM_ALLOCATION_PATH_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "libiashim/src/cuda_api.h"
#include "libiashim/src/memory_ledger.h"
#include "libiashim/src/runtime.h"

namespace iashim {

// The device of the calling thread's current context, or -1.
int CurrentDevice();

// The number of the calling thread's current context (context_slots.h), or
// MemoryLedger::kNoContext.
uint8_t CurrentContextSlot();

// One warning per refusal, at most one a second (the rest are counted).
void LogRefusal(const char* call, int device, uint64_t bytes, const MemoryLedger& ledger);

// Reserves `bytes` on `device`, runs `allocate(&key)`, and records the
// allocation under `key` on success (gives the reservation back on failure).
// Over quota it returns CUDA_ERROR_OUT_OF_MEMORY without calling `allocate`.
// Without a runtime, or for an unknown device (-1), it only calls.
template <typename AllocateFn>
CUresult Allocate(const char* call, MemoryLedger::Kind kind, int device, uint64_t bytes,
                  AllocateFn&& allocate) {
  Runtime* rt = ActiveRuntime();
  if (rt == nullptr || device < 0) {
    uint64_t key;
    return allocate(&key);
  }
  MemoryLedger& ledger = rt->memory();
  if (!ledger.Reserve(device, bytes)) {
    g_counters.mem_refused.fetch_add(1, std::memory_order_relaxed);
    LogRefusal(call, device, bytes, ledger);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  uint64_t key = 0;
  const CUresult rc = allocate(&key);
  if (rc == CUDA_SUCCESS) {
    // Memory goes with the context it was allocated in, except VMM handles,
    // which only cuMemRelease frees.
    ledger.Record(kind, key, device, bytes,
                  kind == MemoryLedger::Kind::kVmmHandle ? MemoryLedger::kNoContext
                                                         : CurrentContextSlot());
  } else {
    ledger.Unreserve(device, bytes);
  }
  return rc;
}

// A free `release()` of what was recorded under `key`. The record comes out
// of the ledger before the real call (MemoryLedger::Detach): once the driver
// has freed an address it may hand it to another thread's allocation at
// once, and a record taken out only after the free could be that one (its
// bytes then given back on the wrong device, ours never). Its bytes come
// back if the free succeeded; a failed free puts the record back.
template <typename ReleaseFn>
CUresult Deallocate(MemoryLedger::Kind kind, uint64_t key, ReleaseFn&& release) {
  Runtime* rt = ActiveRuntime();
  const std::optional<MemoryLedger::Allocation> taken =
      rt != nullptr ? rt->memory().Detach(kind, key) : std::nullopt;
  const CUresult rc = release();
  if (taken) rt->memory().Settle(*taken, rc == CUDA_SUCCESS);
  return rc;
}

// The same for a call that frees several recorded allocations at once
// (cuGraphDestroy and what the graph's free nodes released). Not on a hot
// path, so it may keep the records in a vector.
template <typename ReleaseFn>
CUresult DeallocateAll(MemoryLedger::Kind kind, std::span<const uint64_t> keys,
                       ReleaseFn&& release) {
  Runtime* rt = ActiveRuntime();
  std::vector<MemoryLedger::Allocation> taken;
  if (rt != nullptr) {
    for (uint64_t key : keys) {
      if (auto a = rt->memory().Detach(kind, key)) {
        try {
          taken.push_back(*a);
        } catch (...) {
          rt->memory().Return(*a);  // out of memory: given back early, never lost
        }
      }
    }
  }
  const CUresult rc = release();
  for (const MemoryLedger::Allocation& a : taken) rt->memory().Settle(a, rc == CUDA_SUCCESS);
  return rc;
}

}  // namespace iashim

#endif  // IASHIM_ALLOCATION_PATH_H_
