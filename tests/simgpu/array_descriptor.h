// CUDA array descriptors for tests of arrays (simgpu's driver, the shim's
// quota): width, height, element format and channels, and for a 3D
// descriptor depth and flags.
#ifndef IASHIM_TESTS_SIMGPU_ARRAY_DESCRIPTOR_H_
#define IASHIM_TESTS_SIMGPU_ARRAY_DESCRIPTOR_H_

#include <cuda.h>

#include <cstddef>

namespace iashim_test {

// A 2D descriptor of either kind (CUDA_ARRAY_DESCRIPTOR or CUDA_ARRAY3D_DESCRIPTOR).
template <typename Descriptor = CUDA_ARRAY_DESCRIPTOR>
Descriptor Desc2D(size_t width, size_t height, CUarray_format format, unsigned channels) {
  Descriptor d{};
  d.Width = width;
  d.Height = height;
  d.Format = format;
  d.NumChannels = channels;
  return d;
}

inline CUDA_ARRAY3D_DESCRIPTOR Desc3D(size_t width, size_t height, size_t depth,
                                      CUarray_format format, unsigned channels,
                                      unsigned flags = 0) {
  CUDA_ARRAY3D_DESCRIPTOR d = Desc2D<CUDA_ARRAY3D_DESCRIPTOR>(width, height, format, channels);
  d.Depth = depth;
  d.Flags = flags;
  return d;
}

}  // namespace iashim_test

#endif  // IASHIM_TESTS_SIMGPU_ARRAY_DESCRIPTOR_H_
