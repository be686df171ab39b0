// Hooks: CUDA arrays (textures and surfaces). An array is device memory like any
// other, so it is charged against the quota on the current device before the
// real call, by the size its descriptor gives (array_bytes.h), and given back
// when it is destroyed. Both the 64-bit (_v2) descriptors and the legacy
// 32-bit ones of the unversioned names are hooked.
#include "libiashim/src/allocation_path.h"
#include "libiashim/src/array_bytes.h"
#include "libiashim/src/cuda_api.h"
#include "libiashim/src/real_driver.h"

using iashim::ArrayShape;
using iashim::MemoryLedger;

namespace {

template <typename Handle, typename Fn, typename... Args>
CUresult CreateArray(const char* call, Fn real, uint64_t bytes, Handle* handle, Args... args) {
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  return iashim::Allocate(call, MemoryLedger::Kind::kArray, iashim::CurrentDevice(), bytes,
                          [&](uint64_t* key) {
                            const CUresult rc = real(handle, args...);
                            if (rc == CUDA_SUCCESS) *key = reinterpret_cast<uint64_t>(*handle);
                            return rc;
                          });
}

template <typename Handle, typename Fn>
CUresult DestroyArray(Fn real, Handle handle) {
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  return iashim::Deallocate(MemoryLedger::Kind::kArray, reinterpret_cast<uint64_t>(handle),
                            [&] { return real(handle); });
}

// A null descriptor is the driver's to refuse; nothing is charged for it.
template <typename Descriptor>
uint64_t Bytes2D(const Descriptor* d) {
  return d != nullptr ? iashim::ArrayBytes(iashim::ShapeOf2D(*d)) : 0;
}
template <typename Descriptor>
uint64_t Bytes3D(const Descriptor* d) {
  return d != nullptr ? iashim::ArrayBytes(iashim::ShapeOf3D(*d)) : 0;
}

}  // namespace

IASHIM_EXPORT CUresult cuArrayCreate_v2(CUarray* handle, const CUDA_ARRAY_DESCRIPTOR* desc) {
  return CreateArray("cuArrayCreate", IASHIM_REAL(cuArrayCreate_v2), Bytes2D(desc), handle, desc);
}

IASHIM_EXPORT CUresult cuArrayCreate(CUarray* handle, const CUDA_ARRAY_DESCRIPTOR_v1* desc) {
  return CreateArray("cuArrayCreate", IASHIM_REAL(cuArrayCreate), Bytes2D(desc), handle, desc);
}

IASHIM_EXPORT CUresult cuArray3DCreate_v2(CUarray* handle, const CUDA_ARRAY3D_DESCRIPTOR* desc) {
  return CreateArray("cuArray3DCreate", IASHIM_REAL(cuArray3DCreate_v2), Bytes3D(desc), handle,
                     desc);
}

IASHIM_EXPORT CUresult cuArray3DCreate(CUarray* handle, const CUDA_ARRAY3D_DESCRIPTOR_v1* desc) {
  return CreateArray("cuArray3DCreate", IASHIM_REAL(cuArray3DCreate), Bytes3D(desc), handle,
                     desc);
}

IASHIM_EXPORT CUresult cuArrayDestroy(CUarray handle) {
  return DestroyArray(IASHIM_REAL(cuArrayDestroy), handle);
}

IASHIM_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray* handle,
                                              const CUDA_ARRAY3D_DESCRIPTOR* desc,
                                              unsigned int levels) {
  const uint64_t bytes =
      desc != nullptr ? iashim::MipmappedArrayBytes(iashim::ShapeOf3D(*desc), levels) : 0;
  return CreateArray("cuMipmappedArrayCreate", IASHIM_REAL(cuMipmappedArrayCreate), bytes, handle,
                     desc, levels);
}

IASHIM_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray handle) {
  return DestroyArray(IASHIM_REAL(cuMipmappedArrayDestroy), handle);
}
