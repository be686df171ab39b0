// Hooks: device memory. Every allocation family reserves its bytes against the
// per-device quota before the real call and is recorded so that its free gives
// them back; cuMemGetInfo and cuDeviceTotalMem report the quota as the device
// size. Over quota, the call returns CUDA_ERROR_OUT_OF_MEMORY without reaching
// the driver: the one place the shim says no.
#include <algorithm>

#include "libiashim/src/allocation_path.h"
#include "libiashim/src/cuda_api.h"
#include "libiashim/src/forward.h"
#include "libiashim/src/real_driver.h"
#include "libiashim/src/runtime.h"

using iashim::ActiveRuntime;
using iashim::Allocate;
using iashim::CurrentDevice;
using iashim::Forward;
using iashim::MemoryLedger;

namespace {

constexpr size_t kPitchAlignment = 512;

// A device-pointer allocation `real(dptr, args...)`, charged `bytes` on the
// calling thread's current device. `Ptr` is CUdeviceptr, or the 32-bit
// CUdeviceptr_v1 of the legacy entry points.
template <typename Ptr, typename Fn, typename... Args>
CUresult AllocatePointer(const char* call, Fn real, uint64_t bytes, Ptr* dptr, Args... args) {
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  return Allocate(call, MemoryLedger::Kind::kPointer, CurrentDevice(), bytes, [&](uint64_t* key) {
    const CUresult rc = real(dptr, args...);
    if (rc == CUDA_SUCCESS) *key = *dptr;
    return rc;
  });
}

// A free `real(dptr, args...)`; on success the pointer's bytes come back.
template <typename Ptr, typename Fn, typename... Args>
CUresult FreePointer(Fn real, Ptr dptr, Args... args) {
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  return iashim::Deallocate(MemoryLedger::Kind::kPointer, uint64_t(dptr),
                            [&] { return real(dptr, args...); });
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

// The CUDA 3.1 ABI, 32-bit pointers and sizes, which the driver still exports:
// a program built against it must not escape the quota either.
IASHIM_EXPORT CUresult cuMemAlloc(CUdeviceptr_v1* dptr, unsigned int bytes) {
  return AllocatePointer("cuMemAlloc", IASHIM_REAL(cuMemAlloc), bytes, dptr, bytes);
}

IASHIM_EXPORT CUresult cuMemAllocPitch(CUdeviceptr_v1* dptr, unsigned int* pitch,
                                       unsigned int width, unsigned int height,
                                       unsigned int element_size) {
  const uint64_t padded = (uint64_t(width) + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  return AllocatePointer("cuMemAllocPitch", IASHIM_REAL(cuMemAllocPitch), padded * height, dptr,
                         pitch, width, height, element_size);
}

IASHIM_EXPORT CUresult cuMemFree(CUdeviceptr_v1 dptr) {
  return FreePointer(IASHIM_REAL(cuMemFree), dptr);
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
  return iashim::Deallocate(MemoryLedger::Kind::kVmmHandle, handle, [&] { return real(handle); });
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
