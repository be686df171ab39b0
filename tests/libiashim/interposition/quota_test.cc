// IASHIM_MEM_LIMIT (set to 64 MiB for this binary by CMake) is enforced for
// every allocation family, reported by cuMemGetInfo/cuDeviceTotalMem, and
// given back by every free; a free of memory the shim never saw passes through.
#include <cstdlib>
#include <string>

#include "tests/simgpu/test_env.h"
#include "tests/libiashim/interposition/shim_test_support.h"

namespace {

using iashim_test::ShimTest;
using iashim_test::Stats;

constexpr size_t kMiB = size_t(1) << 20;
constexpr size_t kLimit = 64 * kMiB;

class QuotaTest : public ShimTest {
 protected:
  void TearDown() override {
    // Every test gives back all it took.
    EXPECT_EQ(Stats().mem_used[0], 0u);
    ShimTest::TearDown();
  }
};

TEST_F(QuotaTest, LimitIsReadFromTheEnvironment) {
  size_t free_bytes = 0, total = 0;
  ASSERT_CU(cuMemGetInfo_v2(&free_bytes, &total));
  EXPECT_EQ(Stats().mem_limit, kLimit);
  EXPECT_EQ(total, kLimit);
  EXPECT_EQ(free_bytes, kLimit);
  size_t device_total = 0;
  ASSERT_CU(cuDeviceTotalMem_v2(&device_total, device_));
  EXPECT_EQ(device_total, kLimit);
}

TEST_F(QuotaTest, MemAllocIsRefusedPastTheQuotaAndFreesGiveBack) {
  const uint64_t refused_before = Stats().mem_refused;
  CUdeviceptr a = 0, b = 0, c = 0;
  ASSERT_CU(cuMemAlloc_v2(&a, 48 * kMiB));
  EXPECT_EQ(cuMemAlloc_v2(&b, 32 * kMiB), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(Stats().mem_refused - refused_before, 1u);
  size_t free_bytes = 0, total = 0;
  ASSERT_CU(cuMemGetInfo_v2(&free_bytes, &total));
  EXPECT_EQ(free_bytes, 16 * kMiB);
  // Exactly up to the limit is allowed.
  ASSERT_CU(cuMemAlloc_v2(&c, 16 * kMiB));
  EXPECT_EQ(Stats().mem_used[0], kLimit);
  EXPECT_CU(cuMemFree_v2(a));
  ASSERT_CU(cuMemAlloc_v2(&b, 32 * kMiB));
  EXPECT_CU(cuMemFree_v2(b));
  EXPECT_CU(cuMemFree_v2(c));
}

TEST_F(QuotaTest, PitchAllocationsCountTheirPaddedRows) {
  CUdeviceptr p = 0;
  size_t pitch = 0;
  // 1000-byte rows are padded; 40,000 of them need more than 38 MiB.
  ASSERT_CU(cuMemAllocPitch_v2(&p, &pitch, 1000, 40000, 4));
  EXPECT_GE(pitch, 1000u);
  EXPECT_GE(Stats().mem_used[0], uint64_t(pitch) * 40000);
  CUdeviceptr q = 0;
  EXPECT_EQ(cuMemAllocPitch_v2(&q, &pitch, 1000, 40000, 4), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_CU(cuMemFree_v2(p));
}

TEST_F(QuotaTest, ManagedAllocationsCount) {
  CUdeviceptr p = 0, q = 0;
  ASSERT_CU(cuMemAllocManaged(&p, 40 * kMiB, CU_MEM_ATTACH_GLOBAL));
  EXPECT_EQ(cuMemAllocManaged(&q, 40 * kMiB, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_CU(cuMemFree_v2(p));
}

TEST_F(QuotaTest, StreamOrderedAllocationsCount) {
  CUstream s;
  ASSERT_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUdeviceptr a = 0, b = 0;
  ASSERT_CU(cuMemAllocAsync(&a, 40 * kMiB, s));
  EXPECT_EQ(cuMemAllocAsync(&b, 40 * kMiB, s), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(cuMemAllocAsync_ptsz(&b, 40 * kMiB, nullptr), CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_CU(cuMemFreeAsync(a, s));
  ASSERT_CU(cuMemAllocAsync_ptsz(&b, 40 * kMiB, nullptr));
  ASSERT_CU(cuMemFreeAsync_ptsz(b, nullptr));
  ASSERT_CU(cuStreamSynchronize(s));
  ASSERT_CU(cuStreamSynchronize_ptsz(nullptr));
  EXPECT_CU(cuStreamDestroy_v2(s));
}

TEST_F(QuotaTest, PoolAllocationsCount) {
  CUmemoryPool pool = nullptr;
  ASSERT_CU(cuDeviceGetDefaultMemPool(&pool, device_));
  CUdeviceptr a = 0, b = 0;
  ASSERT_CU(cuMemAllocFromPoolAsync(&a, 40 * kMiB, pool, nullptr));
  EXPECT_EQ(cuMemAllocFromPoolAsync(&b, 40 * kMiB, pool, nullptr), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(cuMemAllocFromPoolAsync_ptsz(&b, 40 * kMiB, pool, nullptr), CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_CU(cuMemFreeAsync(a, nullptr));
  ASSERT_CU(cuStreamSynchronize(nullptr));
}

TEST_F(QuotaTest, VirtualMemoryHandlesCount) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device_;
  size_t granularity = 0;
  ASSERT_CU(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const size_t size = (40 * kMiB + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle h1 = 0, h2 = 0;
  ASSERT_CU(cuMemCreate(&h1, size, &prop, 0));
  EXPECT_EQ(Stats().mem_used[0], size);
  EXPECT_EQ(cuMemCreate(&h2, size, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
  // Mapping does not take more memory.
  CUdeviceptr va = 0;
  ASSERT_CU(cuMemAddressReserve(&va, size, 0, 0, 0));
  ASSERT_CU(cuMemMap(va, size, 0, h1, 0));
  EXPECT_EQ(Stats().mem_used[0], size);
  ASSERT_CU(cuMemUnmap(va, size));
  ASSERT_CU(cuMemAddressFree(va, size));
  EXPECT_CU(cuMemRelease(h1));
}

TEST_F(QuotaTest, FreeOfMemoryNeverSeenPassesThrough) {
  CUdeviceptr a = 0;
  ASSERT_CU(cuMemAlloc_v2(&a, 8 * kMiB));
  // Not an allocation: the driver's own answer comes back, accounting untouched.
  const CUresult rc = cuMemFree_v2(a + 4096);
  EXPECT_NE(rc, CUDA_SUCCESS);
  EXPECT_EQ(Stats().mem_used[0], 8 * kMiB);
  EXPECT_NE(cuMemRelease(CUmemGenericAllocationHandle(12345)), CUDA_SUCCESS);
  EXPECT_EQ(Stats().mem_used[0], 8 * kMiB);
  EXPECT_CU(cuMemFree_v2(a));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string ns = iashim_test::UniqueNamespace("quota");
  setenv("SIMGPU_NAMESPACE", ns.c_str(), 1);
  setenv("SIMGPU_DEVICES", "Test GPU:4GiB:80", 1);
  unsetenv("CUDA_VISIBLE_DEVICES");
  setenv("IASHIM_MEM_LIMIT", "64MiB", 1);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  iashim_test::RemoveSimulatedDevices(ns);
  return rc;
}
