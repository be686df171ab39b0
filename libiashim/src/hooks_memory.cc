// Hooks: device memory. Every allocation family reserves its bytes against the
// per-device quota before the real call and is recorded so that its free gives
// them back; cuMemGetInfo and cuDeviceTotalMem report the quota as the device
// size. Over quota, the call returns CUDA_ERROR_OUT_OF_MEMORY without reaching
// the driver: the one place the shim says no.
#include <algorithm>
#include <atomic>
#include <string>

#include "common/text/text.h"
#include "libiashim/src/cuda_api.h"
#include "libiashim/src/cycle_clock.h"
#include "libiashim/src/forward.h"
#include "libiashim/src/log.h"
#include "libiashim/src/real_driver.h"
#include "libiashim/src/runtime.h"

using iashim::ActiveRuntime;
using iashim::Forward;
using iashim::MemoryLedger;

namespace {

constexpr size_t kPitchAlignment = 512;

// The device of the calling thread's current context, or -1.
int CurrentDevice() {
  auto get = IASHIM_REAL(cuCtxGetDevice);
  CUdevice dev = -1;
  if (get == nullptr || get(&dev) != CUDA_SUCCESS) return -1;
  return dev;
}

// One line per refusal, at most one a second (the rest are counted).
void LogRefusal(const char* call, int device, uint64_t bytes, const MemoryLedger& ledger) {
  static std::atomic<uint64_t> last_ns{0};
  static std::atomic<uint64_t> suppressed{0};
  const uint64_t now = iashim::MonotonicNs();
  uint64_t last = last_ns.load(std::memory_order_relaxed);
  if (last != 0 && now - last < 1'000'000'000ULL) {
    suppressed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (!last_ns.compare_exchange_strong(last, now, std::memory_order_relaxed)) {
    suppressed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const uint64_t quiet = suppressed.exchange(0, std::memory_order_relaxed);
  try {  // formatting allocates; nothing may escape into the driver API
    IASHIM_WARN("%s of %s on device %d refused: %s of the %s IASHIM_MEM_LIMIT in use%s", call,
                iashim::FormatBytes(bytes).c_str(), device,
                iashim::FormatBytes(ledger.used(device)).c_str(),
                iashim::FormatBytes(ledger.limit()).c_str(),
                quiet ? (" (" + std::to_string(quiet) + " more refusals not shown)").c_str() : "");
  } catch (...) {
  }
}

// Reserve on `device`, run `allocate`, record under the key it produced.
template <typename AllocateFn>
CUresult Allocate(const char* call, MemoryLedger::Kind kind, int device, uint64_t bytes,
                  AllocateFn&& allocate) {
  iashim::Runtime* rt = ActiveRuntime();
  if (rt == nullptr || device < 0) {
    uint64_t key;
    return allocate(&key);
  }
  MemoryLedger& ledger = rt->memory();
  if (!ledger.Reserve(device, bytes)) {
    iashim::g_counters.mem_refused.fetch_add(1, std::memory_order_relaxed);
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

void ForgetPointer(CUdeviceptr p) {
  if (iashim::Runtime* rt = ActiveRuntime()) rt->memory().Forget(MemoryLedger::Kind::kPointer, p);
}

// A device-pointer allocation `real(dptr, args...)`, charged `bytes` on the
// calling thread's current device.
template <typename Fn, typename... Args>
CUresult AllocatePointer(const char* call, Fn real, uint64_t bytes, CUdeviceptr* dptr,
                         Args... args) {
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  return Allocate(call, MemoryLedger::Kind::kPointer, CurrentDevice(), bytes, [&](uint64_t* key) {
    const CUresult rc = real(dptr, args...);
    if (rc == CUDA_SUCCESS) *key = *dptr;
    return rc;
  });
}

// A free `real(dptr, args...)`; on success the pointer's bytes come back.
template <typename Fn, typename... Args>
CUresult FreePointer(Fn real, CUdeviceptr dptr, Args... args) {
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  const CUresult rc = real(dptr, args...);
  if (rc == CUDA_SUCCESS) ForgetPointer(dptr);
  return rc;
}

}  // namespace

IASHIM_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytes) {
  return AllocatePointer("cuMemAlloc", IASHIM_REAL(cuMemAlloc_v2), bytes, dptr, bytes);
}

IASHIM_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pitch, size_t width,
                                          size_t height, unsigned element_size) {
  // The pitch is only known afterwards; reserve the most it can be.
  const uint64_t padded = (uint64_t(width) + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  return AllocatePointer("cuMemAllocPitch", IASHIM_REAL(cuMemAllocPitch_v2), padded * height, dptr,
                         pitch, width, height, element_size);
}

IASHIM_EXPORT CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytes, unsigned flags) {
  return AllocatePointer("cuMemAllocManaged", IASHIM_REAL(cuMemAllocManaged), bytes, dptr, bytes,
                         flags);
}

IASHIM_EXPORT CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytes, CUstream stream) {
  return AllocatePointer("cuMemAllocAsync", IASHIM_REAL(cuMemAllocAsync), bytes, dptr, bytes, stream);
}

IASHIM_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytes, CUstream stream) {
  return AllocatePointer("cuMemAllocAsync", IASHIM_REAL(cuMemAllocAsync_ptsz), bytes, dptr, bytes,
                         stream);
}

