// What every allocation hook does around the real call: reserve the bytes
// against the device's quota, call, and record the allocation under the key it
// produced so that its free gives exactly those bytes back. Shared by the
// memory, array and graph-memory hooks (hooks_memory.cc, hooks_array.cc,
// hooks_graph_memory.cc).
#ifndef IASHIM_ALLOCATION_PATH_H_
#define IASHIM_ALLOCATION_PATH_H_

#include <cstdint>

#include "libiashim/src/cuda_api.h"
#include "libiashim/src/memory_ledger.h"
#include "libiashim/src/runtime.h"

namespace iashim {

// The device of the calling thread's current context, or -1.
int CurrentDevice();

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
    ledger.Record(kind, key, device, bytes);
  } else {
    ledger.Unreserve(device, bytes);
  }
  return rc;
}

// Gives back what was recorded under `key`, if anything.
inline void Forget(MemoryLedger::Kind kind, uint64_t key) {
  if (Runtime* rt = ActiveRuntime()) rt->memory().Forget(kind, key);
}

}  // namespace iashim

#endif  // IASHIM_ALLOCATION_PATH_H_
