// Entry points: CUDA arrays and mipmapped arrays (the memory behind textures
// and surfaces).
//
// An array takes device memory on the current context's device, accounted as
// cuMemAlloc's is (across processes, OOM past capacity), given back at destroy,
// when its context is destroyed or reset (as a driver frees a context's
// memory), or when the process exits. Its size is the packed size of its elements:
//
//   Width * max(1, Height) * max(1, Depth) * NumChannels * bytes per channel
//
// (1 for the 8-bit formats, 2 for the 16-bit ones and HALF, 4 for the 32-bit
// ones and FLOAT). A real driver pads rows and tiles for the texture hardware,
// so it takes somewhat more; simgpu does not model that. A mipmapped array takes
// the sum of its levels' sizes, each dimension halved per level (at least 1),
// except a layered or cubemap array's Depth, which counts layers or faces.
// simgpu keeps no texels: the arrays have no address, and copies to them are not
// modelled.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "simgpu/src/driver.h"

using simgpu::Array;
using simgpu::Driver;
using simgpu::MipmappedArray;

namespace {

constexpr unsigned kKnownFlags =
    CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP |
    CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_DEPTH_TEXTURE | CUDA_ARRAY3D_COLOR_ATTACHMENT |
    CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING | CUDA_ARRAY3D_VIDEO_ENCODE_DECODE;
// Sparse and deferred-mapping arrays take no memory until mapped: not modelled.
constexpr unsigned kUnmodelledFlags = CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING;

// Bytes per channel of the element formats simgpu models; 0 for any other
// (NV12, the normalized and block-compressed formats of CUDA 11.5 and later).
size_t ChannelBytes(CUarray_format format) {
  switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
      return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
      return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT:
      return 4;
    default:
      return 0;
  }
}