IASHIM_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytes, CUmemoryPool pool,
                                               CUstream stream) {
  return AllocatePointer("cuMemAllocFromPoolAsync", IASHIM_REAL(cuMemAllocFromPoolAsync), bytes, dptr,
                         bytes, pool, stream);
}

IASHIM_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dptr, size_t bytes,
                                                    CUmemoryPool pool, CUstream stream) {
  return AllocatePointer("cuMemAllocFromPoolAsync", IASHIM_REAL(cuMemAllocFromPoolAsync_ptsz),
                         bytes, dptr, bytes, pool, stream);
}

IASHIM_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr) {
  return FreePointer(IASHIM_REAL(cuMemFree_v2), dptr);
}

IASHIM_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream) {
  return FreePointer(IASHIM_REAL(cuMemFreeAsync), dptr, stream);
}

IASHIM_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream) {
  return FreePointer(IASHIM_REAL(cuMemFreeAsync_ptsz), dptr, stream);
}

IASHIM_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t bytes,
                                   const CUmemAllocationProp* prop, unsigned long long flags) {
  auto real = IASHIM_REAL(cuMemCreate);
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  // Only device-resident physical memory counts against the device's quota.
  const int device = prop != nullptr && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE
                         ? prop->location.id
                         : -1;
  return Allocate("cuMemCreate", MemoryLedger::Kind::kVmmHandle, device, bytes,
                  [&](uint64_t* key) {
                    const CUresult rc = real(handle, bytes, prop, flags);
                    if (rc == CUDA_SUCCESS) *key = *handle;
                    return rc;
                  });
}

IASHIM_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  auto real = IASHIM_REAL(cuMemRelease);
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  const CUresult rc = real(handle);
  if (rc == CUDA_SUCCESS) {
    if (iashim::Runtime* rt = ActiveRuntime()) rt->memory().Forget(MemoryLedger::Kind::kVmmHandle, handle);
  }
  return rc;
}

IASHIM_EXPORT CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total_bytes) {
  const CUresult rc = Forward(IASHIM_REAL(cuMemGetInfo_v2), free_bytes, total_bytes);
  iashim::Runtime* rt = ActiveRuntime();
  if (rc != CUDA_SUCCESS || rt == nullptr || rt->memory().limit() == 0) return rc;
  if (free_bytes == nullptr || total_bytes == nullptr) return rc;
  const uint64_t limit = rt->memory().limit();
  const uint64_t total = std::min<uint64_t>(*total_bytes, limit);
  const uint64_t used = std::min<uint64_t>(rt->memory().used(CurrentDevice()), total);
  *total_bytes = total;
  *free_bytes = std::min<uint64_t>(*free_bytes, total - used);
  return rc;
}

IASHIM_EXPORT CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  const CUresult rc = Forward(IASHIM_REAL(cuDeviceTotalMem_v2), bytes, dev);
  iashim::Runtime* rt = ActiveRuntime();
  if (rc == CUDA_SUCCESS && rt != nullptr && bytes != nullptr && rt->memory().limit() != 0) {
    *bytes = std::min<uint64_t>(*bytes, rt->memory().limit());
  }
  return rc;
}
