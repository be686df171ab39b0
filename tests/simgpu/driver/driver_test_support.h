// What the driver API tests share: checking CUresults, the current device's
// free memory, and timing simulated work between two events.
#ifndef IASHIM_TESTS_SIMGPU_DRIVER_DRIVER_TEST_SUPPORT_H_
#define IASHIM_TESTS_SIMGPU_DRIVER_DRIVER_TEST_SUPPORT_H_

#include <cuda.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>

#ifndef ASSERT_CU
#define ASSERT_CU(expr) ASSERT_EQ((expr), CUDA_SUCCESS) << #expr
#endif
#ifndef EXPECT_CU
#define EXPECT_CU(expr) EXPECT_EQ((expr), CUDA_SUCCESS) << #expr
#endif

namespace simgpu_test {

// Free memory on the current context's device.
inline size_t FreeBytes() {
  size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cuMemGetInfo(&free_bytes, &total), CUDA_SUCCESS);
  return free_bytes;
}

// A span of simulated time around work of `work_ms`: at least that, less at
// most `below`: the work did not end early. simgpu's clock is the host's, so
// the span also holds whatever the host took between recording the first event
// and queueing the work, which a loaded 2-core CI machine or a sanitizer
// stretches past 10 ms; the upper bound is therefore what running the work
// twice would take (the work ran once), and 10 ms over for work too short for
// that line to stand clear of the host's delays.
inline void ExpectSpan(float ms, double work_ms, double below = 1.0) {
  EXPECT_GE(ms, work_ms - below);
  EXPECT_LT(ms, std::max(2.0 * work_ms - below, work_ms + 10.0));
}

// Simulated milliseconds between events recorded on `s` (of the current
// context) around `work`.
template <typename Work>
float TimedMs(CUstream s, Work work) {
  CUevent start, stop;
  EXPECT_CU(cuEventCreate(&start, 0));
  EXPECT_CU(cuEventCreate(&stop, 0));
  EXPECT_CU(cuEventRecord(start, s));
  work();
  EXPECT_CU(cuEventRecord(stop, s));
  EXPECT_CU(cuEventSynchronize(stop));
  float ms = -1;
  EXPECT_CU(cuEventElapsedTime(&ms, start, stop));
  EXPECT_CU(cuEventDestroy(start));
  EXPECT_CU(cuEventDestroy(stop));
  return ms;
}

}  // namespace simgpu_test

#endif  // IASHIM_TESTS_SIMGPU_DRIVER_DRIVER_TEST_SUPPORT_H_
