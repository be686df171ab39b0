// Shared set-up for tests of libiashim linked into the test binary ahead of
// simgpu's libcuda.so.1 (which is how a preloaded shim sits in front of the
// driver, and it works under the sanitizers, which LD_PRELOAD does not).
#ifndef IASHIM_TESTS_LIBIASHIM_SHIM_TEST_SUPPORT_H_
#define IASHIM_TESTS_LIBIASHIM_SHIM_TEST_SUPPORT_H_

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <gtest/gtest.h>

#include "iashim/iashim.h"

#define ASSERT_CU(expr) ASSERT_EQ((expr), CUDA_SUCCESS) << #expr
#define EXPECT_CU(expr) EXPECT_EQ((expr), CUDA_SUCCESS) << #expr

namespace iashim_test {

// Kernels of the simulated module every test loads.
inline constexpr char kShimTestImage[] =
    "simgpu-module 1\n"
    "kernel k0 fixed_us=0\n"
    "kernel k_other fixed_us=0\n"
    "kernel k500ms fixed_us=500000\n";

inline iashim_stats Stats() {
  iashim_stats s{};
  EXPECT_EQ(iashim_get_stats(&s, sizeof s), 0);
  return s;
}

// A primary context made current, and the module's kernels.
class ShimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_CU(cuInit(0));
    ASSERT_CU(cuDeviceGet(&device_, 0));
    ASSERT_CU(cuDevicePrimaryCtxRetain(&ctx_, device_));
    ASSERT_CU(cuCtxSetCurrent(ctx_));
    ASSERT_CU(cuModuleLoadData(&module_, kShimTestImage));
    ASSERT_CU(cuModuleGetFunction(&k0_, module_, "k0"));
    ASSERT_CU(cuModuleGetFunction(&k_other_, module_, "k_other"));
    ASSERT_CU(cuModuleGetFunction(&k500ms_, module_, "k500ms"));
  }
  void TearDown() override {
    cuCtxSynchronize();
    EXPECT_CU(cuModuleUnload(module_));
    EXPECT_CU(cuDevicePrimaryCtxRelease(device_));
  }

  CUdevice device_ = 0;
  CUcontext ctx_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction k0_ = nullptr, k_other_ = nullptr, k500ms_ = nullptr;
};

}  // namespace iashim_test

#endif  // IASHIM_TESTS_LIBIASHIM_SHIM_TEST_SUPPORT_H_