// Whether Depth counts layers or cube faces rather than a dimension.
bool DepthIsLayers(const CUDA_ARRAY3D_DESCRIPTOR& d) {
  return (d.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
}

CUresult CheckDescriptor(const CUDA_ARRAY3D_DESCRIPTOR& d) {
  if (d.Width == 0 || ChannelBytes(d.Format) == 0) return CUDA_ERROR_INVALID_VALUE;
  if (d.NumChannels != 1 && d.NumChannels != 2 && d.NumChannels != 4)
    return CUDA_ERROR_INVALID_VALUE;
  if ((d.Flags & ~kKnownFlags) != 0) return CUDA_ERROR_INVALID_VALUE;
  if ((d.Flags & kUnmodelledFlags) != 0) return CUDA_ERROR_NOT_SUPPORTED;
  const bool layered = (d.Flags & CUDA_ARRAY3D_LAYERED) != 0;
  // 1D is (W, 0, 0), 2D (W, H, 0), 3D (W, H, D); only layers may stand without a height.
  if (d.Height == 0 && d.Depth > 0 && !layered) return CUDA_ERROR_INVALID_VALUE;
  if (layered && d.Depth == 0) return CUDA_ERROR_INVALID_VALUE;
  if (d.Flags & CUDA_ARRAY3D_CUBEMAP) {
    // Six square faces, or six per layer.
    if (d.Width != d.Height) return CUDA_ERROR_INVALID_VALUE;
    if (layered ? d.Depth % 6 != 0 : d.Depth != 6) return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

// The size of mipmap level `level` of `d` (level 0: the array itself); false on overflow.
bool LevelBytes(const CUDA_ARRAY3D_DESCRIPTOR& d, unsigned level, size_t* bytes) {
  auto shrink = [level](size_t dim) { return std::max<size_t>(1, dim >> level); };
  const size_t depth = DepthIsLayers(d) ? std::max<size_t>(1, d.Depth) : shrink(d.Depth);
  size_t n = shrink(d.Width);
  return !__builtin_mul_overflow(n, shrink(d.Height), &n) &&
         !__builtin_mul_overflow(n, depth, &n) &&
         !__builtin_mul_overflow(n, size_t(d.NumChannels) * ChannelBytes(d.Format), bytes);
}

// floor(log2(largest dimension that shrinks)) + 1.
unsigned MaxLevels(const CUDA_ARRAY3D_DESCRIPTOR& d) {
  size_t largest = std::max(d.Width, d.Height);
  if (!DepthIsLayers(d)) largest = std::max(largest, d.Depth);
  return 64 - unsigned(__builtin_clzll(largest));
}

// Gives back an array's (or mipmapped array's) memory and frees it; null is a
// handle that was not one. An array whose context was destroyed or reset has
// lost its memory with it: its handle is no longer valid (freed all the same).
template <typename T>
CUresult Destroy(T* array) {
  if (array == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  const bool owned = Driver::Get().ForgetArray(&array->memory);
  array->magic = 0;
  delete array;
  return owned ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CreateArray(CUarray* out, const CUDA_ARRAY3D_DESCRIPTOR& desc) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckDescriptor(desc); rc != CUDA_SUCCESS) return rc;
  size_t bytes;
  if (!LevelBytes(desc, 0, &bytes)) return CUDA_ERROR_INVALID_VALUE;
  auto a = std::make_unique<Array>();
  if (CUresult rc = Driver::Get().AdoptArray(&a->memory, bytes); rc != CUDA_SUCCESS) return rc;
  a->desc = desc;
  *out = reinterpret_cast<CUarray>(a.release());
  return CUDA_SUCCESS;
}

// A 1D or 2D descriptor (any version) as a 3D one.
template <typename Descriptor>
CUDA_ARRAY3D_DESCRIPTOR From2D(const Descriptor& d) {
  CUDA_ARRAY3D_DESCRIPTOR desc{};
  desc.Width = d.Width;
  desc.Height = d.Height;
  desc.Format = d.Format;
  desc.NumChannels = d.NumChannels;
  return desc;
}

template <typename Descriptor>
CUDA_ARRAY3D_DESCRIPTOR From3D(const Descriptor& d) {
  CUDA_ARRAY3D_DESCRIPTOR desc = From2D(d);
  desc.Depth = d.Depth;
  desc.Flags = d.Flags;
  return desc;
}

// Writes `a`'s descriptor into a 2D or 3D descriptor of either version; a
// legacy (unsigned int) one cannot hold a dimension past 2^32 - 1.
template <typename Descriptor>
CUresult GetDescriptor(Descriptor* out, CUarray h) {
  const Array* a = simgpu::AsArray(h);
  if (a == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  using Dim = decltype(out->Width);
  const size_t largest = std::max({a->desc.Width, a->desc.Height, a->desc.Depth});
  if (largest > size_t(Dim(-1))) return CUDA_ERROR_INVALID_VALUE;
  out->Width = Dim(a->desc.Width);
  out->Height = Dim(a->desc.Height);
  out->Format = a->desc.Format;
  out->NumChannels = a->desc.NumChannels;
  if constexpr (requires { out->Depth; }) {
    out->Depth = Dim(a->desc.Depth);
    out->Flags = a->desc.Flags;
  }
  return CUDA_SUCCESS;
}

}  // namespace

SIMGPU_EXPORT CUresult cuArrayCreate_v2(CUarray* out, const CUDA_ARRAY_DESCRIPTOR* desc) {
  if (desc == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return CreateArray(out, From2D(*desc));
}

SIMGPU_EXPORT CUresult cuArray3DCreate_v2(CUarray* out, const CUDA_ARRAY3D_DESCRIPTOR* desc) {
  if (desc == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return CreateArray(out, *desc);
}

// The CUDA 2.x forms, with unsigned int dimensions.
SIMGPU_EXPORT CUresult cuArrayCreate(CUarray* out, const CUDA_ARRAY_DESCRIPTOR_v1* desc) {
  if (desc == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return CreateArray(out, From2D(*desc));
}

SIMGPU_EXPORT CUresult cuArray3DCreate(CUarray* out, const CUDA_ARRAY3D_DESCRIPTOR_v1* desc) {
  if (desc == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return CreateArray(out, From3D(*desc));
}

SIMGPU_EXPORT CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR* out, CUarray h) {
  return GetDescriptor(out, h);
}

SIMGPU_EXPORT CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR* out, CUarray h) {
  return GetDescriptor(out, h);
}

SIMGPU_EXPORT CUresult cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR_v1* out, CUarray h) {
  return GetDescriptor(out, h);
}

SIMGPU_EXPORT CUresult cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR_v1* out, CUarray h) {
  return GetDescriptor(out, h);
}

SIMGPU_EXPORT CUresult cuArrayDestroy(CUarray h) { return Destroy(simgpu::AsArray(h)); }

SIMGPU_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray* out,
                                              const CUDA_ARRAY3D_DESCRIPTOR* desc,
                                              unsigned int levels) {
  if (out == nullptr || desc == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckDescriptor(*desc); rc != CUDA_SUCCESS) return rc;
  if (levels == 0 || levels > MaxLevels(*desc)) return CUDA_ERROR_INVALID_VALUE;
  size_t bytes = 0;
  for (unsigned level = 0; level < levels; ++level) {
    size_t level_bytes;
    if (!LevelBytes(*desc, level, &level_bytes) ||
        __builtin_add_overflow(bytes, level_bytes, &bytes))
      return CUDA_ERROR_INVALID_VALUE;
  }
  auto m = std::make_unique<MipmappedArray>();
  if (CUresult rc = Driver::Get().AdoptArray(&m->memory, bytes); rc != CUDA_SUCCESS) return rc;
  m->desc = *desc;
  m->levels = levels;
  *out = reinterpret_cast<CUmipmappedArray>(m.release());
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray h) {
  return Destroy(simgpu::AsMipmappedArray(h));
}
