// The quota's size of a CUDA array: texels times element size, each mip level
// halved, layers kept, and no overflow or undercount for odd input.
#include "libiashim/src/array_bytes.h"

#include <gtest/gtest.h>

namespace iashim {
namespace {

ArrayShape Shape(uint64_t w, uint64_t h, uint64_t d, CUarray_format f, unsigned channels,
                 unsigned flags = 0) {
  return ArrayShape{w, h, d, f, channels, flags};
}

TEST(ArrayBytesTest, PlainFormatsAreTexelsTimesChannelBytes) {
  EXPECT_EQ(ArrayBytes(Shape(1024, 0, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1)), 1024u);
  EXPECT_EQ(ArrayBytes(Shape(1024, 1024, 0, CU_AD_FORMAT_FLOAT, 4)), 16u << 20);
  EXPECT_EQ(ArrayBytes(Shape(256, 256, 128, CU_AD_FORMAT_HALF, 2)), 32u << 20);
  EXPECT_EQ(ArrayBytes(Shape(10, 10, 10, CU_AD_FORMAT_SIGNED_INT32, 1)), 4000u);
}

TEST(ArrayBytesTest, PackedAndCompressedFormatsCarryTheirOwnChannels) {
  // The descriptor's channel count does not multiply a packed pixel again.
  EXPECT_EQ(ArrayBytes(Shape(100, 100, 0, CU_AD_FORMAT_UNORM_INT8X4, 4)), 40000u);
  EXPECT_EQ(ArrayBytes(Shape(100, 100, 0, CU_AD_FORMAT_UNORM_INT16X4, 4)), 80000u);
  // Block compression: BC1 is 4 bits a texel, BC7 8; NV12 12, rounded up to bytes.
  EXPECT_EQ(ArrayBytes(Shape(64, 64, 0, CU_AD_FORMAT_BC1_UNORM, 4)), 2048u);
  EXPECT_EQ(ArrayBytes(Shape(64, 64, 0, CU_AD_FORMAT_BC7_UNORM, 4)), 4096u);
  EXPECT_EQ(ArrayBytes(Shape(3, 1, 0, CU_AD_FORMAT_NV12, 1)), 5u);
}

TEST(ArrayBytesTest, AnUnknownFormatIsChargedAsTheWidestElement) {
  const auto unknown = static_cast<CUarray_format>(0x7e);
  EXPECT_EQ(ArrayBytes(Shape(10, 0, 0, unknown, 1)), 160u);
}

TEST(ArrayBytesTest, HugeShapesSaturateInsteadOfWrapping) {
  EXPECT_EQ(ArrayBytes(Shape(uint64_t(1) << 40, uint64_t(1) << 40, 0, CU_AD_FORMAT_FLOAT, 4)),
            UINT64_MAX);
}

TEST(ArrayBytesTest, MipLevelsHalveEveryDimensionDownToOne) {
  // 8 x 4 floats: 128 + 32 + 8 + 4 bytes (4x2, 2x1, 1x1).
  EXPECT_EQ(MipmappedArrayBytes(Shape(8, 4, 0, CU_AD_FORMAT_FLOAT, 1), 4), 172u);
  // One level is the array itself; zero levels is charged as one.
  EXPECT_EQ(MipmappedArrayBytes(Shape(8, 4, 0, CU_AD_FORMAT_FLOAT, 1), 1), 128u);
  EXPECT_EQ(MipmappedArrayBytes(Shape(8, 4, 0, CU_AD_FORMAT_FLOAT, 1), 0), 128u);
  // 3D: depth halves too (8x8x8 → 4x4x4 → 2x2x2).
  EXPECT_EQ(MipmappedArrayBytes(Shape(8, 8, 8, CU_AD_FORMAT_UNSIGNED_INT8, 1), 3), 512u + 64 + 8);
}

TEST(ArrayBytesTest, LayersAndCubemapFacesAreNotHalved) {
  // 8x8, 6 layers: each level keeps all 6.
  EXPECT_EQ(MipmappedArrayBytes(Shape(8, 8, 6, CU_AD_FORMAT_UNSIGNED_INT8, 1, CUDA_ARRAY3D_LAYERED), 3),
            6u * (64 + 16 + 4));
  EXPECT_EQ(MipmappedArrayBytes(Shape(8, 8, 6, CU_AD_FORMAT_UNSIGNED_INT8, 1, CUDA_ARRAY3D_CUBEMAP), 2),
            6u * (64 + 16));
}

TEST(ArrayBytesTest, AbsurdLevelCountsAreBounded) {
  // Past 65 levels every further level would be a single texel; the driver
  // refuses such counts, and the estimate stops.
  EXPECT_LT(MipmappedArrayBytes(Shape(2, 2, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1), 4000000000u), 100u);
}

}  // namespace
}  // namespace iashim
