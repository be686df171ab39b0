#include "libiashim/src/array_bytes.h"

#include <algorithm>

namespace iashim {
namespace {

constexpr uint64_t kWidestElementBits = 4 * 32;

// Bits of one element: for the plain formats one channel (times the
// descriptor's channels), for the packed, block-compressed and YUV formats the
// whole pixel (their channel count is part of the format).
uint64_t ElementBits(CUarray_format format, unsigned channels) {
  const uint64_t n = std::max(1u, channels);
  switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
      return 8 * n;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
      return 16 * n;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT:
      return 32 * n;
    case CU_AD_FORMAT_UNORM_INT8X1:
    case CU_AD_FORMAT_SNORM_INT8X1:
      return 8;
    case CU_AD_FORMAT_UNORM_INT8X2:
    case CU_AD_FORMAT_SNORM_INT8X2:
    case CU_AD_FORMAT_UNORM_INT16X1:
    case CU_AD_FORMAT_SNORM_INT16X1:
    case CU_AD_FORMAT_YUY2:
    case CU_AD_FORMAT_NV16:
      return 16;
    case CU_AD_FORMAT_UNORM_INT8X4:
    case CU_AD_FORMAT_SNORM_INT8X4:
    case CU_AD_FORMAT_UNORM_INT16X2:
    case CU_AD_FORMAT_SNORM_INT16X2:
    case CU_AD_FORMAT_UNORM_INT_101010_2:
    case CU_AD_FORMAT_Y210:
    case CU_AD_FORMAT_Y216:
    case CU_AD_FORMAT_AYUV:
    case CU_AD_FORMAT_Y410:
    case CU_AD_FORMAT_P210:
    case CU_AD_FORMAT_P216:
      return 32;
    case CU_AD_FORMAT_UNORM_INT16X4:
    case CU_AD_FORMAT_SNORM_INT16X4:
    case CU_AD_FORMAT_Y416:
      return 64;
    case CU_AD_FORMAT_NV12:
      return 12;
    case CU_AD_FORMAT_P010:
    case CU_AD_FORMAT_P016:
    case CU_AD_FORMAT_Y444_PLANAR8:
    case CU_AD_FORMAT_YUV444_8bit_SemiPlanar:
      return 24;
    case CU_AD_FORMAT_Y444_PLANAR10:
    case CU_AD_FORMAT_YUV444_16bit_SemiPlanar:
      return 48;
    case CU_AD_FORMAT_BC1_UNORM:
    case CU_AD_FORMAT_BC1_UNORM_SRGB:
    case CU_AD_FORMAT_BC4_UNORM:
    case CU_AD_FORMAT_BC4_SNORM:
      return 4;
    case CU_AD_FORMAT_BC2_UNORM:
    case CU_AD_FORMAT_BC2_UNORM_SRGB:
    case CU_AD_FORMAT_BC3_UNORM:
    case CU_AD_FORMAT_BC3_UNORM_SRGB:
    case CU_AD_FORMAT_BC5_UNORM:
    case CU_AD_FORMAT_BC5_SNORM:
    case CU_AD_FORMAT_BC6H_UF16:
    case CU_AD_FORMAT_BC6H_SF16:
    case CU_AD_FORMAT_BC7_UNORM:
    case CU_AD_FORMAT_BC7_UNORM_SRGB:
      return 8;
    default:
      return kWidestElementBits;
  }
}

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  uint64_t out;
  return __builtin_mul_overflow(a, b, &out) ? UINT64_MAX : out;
}

}  // namespace

uint64_t ArrayBytes(const ArrayShape& shape) {
  uint64_t elements = SaturatingMul(shape.width, std::max<uint64_t>(1, shape.height));
  elements = SaturatingMul(elements, std::max<uint64_t>(1, shape.depth));
  const uint64_t bits = SaturatingMul(elements, ElementBits(shape.format, shape.channels));
  return bits == UINT64_MAX ? UINT64_MAX : (bits + 7) / 8;
}

uint64_t MipmappedArrayBytes(const ArrayShape& shape, unsigned levels) {
  const bool keep_depth = (shape.flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
  ArrayShape level = shape;
  uint64_t total = 0;
  // No dimension has more than 64 halvings; the driver refuses more levels.
  for (unsigned i = 0; i < std::clamp(levels, 1u, 65u); ++i) {
    const uint64_t bytes = ArrayBytes(level);
    total = total > UINT64_MAX - bytes ? UINT64_MAX : total + bytes;
    level.width = std::max<uint64_t>(1, level.width / 2);
    if (level.height != 0) level.height = std::max<uint64_t>(1, level.height / 2);
    if (level.depth != 0 && !keep_depth) level.depth = std::max<uint64_t>(1, level.depth / 2);
  }
  return total;
}

}  // namespace iashim
