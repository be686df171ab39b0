// Entry points: device memory and copies. Memory is accounted on the shared
// device across every process using it; an allocation past capacity fails with
// CUDA_ERROR_OUT_OF_MEMORY. Copies move real bytes and take simulated PCIe time.
// (Stream-ordered allocation: entry_mempool.cc; virtual memory: entry_vmm.cc.)
#include <cstdint>
#include <cstring>

#include "simgpu/src/driver.h"

using simgpu::Context;
using simgpu::Driver;
using simgpu::SharedDevice;
using simgpu::Stream;

namespace {

// PCIe 3.0 x16 as a V100 sees it: ~12 GB/s, ~5 us per transfer.
constexpr double kCopyBytesPerNs = 12.0;
constexpr double kCopyLatencyNs = 5000.0;

// cuMemAllocPitch rounds rows up to 512 bytes, the pitch real GPUs since Kepler
// return (a multiple of every texture pitch alignment).
constexpr size_t kPitchAlignment = 512;

CUresult Alloc(CUdeviceptr* dptr, size_t bytes) {
  if (dptr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Context* ctx = simgpu::CurrentContext();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  return Driver::Get().Allocate(ctx->ordinal, bytes, dptr);
}

CUresult Copy(void* dst, const void* src, size_t bytes, CUdeviceptr device_side, CUstream h,
              bool per_thread, bool wait) {
  if (bytes == 0) return CUDA_SUCCESS;
  if (dst == nullptr || src == nullptr) return CUDA_ERROR_INVALID_VALUE;
  // A copy to the device needs write access to it (virtual memory can be read-only).
  const bool to_device = dst == reinterpret_cast<void*>(device_side);
  if (!Driver::Get().Contains(device_side, bytes, to_device)) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc;
  Stream* s = simgpu::ResolveStream(h, per_thread, &rc);
  if (s == nullptr) return rc;
  // simgpu does not capture copies: one into a capturing stream breaks the capture.
  if (rc = simgpu::RejectIfCapturing(s); rc != CUDA_SUCCESS) return rc;
  std::memcpy(dst, src, bytes);
  simgpu::Op op{};
  op.kind = simgpu::OpKind::kCopy;
  op.remaining_ns = kCopyLatencyNs + double(bytes) / kCopyBytesPerNs;
  op.event_slot = -1;
  const uint64_t seq = simgpu::EnqueueBlocking(s, op);
  if (wait) s->ctx->dev->WaitForCompletion(s->slot, s->generation, seq);
  return CUDA_SUCCESS;
}

void* Ptr(CUdeviceptr p) { return reinterpret_cast<void*>(p); }

}  // namespace

SIMGPU_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytes) { return Alloc(dptr, bytes); }

SIMGPU_EXPORT CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytes, unsigned int flags) {
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) return CUDA_ERROR_INVALID_VALUE;
  return Alloc(dptr, bytes);
}

SIMGPU_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pitch, size_t width,
                                          size_t height, unsigned int element_size) {
  if (dptr == nullptr || pitch == nullptr) return CUDA_ERROR_INVALID_VALUE;
  // Coalesced accesses exist only for these sizes, so the driver accepts only them.
  if (element_size != 4 && element_size != 8 && element_size != 16) return CUDA_ERROR_INVALID_VALUE;
  if (width == 0 || height == 0) return CUDA_ERROR_INVALID_VALUE;
  if (width > SIZE_MAX - kPitchAlignment) return CUDA_ERROR_INVALID_VALUE;
  const size_t row = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  if (height > SIZE_MAX / row) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = Alloc(dptr, row * height); rc != CUDA_SUCCESS) return rc;
  *pitch = row;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr) {
  if (dptr == 0) return CUDA_SUCCESS;
  return Driver::Get().Free(dptr);
}

SIMGPU_EXPORT CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
  if (free_bytes == nullptr || total == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Context* ctx = simgpu::CurrentContext();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  SharedDevice::Lock lock(*ctx->dev);
  lock.AdvanceToNow();
  const simgpu::DeviceState& s = lock.state();
  *total = s.spec.memory_bytes;
  *free_bytes = s.spec.memory_bytes - std::min(s.mem_used, s.spec.memory_bytes);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) {
  return Copy(Ptr(dst), src, n, dst, nullptr, false, true);
}
SIMGPU_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void* src, size_t n) {
  return Copy(Ptr(dst), src, n, dst, nullptr, true, true);
}
SIMGPU_EXPORT CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) {
  return Copy(dst, Ptr(src), n, src, nullptr, false, true);
}
SIMGPU_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void* dst, CUdeviceptr src, size_t n) {
  return Copy(dst, Ptr(src), n, src, nullptr, true, true);
}
SIMGPU_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, CUstream h) {
  return Copy(Ptr(dst), src, n, dst, h, false, false);
}
SIMGPU_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void* src, size_t n,
                                                 CUstream h) {
  return Copy(Ptr(dst), src, n, dst, h, true, false);
}
SIMGPU_EXPORT CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, CUstream h) {
  return Copy(dst, Ptr(src), n, src, h, false, false);
}
SIMGPU_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void* dst, CUdeviceptr src, size_t n, CUstream h) {
  return Copy(dst, Ptr(src), n, src, h, true, false);
}
