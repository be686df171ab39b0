// Entry points: stream-ordered allocation (cuMemAllocAsync, memory pools).
//
// simgpu allocates and frees at the call rather than when the stream reaches
// it, and a pool keeps no freed memory cached (a release threshold of 0): the
// device's accounting moves at once, as cuMemAlloc's does. A pool's maxSize
// bounds what it may hold; past it an allocation fails with
// CUDA_ERROR_OUT_OF_MEMORY, as does one past the device's capacity.
#include "simgpu/src/driver.h"

using simgpu::Driver;
using simgpu::MemPool;
using simgpu::Stream;

namespace {

// Allocates from `pool`, or from the default pool of the stream's device.
CUresult AllocAsync(CUdeviceptr* dptr, size_t bytes, MemPool* pool, CUstream h, bool per_thread) {
  if (dptr == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc;
  Stream* s = simgpu::ResolveStream(h, per_thread, &rc);
  if (s == nullptr) return rc;
  // Captured, this would be a memory-allocation node, which simgpu does not model.
  if (rc = simgpu::RejectIfCapturing(s); rc != CUDA_SUCCESS) return rc;
  if (pool == nullptr) pool = Driver::Get().DefaultPool(s->ctx->ordinal);
  return Driver::Get().Allocate(pool->ordinal, bytes, dptr, pool);
}

CUresult FreeAsync(CUdeviceptr dptr, CUstream h, bool per_thread) {
  CUresult rc;
  Stream* s = simgpu::ResolveStream(h, per_thread, &rc);
  if (s == nullptr) return rc;
  if (rc = simgpu::RejectIfCapturing(s); rc != CUDA_SUCCESS) return rc;
  if (dptr == 0) return CUDA_SUCCESS;
  return Driver::Get().Free(dptr);
}

CUresult AllocFromPool(CUdeviceptr* dptr, size_t bytes, CUmemoryPool hpool, CUstream h,
                       bool per_thread) {
  MemPool* pool = simgpu::AsMemPool(hpool);
  if (pool == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return AllocAsync(dptr, bytes, pool, h, per_thread);
}

// Only pinned device memory is modelled: host and NUMA pools are not.
CUresult CheckLocation(const CUmemLocation& location) {
  if (location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = simgpu::CheckDevice(location.id); rc != CUDA_SUCCESS)
    return rc == CUDA_ERROR_INVALID_DEVICE ? CUDA_ERROR_INVALID_VALUE : rc;
  return CUDA_SUCCESS;
}

}  // namespace

SIMGPU_EXPORT CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytes, CUstream h) {
  return AllocAsync(dptr, bytes, nullptr, h, false);
}

SIMGPU_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytes, CUstream h) {
  return AllocAsync(dptr, bytes, nullptr, h, true);
}

SIMGPU_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream h) {
  return FreeAsync(dptr, h, false);
}

SIMGPU_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream h) {
  return FreeAsync(dptr, h, true);
}

SIMGPU_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytes, CUmemoryPool pool,
                                               CUstream h) {
  return AllocFromPool(dptr, bytes, pool, h, false);
}

SIMGPU_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dptr, size_t bytes,
                                                    CUmemoryPool pool, CUstream h) {
  return AllocFromPool(dptr, bytes, pool, h, true);
}

SIMGPU_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice dev) {
  if (pool == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = simgpu::CheckDevice(dev); rc != CUDA_SUCCESS) return rc;
  *pool = reinterpret_cast<CUmemoryPool>(Driver::Get().DefaultPool(dev));
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* props) {
  if (pool == nullptr || props == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckLocation(props->location); rc != CUDA_SUCCESS) return rc;
  if (props->win32SecurityAttributes != nullptr) return CUDA_ERROR_INVALID_VALUE;
  auto* p = new MemPool();
  p->ordinal = props->location.id;
  p->max_size = props->maxSize;
  *pool = reinterpret_cast<CUmemoryPool>(p);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool hpool) {
  MemPool* pool = simgpu::AsMemPool(hpool);
  // A device's default pool cannot be destroyed.
  if (pool == nullptr || pool->is_default) return CUDA_ERROR_INVALID_VALUE;
  Driver::Get().DestroyPool(pool);
  return CUDA_SUCCESS;
}
