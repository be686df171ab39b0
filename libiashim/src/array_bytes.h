// The device memory a CUDA array takes, from its descriptor, for the quota.
//
// Width x height x depth elements (a 0 height or depth counts as 1), each of
// the format's size times its channels. Real drivers lay arrays out in tiles
// and pad them, which this does not know, so it is a lower bound of what the
// driver takes; it is what simgpu charges. A format it does not know is
// charged as the widest element (4 channels of 32 bits), so an unknown format
// can make the shim refuse too early but never lets an array past the quota.
#ifndef IASHIM_ARRAY_BYTES_H_
#define IASHIM_ARRAY_BYTES_H_

#include <cstdint>

#include "libiashim/src/cuda_api.h"

namespace iashim {

struct ArrayShape {
  uint64_t width = 0;
  uint64_t height = 0;  // 0: a 1D array
  uint64_t depth = 0;   // 0: a 2D array; layers when layered, 6 (x layers) for a cubemap
  CUarray_format format = CU_AD_FORMAT_UNSIGNED_INT8;
  unsigned channels = 1;
  unsigned flags = 0;   // CUDA_ARRAY3D_* flags
};

// Bytes of one array of `shape`; saturates rather than overflows.
uint64_t ArrayBytes(const ArrayShape& shape);

// Bytes of a mipmapped array of `levels` levels: each level halves width,
// height and (unless the array is layered or a cubemap) depth, down to 1.
uint64_t MipmappedArrayBytes(const ArrayShape& shape, unsigned levels);

// From the driver's descriptors (the 2D ones have no depth and no flags).
template <typename Descriptor>
ArrayShape ShapeOf2D(const Descriptor& d) {
  return ArrayShape{d.Width, d.Height, 0, d.Format, d.NumChannels, 0};
}
template <typename Descriptor>
ArrayShape ShapeOf3D(const Descriptor& d) {
  return ArrayShape{d.Width, d.Height, d.Depth, d.Format, d.NumChannels, d.Flags};
}

}  // namespace iashim

#endif  // IASHIM_ARRAY_BYTES_H_
