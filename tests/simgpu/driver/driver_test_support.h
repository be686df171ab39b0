// What the driver API tests share: checking CUresults, the current device's
// free memory, and timing simulated work between two events.
#ifndef IASHIM_TESTS_SIMGPU_DRIVER_DRIVER_TEST_SUPPORT_H_
#define IASHIM_TESTS_SIMGPU_DRIVER_DRIVER_TEST_SUPPORT_H_

#include <cuda.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
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

// Simulated time between two events around some work, and the host time it
// took to queue them: from just before the first event's record to just after
// the second's returned.
struct Span {
  float ms = -1;
  double queued_ms = 0;
};

// Host milliseconds since `since`.
inline double HostMsSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

// A span around work of `work_ms`: at least that, less at most `below` (the
// work did not end early), and short of what running it twice would take (it
// ran once; 10 ms over for work too short for that line to stand clear). The
// work cannot start before the first record nor end later than `work_ms` after
// it was queued, so the host's delays in between (a loaded 2-core CI machine
// or a sanitizer stretches them past 20 ms) can lengthen the span by at most
// `queued_ms`, which the upper bound allows.
inline void ExpectSpan(const Span& span, double work_ms, double below = 1.0) {
  EXPECT_GE(span.ms, work_ms - below);
  EXPECT_LT(span.ms, std::max(2.0 * work_ms - below, work_ms + 10.0) + span.queued_ms)
      << "queued in " << span.queued_ms << " ms";
}

// The span between events recorded on `s` (of the current context) around
// `work`.
template <typename Work>
Span TimedMs(CUstream s, Work work) {
  CUevent start, stop;
  EXPECT_CU(cuEventCreate(&start, 0));
  EXPECT_CU(cuEventCreate(&stop, 0));
  const auto queued_from = std::chrono::steady_clock::now();
  EXPECT_CU(cuEventRecord(start, s));
  work();
  EXPECT_CU(cuEventRecord(stop, s));
  Span span;
  span.queued_ms = HostMsSince(queued_from);
  EXPECT_CU(cuEventSynchronize(stop));
  EXPECT_CU(cuEventElapsedTime(&span.ms, start, stop));
  EXPECT_CU(cuEventDestroy(start));
  EXPECT_CU(cuEventDestroy(stop));
  return span;
}

}  // namespace simgpu_test

#endif  // IASHIM_TESTS_SIMGPU_DRIVER_DRIVER_TEST_SUPPORT_H_
