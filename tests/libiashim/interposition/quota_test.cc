// IASHIM_MEM_LIMIT (set to 64 MiB for this binary by CMake) is enforced for
// every allocation family (pointers, VMM handles, CUDA arrays, graph memory
// nodes), reported by cuMemGetInfo/cuDeviceTotalMem, and given back by every
// free; a free of memory the shim never saw passes through.
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tests/simgpu/test_env.h"
#include "tests/libiashim/interposition/shim_test_support.h"
// After the support header, which includes cuda.h with __CUDA_API_VERSION_INTERNAL (the
// _ptsz and unversioned entry points these tests call).
#include "tests/simgpu/array_descriptor.h"

namespace {

using iashim_test::ShimTest;
using iashim_test::Stats;

constexpr size_t kMiB = size_t(1) << 20;
constexpr size_t kLimit = 64 * kMiB;

class QuotaTest : public ShimTest {
 protected:
  void SetUp() override {
    ShimTest::SetUp();
    ASSERT_CU(cuDeviceGet(&second_, 1));
    ASSERT_CU(cuDevicePrimaryCtxRetain(&ctx1_, second_));
  }

  void TearDown() override {
    EXPECT_CU(cuCtxSetCurrent(ctx_));
    if (ctx1_ != nullptr) {
      EXPECT_CU(cuDevicePrimaryCtxRelease(second_));
    }
    // Every test gives back all it took.
    EXPECT_EQ(Stats().mem_used[0], 0u);
    EXPECT_EQ(Stats().mem_used[1], 0u);
    ShimTest::TearDown();
  }

  // Runs `round(thread, device)` `rounds` times on each of `threads` threads,
  // each switching to the other device's context every round (as a
  // framework's per-device worker threads do); returns how many calls failed.
  template <typename Round>
  int OnThreadsSwitchingDevices(int threads, int rounds, Round&& round) {
    const CUcontext contexts[2] = {ctx_, ctx1_};
    std::atomic<int> failures{0};
    std::vector<std::thread> running;
    for (int t = 0; t < threads; ++t) {
      running.emplace_back([&, t] {
        for (int i = 0; i < rounds; ++i) {
          const int device = (t + i) % 2;
          if (cuCtxSetCurrent(contexts[device]) != CUDA_SUCCESS) ++failures;
          failures += round(t, device);
        }
      });
    }
    for (std::thread& th : running) th.join();
    return failures.load();
  }

  CUdevice second_ = 0;
  CUcontext ctx1_ = nullptr;  // device 1's primary context
};

// One 8 MiB cuMemAlloc and its free; the number of calls that failed.
int AllocateAndFree() {
  constexpr size_t kEight = 8 * (size_t(1) << 20);
  CUdeviceptr p = 0;
  return (cuMemAlloc_v2(&p, kEight) != CUDA_SUCCESS) + (cuMemFree_v2(p) != CUDA_SUCCESS);
}

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

// float4 texels (2048 x 2048: 64 MiB, exactly the quota).
CUDA_ARRAY_DESCRIPTOR Float4Array(size_t width, size_t height) {
  return iashim_test::Desc2D(width, height, CU_AD_FORMAT_FLOAT, 4);
}

TEST_F(QuotaTest, ArraysCountTheirTexels) {
  // 1024 x 1024 float4: 16 MiB; 2048 x 1536: 48 MiB.
  CUDA_ARRAY_DESCRIPTOR small = Float4Array(1024, 1024);
  CUDA_ARRAY_DESCRIPTOR large = Float4Array(2048, 1536);
  CUarray a = nullptr, b = nullptr, c = nullptr;
  ASSERT_CU(cuArrayCreate_v2(&a, &small));
  EXPECT_EQ(Stats().mem_used[0], 16 * kMiB);
  ASSERT_CU(cuArrayCreate_v2(&b, &large));
  EXPECT_EQ(Stats().mem_used[0], kLimit);
  const uint64_t refused_before = Stats().mem_refused;
  EXPECT_EQ(cuArrayCreate_v2(&c, &small), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(Stats().mem_refused - refused_before, 1u);
  EXPECT_CU(cuArrayDestroy(b));
  EXPECT_EQ(Stats().mem_used[0], 16 * kMiB);
  EXPECT_CU(cuArrayDestroy(a));
}

TEST_F(QuotaTest, ThreeDimensionalAndLegacyArraysCount) {
  // 256 x 256 x 128 of 2-channel 16-bit texels: 32 MiB, through the _v2 and
  // the 32-bit legacy descriptors alike.
  CUDA_ARRAY3D_DESCRIPTOR d{};
  d.Width = 256;
  d.Height = 256;
  d.Depth = 128;
  d.Format = CU_AD_FORMAT_UNSIGNED_INT16;
  d.NumChannels = 2;
  CUDA_ARRAY3D_DESCRIPTOR_v1 legacy{};
  legacy.Width = 256;
  legacy.Height = 256;
  legacy.Depth = 128;
  legacy.Format = CU_AD_FORMAT_UNSIGNED_INT16;
  legacy.NumChannels = 2;
  CUarray a = nullptr, b = nullptr, c = nullptr;
  ASSERT_CU(cuArray3DCreate_v2(&a, &d));
  EXPECT_EQ(Stats().mem_used[0], 32 * kMiB);
  ASSERT_CU(cuArray3DCreate(&b, &legacy));
  EXPECT_EQ(Stats().mem_used[0], kLimit);
  EXPECT_EQ(cuArray3DCreate(&c, &legacy), CUDA_ERROR_OUT_OF_MEMORY);
  CUDA_ARRAY_DESCRIPTOR_v1 flat{};
  flat.Width = 1024;
  flat.Height = 1024;
  flat.Format = CU_AD_FORMAT_UNSIGNED_INT8;
  flat.NumChannels = 1;
  EXPECT_EQ(cuArrayCreate(&c, &flat), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_CU(cuArrayDestroy(a));
  EXPECT_CU(cuArrayDestroy(b));
}

TEST_F(QuotaTest, MipmappedArraysCountEveryLevel) {
  // 2048 x 2048 single-channel floats: 16 MiB at level 0, then 4, 1, 0.25 ...:
  // all 12 levels come to just over 21.3 MiB, so three fit and a fourth does not.
  CUDA_ARRAY3D_DESCRIPTOR d{};
  d.Width = 2048;
  d.Height = 2048;
  d.Format = CU_AD_FORMAT_FLOAT;
  d.NumChannels = 1;
  CUmipmappedArray m[4] = {};
  for (int i = 0; i < 3; ++i) ASSERT_CU(cuMipmappedArrayCreate(&m[i], &d, 12));
  EXPECT_GT(Stats().mem_used[0], 3 * 21 * kMiB);
  EXPECT_LE(Stats().mem_used[0], kLimit);
  EXPECT_EQ(cuMipmappedArrayCreate(&m[3], &d, 12), CUDA_ERROR_OUT_OF_MEMORY);
  for (int i = 0; i < 3; ++i) EXPECT_CU(cuMipmappedArrayDestroy(m[i]));
}

TEST_F(QuotaTest, ARefusedOrFailedArrayTakesNothing) {
  // The driver refuses a 3-channel array: the reservation is given back.
  CUDA_ARRAY_DESCRIPTOR bad = Float4Array(16, 16);
  bad.NumChannels = 3;
  CUarray a = nullptr;
  EXPECT_NE(cuArrayCreate_v2(&a, &bad), CUDA_SUCCESS);
  EXPECT_EQ(Stats().mem_used[0], 0u);
  EXPECT_NE(cuArrayCreate_v2(&a, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(Stats().mem_used[0], 0u);
}

CUDA_MEM_ALLOC_NODE_PARAMS GraphAllocation(int device, size_t bytes) {
  CUDA_MEM_ALLOC_NODE_PARAMS p{};
  p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.poolProps.location.id = device;
  p.bytesize = bytes;
  return p;
}

TEST_F(QuotaTest, GraphMemoryNodesCountAndAFreeOutsideGivesBack) {
  CUgraph graph = nullptr;
  ASSERT_CU(cuGraphCreate(&graph, 0));
  CUDA_MEM_ALLOC_NODE_PARAMS a = GraphAllocation(device_, 40 * kMiB);
  CUDA_MEM_ALLOC_NODE_PARAMS b = GraphAllocation(device_, 40 * kMiB);
  CUgraphNode na = nullptr, nb = nullptr;
  ASSERT_CU(cuGraphAddMemAllocNode(&na, graph, nullptr, 0, &a));
  EXPECT_NE(a.dptr, 0u);
  EXPECT_EQ(Stats().mem_used[0], 40 * kMiB);
  EXPECT_EQ(cuGraphAddMemAllocNode(&nb, graph, nullptr, 0, &b), CUDA_ERROR_OUT_OF_MEMORY);
  // Through the generic cuGraphAddNode too.
  CUgraphNodeParams generic{};
  generic.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
  generic.alloc.poolProps = b.poolProps;
  generic.alloc.bytesize = 40 * kMiB;
  EXPECT_EQ(cuGraphAddNode_v2(&nb, graph, nullptr, nullptr, 0, &generic),
            CUDA_ERROR_OUT_OF_MEMORY);
  // Freed outside the graph (as a real driver allows): the bytes come back.
  ASSERT_CU(cuMemFree_v2(a.dptr));
  EXPECT_EQ(Stats().mem_used[0], 0u);
  ASSERT_CU(cuGraphAddNode_v2(&nb, graph, nullptr, nullptr, 0, &generic));
  EXPECT_EQ(Stats().mem_used[0], 40 * kMiB);
  ASSERT_CU(cuMemFree_v2(generic.alloc.dptr));
  EXPECT_CU(cuGraphDestroy(graph));
}

TEST_F(QuotaTest, AGraphThatFreesItsOwnMemoryHoldsItUntilDestroyed) {
  CUgraph graph = nullptr;
  ASSERT_CU(cuGraphCreate(&graph, 0));
  CUDA_MEM_ALLOC_NODE_PARAMS a = GraphAllocation(device_, 48 * kMiB);
  CUgraphNode na = nullptr, nf = nullptr;
  ASSERT_CU(cuGraphAddMemAllocNode(&na, graph, nullptr, 0, &a));
  ASSERT_CU(cuGraphAddMemFreeNode(&nf, graph, &na, 1, a.dptr));
  EXPECT_EQ(Stats().mem_used[0], 48 * kMiB);
  CUdeviceptr p = 0;
  EXPECT_EQ(cuMemAlloc_v2(&p, 32 * kMiB), CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_CU(cuGraphDestroy(graph));
  EXPECT_EQ(Stats().mem_used[0], 0u);
  ASSERT_CU(cuMemAlloc_v2(&p, 32 * kMiB));
  EXPECT_CU(cuMemFree_v2(p));
}

// Graphs built and destroyed on several threads, on alternating devices, while
// the others allocate: what a destroyed graph's free node released comes out of
// the ledger before the driver releases it, so an address the driver hands to
// another thread's allocation at once is never taken for the graph's.
TEST_F(QuotaTest, GraphsDestroyedWhileOtherThreadsAllocateGiveBackOnTheirOwnDevice) {
  const int failures = OnThreadsSwitchingDevices(4, 30, [](int thread, int device) {
    if (thread % 2 == 1) return AllocateAndFree();  // may get the graphs' addresses
    // A graph that allocates 8 MiB and frees it.
    CUgraph graph = nullptr;
    if (cuGraphCreate(&graph, 0) != CUDA_SUCCESS) return 1;
    CUDA_MEM_ALLOC_NODE_PARAMS a = GraphAllocation(device, 8 * kMiB);
    CUgraphNode na = nullptr, nf = nullptr;
    return (cuGraphAddMemAllocNode(&na, graph, nullptr, 0, &a) != CUDA_SUCCESS) +
           (cuGraphAddMemFreeNode(&nf, graph, &na, 1, a.dptr) != CUDA_SUCCESS) +
           (cuGraphDestroy(graph) != CUDA_SUCCESS);
  });
  EXPECT_EQ(failures, 0);
  // TearDown: nothing left charged on either device.
}

// The driver frees a context's memory with it, and the quota gets those bytes
// back: a job that resets its device (cudaDeviceReset is
// cuDevicePrimaryCtxReset) and starts again is not refused memory it no
// longer holds; nor is one that destroys a context it made, or releases the
// primary context for the last time.
TEST_F(QuotaTest, AContextsMemoryComesBackWhenTheDriverFreesItWithTheContext) {
  CUdeviceptr p = 0, kept = 0;
  ASSERT_CU(cuMemAlloc_v2(&p, 48 * kMiB));
  ASSERT_CU(cuDevicePrimaryCtxReset(device_));
  EXPECT_EQ(Stats().mem_used[0], 0u);
  ASSERT_CU(cuMemAlloc_v2(&p, 48 * kMiB));  // 96 MiB of 64, had the first stayed charged
  EXPECT_CU(cuMemFree_v2(p));

  // A context of its own: its memory goes; the primary context's stays.
  ASSERT_CU(cuMemAlloc_v2(&kept, 8 * kMiB));
  CUcontext own = nullptr;
  ASSERT_CU(cuCtxCreate_v2(&own, 0, device_));
  ASSERT_CU(cuMemAlloc_v2(&p, 48 * kMiB));
  EXPECT_EQ(Stats().mem_used[0], 56 * kMiB);
  ASSERT_CU(cuCtxDestroy_v2(own));
  EXPECT_EQ(Stats().mem_used[0], 8 * kMiB);
  ASSERT_CU(cuCtxSetCurrent(ctx_));
  EXPECT_CU(cuMemFree_v2(kept));

  // Device 1's primary context, held by the fixture and once more here: the
  // first release keeps its memory, the last gives it back.
  CUcontext again = nullptr;
  ASSERT_CU(cuDevicePrimaryCtxRetain(&again, second_));
  ASSERT_CU(cuCtxSetCurrent(again));
  ASSERT_CU(cuMemAlloc_v2(&p, 48 * kMiB));
  ASSERT_CU(cuDevicePrimaryCtxRelease(second_));
  EXPECT_EQ(Stats().mem_used[1], 48 * kMiB);
  ASSERT_CU(cuDevicePrimaryCtxRelease(second_));
  EXPECT_EQ(Stats().mem_used[1], 0u);
  ASSERT_CU(cuDevicePrimaryCtxRetain(&ctx1_, second_));  // the fixture's, for TearDown
}

TEST_F(QuotaTest, LegacyThirtyTwoBitAllocationsAreChargedBeforeTheDriverSeesThem) {
  // The CUDA 3.1 forms: over quota they never reach the driver; a call the
  // driver fails (simgpu has no 32-bit addresses to give) leaves nothing charged.
  CUdeviceptr_v1 p = 0;
  EXPECT_EQ(cuMemAlloc(&p, unsigned(65 * kMiB)), CUDA_ERROR_OUT_OF_MEMORY);
  const CUresult rc = cuMemAlloc(&p, unsigned(kMiB));
  if (rc == CUDA_SUCCESS) {
    EXPECT_EQ(Stats().mem_used[0], kMiB);
    EXPECT_CU(cuMemFree(p));
  }
  EXPECT_EQ(Stats().mem_used[0], 0u);
  unsigned pitch = 0;
  EXPECT_EQ(cuMemAllocPitch(&p, &pitch, 1000, 140000, 4), CUDA_ERROR_OUT_OF_MEMORY);
}

// A multi-GPU process: each device has its own quota, and an allocation is
// charged to the device current on the calling thread, however often threads
// switch devices (as a framework's per-device worker threads do).
TEST_F(QuotaTest, EachDeviceHasItsOwnQuotaWhateverThreadSwitchesToIt) {
  // 4 threads x 8 MiB fit 32 MiB of 64 on either device.
  EXPECT_EQ(OnThreadsSwitchingDevices(4, 50, [](int, int) { return AllocateAndFree(); }), 0);
  // 48 MiB on device 1 leaves device 0's quota whole.
  ASSERT_CU(cuCtxSetCurrent(ctx1_));
  CUdeviceptr on1 = 0, more1 = 0;
  ASSERT_CU(cuMemAlloc_v2(&on1, 48 * kMiB));
  EXPECT_EQ(cuMemAlloc_v2(&more1, 32 * kMiB), CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_CU(cuCtxSetCurrent(ctx_));
  CUdeviceptr on0 = 0;
  ASSERT_CU(cuMemAlloc_v2(&on0, 48 * kMiB));
  EXPECT_EQ(Stats().mem_used[0], 48 * kMiB);
  EXPECT_EQ(Stats().mem_used[1], 48 * kMiB);
  // Freed from the other device's context, the memory still goes back to its own.
  ASSERT_CU(cuMemFree_v2(on1));
  EXPECT_EQ(Stats().mem_used[1], 0u);
  EXPECT_CU(cuMemFree_v2(on0));
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
  setenv("SIMGPU_DEVICES", "2xTest GPU:4GiB:80", 1);
  unsetenv("CUDA_VISIBLE_DEVICES");
  setenv("IASHIM_MEM_LIMIT", "64MiB", 1);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  iashim_test::RemoveSimulatedDevices(ns);
  return rc;
}
