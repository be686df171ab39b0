// The simulated driver's arrays and mipmapped arrays, legacy launches
// (cuFuncSetBlockShape, cuLaunchGrid), multi-device cooperative launches and
// graph memory nodes, through the exported API as a program linked against
// libcuda.so.1 sees it. The devices are driver_api_test.cc's: a 4 GiB device
// with 80 SMs and a 2 GiB one with 40.
#include <cuda.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "tests/simgpu/array_descriptor.h"
#include "tests/simgpu/driver/driver_test_support.h"

// The legacy launch API is deprecated in cuda.h, and tested here on purpose.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

using iashim_test::Desc3D;

using simgpu_test::ExpectSpan;
using simgpu_test::FreeBytes;
using simgpu_test::TimedMs;

constexpr size_t kMiB = 1 << 20;

const char kImage[] =
    "simgpu-module 1\n"
    "kernel k20ms fixed_us=20000 mem=0.1\n";

void* Sym(const char* name) { return dlsym(RTLD_DEFAULT, name); }

// The CUDA 2.x descriptors of the unversioned cuArrayCreate and cuArray3DCreate,
// which cuda.h declares only for the driver's own build.
struct ArrayDescriptorV1 {
  unsigned Width;
  unsigned Height;
  CUarray_format Format;
  unsigned NumChannels;
};
struct Array3DDescriptorV1 {
  unsigned Width;
  unsigned Height;
  unsigned Depth;
  CUarray_format Format;
  unsigned NumChannels;
  unsigned Flags;
};

// A graph allocation of `bytes` on device `device`.
CUDA_MEM_ALLOC_NODE_PARAMS AllocParams(size_t bytes, int device = 0) {
  CUDA_MEM_ALLOC_NODE_PARAMS p{};
  p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.poolProps.location.id = device;
  p.bytesize = bytes;
  return p;
}

class ArrayLaunchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_CU(cuInit(0));
    ASSERT_CU(cuDevicePrimaryCtxRetain(&ctx_, 0));
    ASSERT_CU(cuDevicePrimaryCtxRetain(&ctx1_, 1));
  }
  void SetUp() override {
    ASSERT_CU(cuCtxSetCurrent(ctx_));
    ASSERT_CU(cuModuleLoadData(&module_, kImage));
    ASSERT_CU(cuModuleGetFunction(&k20_, module_, "k20ms"));
    ASSERT_CU(cuStreamCreate(&s_, CU_STREAM_NON_BLOCKING));
  }
  void TearDown() override {
    EXPECT_CU(cuCtxSetCurrent(ctx_));
    EXPECT_CU(cuStreamDestroy(s_));
    EXPECT_CU(cuModuleUnload(module_));
  }

  static inline CUcontext ctx_ = nullptr, ctx1_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction k20_ = nullptr;
  CUstream s_ = nullptr;
};

// ---- Arrays ----------------------------------------------------------------

TEST_F(ArrayLaunchTest, ArraysTakeTheirPackedSizeUntilDestroyed) {
  const size_t free0 = FreeBytes();
  // 2D, float4: Width * Height * NumChannels * 4.
  CUDA_ARRAY_DESCRIPTOR d2{};
  d2.Width = 1024;
  d2.Height = 512;
  d2.Format = CU_AD_FORMAT_FLOAT;
  d2.NumChannels = 4;
  CUarray a2;
  ASSERT_CU(cuArrayCreate(&a2, &d2));
  EXPECT_EQ(free0 - FreeBytes(), 1024u * 512 * 4 * 4);
  CUDA_ARRAY_DESCRIPTOR got{};
  ASSERT_CU(cuArrayGetDescriptor(&got, a2));
  EXPECT_EQ(got.Width, 1024u);
  EXPECT_EQ(got.Height, 512u);
  EXPECT_EQ(got.Format, CU_AD_FORMAT_FLOAT);
  EXPECT_EQ(got.NumChannels, 4u);
  // 3D, two 16-bit channels.
  CUarray a3;
  const CUDA_ARRAY3D_DESCRIPTOR d3 = Desc3D(64, 64, 16, CU_AD_FORMAT_UNSIGNED_INT16, 2);
  ASSERT_CU(cuArray3DCreate(&a3, &d3));
  EXPECT_EQ(free0 - FreeBytes(), 1024u * 512 * 16 + 64 * 64 * 16 * 2 * 2);
  CUDA_ARRAY3D_DESCRIPTOR got3{};
  ASSERT_CU(cuArray3DGetDescriptor(&got3, a3));
  EXPECT_EQ(got3.Depth, 16u);
  EXPECT_EQ(got3.NumChannels, 2u);
  // 1D (Height 0) half, and a 1D layered array: a missing dimension counts 1.
  CUarray a1, layered;
  const CUDA_ARRAY3D_DESCRIPTOR d1 = Desc3D(1000, 0, 0, CU_AD_FORMAT_HALF, 1);
  const CUDA_ARRAY3D_DESCRIPTOR dl =
      Desc3D(1000, 0, 3, CU_AD_FORMAT_SIGNED_INT8, 2, CUDA_ARRAY3D_LAYERED);
  const size_t before1 = FreeBytes();
  ASSERT_CU(cuArray3DCreate(&a1, &d1));
  ASSERT_CU(cuArray3DCreate(&layered, &dl));
  EXPECT_EQ(before1 - FreeBytes(), 1000u * 2 + 1000 * 3 * 2);
  // The CUDA 2.x forms, with unsigned int dimensions.
  auto create_v1 =
      reinterpret_cast<CUresult (*)(CUarray*, const ArrayDescriptorV1*)>(Sym("cuArrayCreate"));
  auto create3d_v1 =
      reinterpret_cast<CUresult (*)(CUarray*, const Array3DDescriptorV1*)>(Sym("cuArray3DCreate"));
  ASSERT_NE(create_v1, nullptr);
  ASSERT_NE(create3d_v1, nullptr);
  const ArrayDescriptorV1 v1{256, 256, CU_AD_FORMAT_UNSIGNED_INT32, 1};
  const Array3DDescriptorV1 v1_3d{32, 32, 32, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0};
  CUarray b2, b3;
  const size_t before_v1 = FreeBytes();
  ASSERT_CU(create_v1(&b2, &v1));
  ASSERT_CU(create3d_v1(&b3, &v1_3d));
  EXPECT_EQ(before_v1 - FreeBytes(), 256u * 256 * 4 + 32 * 32 * 32 * 4);
  for (CUarray a : {a2, a3, a1, layered, b2, b3}) EXPECT_CU(cuArrayDestroy(a));
  EXPECT_EQ(FreeBytes(), free0);
  EXPECT_EQ(cuArrayDestroy(nullptr), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(ArrayLaunchTest, ArraysPastCapacityAreOutOfMemory) {
  const size_t free0 = FreeBytes();
  // 1 GiB x 4 channels x 4 bytes = 16 GiB on a 4 GiB device.
  const CUDA_ARRAY3D_DESCRIPTOR huge = Desc3D(1024, 1024, 1024, CU_AD_FORMAT_FLOAT, 4);
  CUarray a = nullptr;
  EXPECT_EQ(cuArray3DCreate(&a, &huge), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(FreeBytes(), free0);
  // 3 GiB fits; another 3 GiB does not.
  const CUDA_ARRAY3D_DESCRIPTOR big = Desc3D(1024, 1024, 768, CU_AD_FORMAT_FLOAT, 1);
  ASSERT_CU(cuArray3DCreate(&a, &big));
  EXPECT_EQ(free0 - FreeBytes(), 3ULL << 30);
  CUarray b = nullptr;
  EXPECT_EQ(cuArray3DCreate(&b, &big), CUDA_ERROR_OUT_OF_MEMORY);
  CUmipmappedArray m = nullptr;
  EXPECT_EQ(cuMipmappedArrayCreate(&m, &big, 2), CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_CU(cuArrayDestroy(a));
  EXPECT_EQ(FreeBytes(), free0);
}

TEST_F(ArrayLaunchTest, InvalidArrayDescriptorsAreRejected) {
  const size_t free0 = FreeBytes();
  CUarray a = nullptr;
  auto create = [&](CUDA_ARRAY3D_DESCRIPTOR d) { return cuArray3DCreate(&a, &d); };
  const CUarray_format f = CU_AD_FORMAT_FLOAT;
  EXPECT_EQ(create(Desc3D(0, 4, 0, f, 1)), CUDA_ERROR_INVALID_VALUE);  // no width
  EXPECT_EQ(create(Desc3D(4, 4, 0, static_cast<CUarray_format>(0x7), 1)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(create(Desc3D(4, 4, 0, CU_AD_FORMAT_NV12, 1)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(create(Desc3D(4, 4, 0, f, 3)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(create(Desc3D(4, 4, 0, f, 0)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(create(Desc3D(4, 0, 4, f, 1)), CUDA_ERROR_INVALID_VALUE);  // depth, no height
  EXPECT_EQ(create(Desc3D(4, 4, 0, f, 1, 0x10000)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(create(Desc3D(4, 4, 0, f, 1, CUDA_ARRAY3D_LAYERED)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(create(Desc3D(4, 8, 6, f, 1, CUDA_ARRAY3D_CUBEMAP)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(create(Desc3D(4, 4, 5, f, 1, CUDA_ARRAY3D_CUBEMAP)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(create(Desc3D(4, 4, 0, f, 1, CUDA_ARRAY3D_SPARSE)), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(cuArray3DCreate(&a, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuArrayCreate(&a, nullptr), CUDA_ERROR_INVALID_VALUE);
  CUDA_ARRAY_DESCRIPTOR d2{};
  d2.Width = 4;
  d2.Format = CU_AD_FORMAT_SIGNED_INT32;
  d2.NumChannels = 4;
  EXPECT_EQ(cuArrayCreate(nullptr, &d2), CUDA_ERROR_INVALID_VALUE);
  // A six-face cubemap is valid.
  ASSERT_CU(create(Desc3D(16, 16, 6, f, 1, CUDA_ARRAY3D_CUBEMAP)));
  EXPECT_CU(cuArrayDestroy(a));
  EXPECT_EQ(FreeBytes(), free0);
  // Without a current context there is no device to put it on.
  ASSERT_CU(cuCtxSetCurrent(nullptr));
  EXPECT_EQ(cuArrayCreate(&a, &d2), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_CU(cuCtxSetCurrent(ctx_));
}

TEST_F(ArrayLaunchTest, MipmappedArraysTakeTheSumOfTheirLevels) {
  const size_t free0 = FreeBytes();
  // 256 x 128 floats: 9 levels, down to 1 x 1.
  const CUDA_ARRAY3D_DESCRIPTOR d = Desc3D(256, 128, 0, CU_AD_FORMAT_FLOAT, 1);
  CUmipmappedArray m;
  ASSERT_CU(cuMipmappedArrayCreate(&m, &d, 9));
  const size_t texels = 256 * 128 + 128 * 64 + 64 * 32 + 32 * 16 + 16 * 8 + 8 * 4 + 4 * 2 + 2 + 1;
  EXPECT_EQ(free0 - FreeBytes(), texels * 4);
  ASSERT_CU(cuMipmappedArrayDestroy(m));
  EXPECT_EQ(FreeBytes(), free0);
  EXPECT_EQ(cuMipmappedArrayCreate(&m, &d, 10), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMipmappedArrayCreate(&m, &d, 0), CUDA_ERROR_INVALID_VALUE);
  // 3D: every dimension halves; 2 levels of 64 x 32 x 16 half2.
  const CUDA_ARRAY3D_DESCRIPTOR d3 = Desc3D(64, 32, 16, CU_AD_FORMAT_HALF, 2);
  ASSERT_CU(cuMipmappedArrayCreate(&m, &d3, 2));
  EXPECT_EQ(free0 - FreeBytes(), (64u * 32 * 16 + 32 * 16 * 8) * 4);
  ASSERT_CU(cuMipmappedArrayDestroy(m));
  // Layered: the layer count does not halve, and does not bound the levels.
  const CUDA_ARRAY3D_DESCRIPTOR dl =
      Desc3D(8, 8, 64, CU_AD_FORMAT_UNSIGNED_INT8, 1, CUDA_ARRAY3D_LAYERED);
  EXPECT_EQ(cuMipmappedArrayCreate(&m, &dl, 5), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMipmappedArrayCreate(&m, &dl, 4));
  EXPECT_EQ(free0 - FreeBytes(), (64u + 16 + 4 + 1) * 64);
  ASSERT_CU(cuMipmappedArrayDestroy(m));
  EXPECT_EQ(FreeBytes(), free0);
  EXPECT_EQ(cuMipmappedArrayDestroy(nullptr), CUDA_ERROR_INVALID_HANDLE);
}

// ---- Legacy launches -------------------------------------------------------

TEST_F(ArrayLaunchTest, LegacyLaunchesNeedABlockShapeAndTakeTheirTime) {
  // A real driver fails a launch with no block shape.
  EXPECT_EQ(cuLaunchGrid(k20_, 80, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunch(k20_), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuFuncSetBlockShape(k20_, 0, 1, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuFuncSetBlockShape(nullptr, 32, 1, 1), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuFuncSetBlockShape(k20_, 16, 16, 1));
  ASSERT_CU(cuFuncSetSharedSize(k20_, 1024));
  // Parameters are checked and kept.
  ASSERT_CU(cuParamSetSize(k20_, 16));
  ASSERT_CU(cuParamSeti(k20_, 0, 7));
  ASSERT_CU(cuParamSetf(k20_, 4, 1.5f));
  uint64_t value = 42;
  ASSERT_CU(cuParamSetv(k20_, 8, &value, sizeof(value)));
  EXPECT_EQ(cuParamSeti(k20_, -4, 7), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuParamSeti(k20_, 4094, 7), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuParamSetv(k20_, 0, nullptr, 8), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuParamSetSize(k20_, 8192), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuParamSeti(nullptr, 0, 7), CUDA_ERROR_INVALID_HANDLE);
  // Each runs for the kernel's simulated time: on the NULL stream, or the given one.
  ExpectSpan(TimedMs(nullptr, [&] { EXPECT_CU(cuLaunchGrid(k20_, 80, 2)); }), 20.0);
  ExpectSpan(TimedMs(nullptr, [&] { EXPECT_CU(cuLaunch(k20_)); }), 20.0);
  ExpectSpan(TimedMs(s_, [&] { EXPECT_CU(cuLaunchGridAsync(k20_, 80, 2, s_)); }), 20.0);
  EXPECT_EQ(cuLaunchGrid(k20_, 0, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchGrid(k20_, -1, 1), CUDA_ERROR_INVALID_VALUE);
  // Past 1024 threads per block the launch fails, as cuLaunchKernel's does.
  ASSERT_CU(cuFuncSetBlockShape(k20_, 64, 32, 1));
  EXPECT_EQ(cuLaunchGrid(k20_, 1, 1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuFuncSetBlockShape(k20_, 256, 1, 1));
  // Captured like any launch: the graph runs it.
  ASSERT_CU(cuStreamBeginCapture(s_, CU_STREAM_CAPTURE_MODE_GLOBAL));
  ASSERT_CU(cuLaunchGridAsync(k20_, 160, 1, s_));
  CUgraph g = nullptr;
  ASSERT_CU(cuStreamEndCapture(s_, &g));
  CUgraphExec exec;
  ASSERT_CU(cuGraphInstantiateWithFlags(&exec, g, 0));
  ExpectSpan(TimedMs(s_, [&] { EXPECT_CU(cuGraphLaunch(exec, s_)); }), 20.0);
  EXPECT_CU(cuGraphExecDestroy(exec));
  EXPECT_CU(cuGraphDestroy(g));
}

// ---- Multi-device cooperative launch ---------------------------------------

TEST_F(ArrayLaunchTest, MultiDeviceCooperativeLaunchRunsOnEachDevice) {
  int supported = 0;
  ASSERT_CU(
      cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, 1));
  EXPECT_EQ(supported, 1);
  // A library's kernel has no context: one handle serves both devices.
  CUlibrary lib;
  ASSERT_CU(cuLibraryLoadData(&lib, kImage, nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kernel;
  ASSERT_CU(cuLibraryGetKernel(&kernel, lib, "k20ms"));
  CUstream s1;
  CUevent start0, stop0, start1, stop1;  // around the launch on each device
  ASSERT_CU(cuEventCreate(&start0, 0));
  ASSERT_CU(cuEventCreate(&stop0, 0));
  ASSERT_CU(cuCtxSetCurrent(ctx1_));
  ASSERT_CU(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
  ASSERT_CU(cuEventCreate(&start1, 0));
  ASSERT_CU(cuEventCreate(&stop1, 0));
  ASSERT_CU(cuCtxSetCurrent(ctx_));

  // 320 blocks of 256 threads: co-resident on 40 SMs (8 per SM) and on 80.
  auto params = [&](CUstream s) {
    CUDA_LAUNCH_PARAMS p{};
    p.function = reinterpret_cast<CUfunction>(kernel);
    p.gridDimX = 320;
    p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 256;
    p.blockDimY = p.blockDimZ = 1;
    p.hStream = s;
    return p;
  };
  std::vector<CUDA_LAUNCH_PARAMS> list = {params(s_), params(s1)};
  const auto queued_from = std::chrono::steady_clock::now();
  ASSERT_CU(cuEventRecord(start0, s_));
  ASSERT_CU(cuEventRecord(start1, s1));
  ASSERT_CU(cuLaunchCooperativeKernelMultiDevice(list.data(), 2, 0));
  ASSERT_CU(cuEventRecord(stop0, s_));
  ASSERT_CU(cuEventRecord(stop1, s1));
  simgpu_test::Span on0, on1;
  on0.queued_ms = on1.queued_ms = simgpu_test::HostMsSince(queued_from);
  ASSERT_CU(cuEventSynchronize(stop0));
  ASSERT_CU(cuEventSynchronize(stop1));
  ASSERT_CU(cuEventElapsedTime(&on0.ms, start0, stop0));
  ASSERT_CU(cuEventElapsedTime(&on1.ms, start1, stop1));
  ExpectSpan(on0, 20.0);
  ExpectSpan(on1, 20.0);
  EXPECT_CU(cuLaunchCooperativeKernelMultiDevice(
      list.data(), 2,
      CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC |
          CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_POST_LAUNCH_SYNC));
  EXPECT_CU(cuLaunchCooperativeKernelMultiDevice(list.data(), 1, 0));

  // Rejected before anything runs.
  auto launch = [&] { return cuLaunchCooperativeKernelMultiDevice(list.data(), 2, 0); };
  list[1].gridDimX = 160;  // grids must match
  EXPECT_EQ(launch(), CUDA_ERROR_INVALID_VALUE);
  list[1] = params(s1);
  list[1].blockDimX = 128;
  EXPECT_EQ(launch(), CUDA_ERROR_INVALID_VALUE);
  list[1] = params(s_);  // one device twice
  EXPECT_EQ(launch(), CUDA_ERROR_INVALID_VALUE);
  list[1] = params(nullptr);  // default streams cannot say which device
  EXPECT_EQ(launch(), CUDA_ERROR_INVALID_VALUE);
  list[1] = params(CU_STREAM_PER_THREAD);
  EXPECT_EQ(launch(), CUDA_ERROR_INVALID_VALUE);
  list[1] = params(s1);
  list[1].function = nullptr;
  EXPECT_EQ(launch(), CUDA_ERROR_INVALID_HANDLE);
  list[1].function = k20_;  // a function of device 0's context, on device 1
  EXPECT_EQ(launch(), CUDA_ERROR_INVALID_CONTEXT);
  list[1] = params(s1);
  // 400 blocks fit device 0 (640) but not device 1 (320).
  list[0].gridDimX = list[1].gridDimX = 400;
  EXPECT_EQ(launch(), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  list[0] = params(s_);
  list[1] = params(s1);
  EXPECT_EQ(cuLaunchCooperativeKernelMultiDevice(nullptr, 2, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchCooperativeKernelMultiDevice(list.data(), 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchCooperativeKernelMultiDevice(list.data(), 2, 0x4), CUDA_ERROR_INVALID_VALUE);

  ASSERT_CU(cuCtxSetCurrent(ctx1_));
  EXPECT_CU(cuCtxSynchronize());
  EXPECT_CU(cuEventDestroy(start1));
  EXPECT_CU(cuEventDestroy(stop1));
  EXPECT_CU(cuStreamDestroy(s1));
  ASSERT_CU(cuCtxSetCurrent(ctx_));
  EXPECT_CU(cuCtxSynchronize());
  EXPECT_CU(cuEventDestroy(start0));
  EXPECT_CU(cuEventDestroy(stop0));
  EXPECT_CU(cuLibraryUnload(lib));
}

// ---- Graph memory nodes ----------------------------------------------------

TEST_F(ArrayLaunchTest, GraphAllocationsTakeMemoryAtAddAndGiveItBackAtFreeOrDestroy) {
  const size_t free0 = FreeBytes();
  CUgraph g;
  ASSERT_CU(cuGraphCreate(&g, 0));
  CUDA_MEM_ALLOC_NODE_PARAMS p = AllocParams(64 * kMiB);
  CUgraphNode alloc_node, free_node;
  ASSERT_CU(cuGraphAddMemAllocNode(&alloc_node, g, nullptr, 0, &p));
  ASSERT_NE(p.dptr, 0u);
  EXPECT_EQ(free0 - FreeBytes(), 64 * kMiB);
  CUDA_MEM_ALLOC_NODE_PARAMS got{};
  ASSERT_CU(cuGraphMemAllocNodeGetParams(alloc_node, &got));
  EXPECT_EQ(got.bytesize, 64 * kMiB);
  EXPECT_EQ(got.dptr, p.dptr);
  EXPECT_EQ(got.poolProps.location.id, 0);
  // The memory is usable at its address.
  std::vector<int> in(256, 5), out(256, 0);
  ASSERT_CU(cuMemcpyHtoD(p.dptr, in.data(), in.size() * sizeof(int)));
  ASSERT_CU(cuMemcpyDtoH(out.data(), p.dptr, out.size() * sizeof(int)));
  EXPECT_EQ(in, out);
  // Freed once per graph, and only a graph allocation.
  ASSERT_CU(cuGraphAddMemFreeNode(&free_node, g, &alloc_node, 1, p.dptr));
  EXPECT_EQ(cuGraphAddMemFreeNode(&free_node, g, &alloc_node, 1, p.dptr), CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr plain;
  ASSERT_CU(cuMemAlloc(&plain, kMiB));
  EXPECT_EQ(cuGraphAddMemFreeNode(&free_node, g, nullptr, 0, plain), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphAddMemFreeNode(&free_node, g, nullptr, 1, p.dptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphMemAllocNodeGetParams(free_node, &got), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemFree(plain));
  // Launching it does no memory work.
  const size_t held = FreeBytes();
  CUgraphExec exec;
  ASSERT_CU(cuGraphInstantiateWithFlags(&exec, g, 0));
  ASSERT_CU(cuGraphLaunch(exec, s_));
  ASSERT_CU(cuStreamSynchronize(s_));
  EXPECT_EQ(FreeBytes(), held);
  EXPECT_CU(cuGraphExecDestroy(exec));
  // Destroying the graph that allocates and frees gives the memory back.
  ASSERT_CU(cuGraphDestroy(g));
  EXPECT_EQ(FreeBytes(), free0);

  // A graph with the allocation alone: cuMemFree gives it back, and destroying
  // the graph later does not free it twice.
  ASSERT_CU(cuGraphCreate(&g, 0));
  p = AllocParams(32 * kMiB);
  ASSERT_CU(cuGraphAddMemAllocNode(&alloc_node, g, nullptr, 0, &p));
  EXPECT_EQ(free0 - FreeBytes(), 32 * kMiB);
  ASSERT_CU(cuMemFree(p.dptr));
  EXPECT_EQ(FreeBytes(), free0);
  ASSERT_CU(cuGraphDestroy(g));
  EXPECT_EQ(FreeBytes(), free0);

  // cuMemFreeAsync too; a free node whose allocation was freed already frees
  // nothing at destroy, even an allocation made since at the same address.
  ASSERT_CU(cuGraphCreate(&g, 0));
  p = AllocParams(16 * kMiB);
  ASSERT_CU(cuGraphAddMemAllocNode(&alloc_node, g, nullptr, 0, &p));
  ASSERT_CU(cuGraphAddMemFreeNode(&free_node, g, &alloc_node, 1, p.dptr));
  ASSERT_CU(cuMemFreeAsync(p.dptr, s_));
  EXPECT_EQ(FreeBytes(), free0);
  ASSERT_CU(cuMemAlloc(&plain, 16 * kMiB));
  ASSERT_CU(cuGraphDestroy(g));
  EXPECT_EQ(free0 - FreeBytes(), 16 * kMiB);
  ASSERT_CU(cuMemFree(plain));
  EXPECT_EQ(FreeBytes(), free0);
}

TEST_F(ArrayLaunchTest, GraphAllocationsAreCheckedAndAccountedOnTheirDevice) {
  const size_t free0 = FreeBytes();
  CUgraph g;
  ASSERT_CU(cuGraphCreate(&g, 0));
  EXPECT_EQ(cuGraphCreate(&g, 1), CUDA_ERROR_INVALID_VALUE);
  CUgraphNode node;
  CUDA_MEM_ALLOC_NODE_PARAMS p = AllocParams(8ULL << 30);  // past the 4 GiB device
  EXPECT_EQ(cuGraphAddMemAllocNode(&node, g, nullptr, 0, &p), CUDA_ERROR_OUT_OF_MEMORY);
  p = AllocParams(0);
  EXPECT_EQ(cuGraphAddMemAllocNode(&node, g, nullptr, 0, &p), CUDA_ERROR_INVALID_VALUE);
  p = AllocParams(kMiB, 5);
  EXPECT_EQ(cuGraphAddMemAllocNode(&node, g, nullptr, 0, &p), CUDA_ERROR_INVALID_VALUE);
  p = AllocParams(kMiB);
  p.poolProps.location.type = CU_MEM_LOCATION_TYPE_HOST;
  EXPECT_EQ(cuGraphAddMemAllocNode(&node, g, nullptr, 0, &p), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphAddMemAllocNode(&node, g, nullptr, 0, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(FreeBytes(), free0);

  // On device 1, through cuGraphAddNode: device 1's memory moves, not device 0's.
  ASSERT_CU(cuCtxSetCurrent(ctx1_));
  const size_t free1 = FreeBytes();
  CUgraphNodeParams np{};
  np.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
  np.alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  np.alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  np.alloc.poolProps.location.id = 1;
  np.alloc.bytesize = 128 * kMiB;
  CUgraphNode alloc_node;
  ASSERT_CU(cuGraphAddNode(&alloc_node, g, nullptr, nullptr, 0, &np));
  ASSERT_NE(np.alloc.dptr, 0u);
  EXPECT_EQ(free1 - FreeBytes(), 128 * kMiB);
  CUgraphNodeParams fp{};
  fp.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
  fp.free.dptr = np.alloc.dptr;
  ASSERT_CU(cuGraphAddNode(&node, g, &alloc_node, nullptr, 1, &fp));
  CUgraphNodeParams kp{};
  kp.type = CU_GRAPH_NODE_TYPE_KERNEL;
  EXPECT_EQ(cuGraphAddNode(&node, g, nullptr, nullptr, 0, &kp), CUDA_ERROR_NOT_SUPPORTED);
  ASSERT_CU(cuCtxSetCurrent(ctx_));
  EXPECT_EQ(FreeBytes(), free0);
  ASSERT_CU(cuGraphDestroy(g));
  ASSERT_CU(cuCtxSetCurrent(ctx1_));
  EXPECT_EQ(FreeBytes(), free1);
  ASSERT_CU(cuCtxSetCurrent(ctx_));
}

TEST_F(ArrayLaunchTest, ProcAddressGivesTheNewEntryPoints) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status;
  auto lookup = [&](const char* name, int version) {
    fn = nullptr;
    EXPECT_CU(cuGetProcAddress_v2(name, &fn, version, 0, &status)) << name;
    return fn;
  };
  EXPECT_EQ(lookup("cuArrayCreate", 12000), Sym("cuArrayCreate_v2"));
  EXPECT_EQ(lookup("cuArrayCreate", 3000), Sym("cuArrayCreate"));
  EXPECT_EQ(lookup("cuArray3DCreate", 12000), Sym("cuArray3DCreate_v2"));
  EXPECT_EQ(lookup("cuArrayDestroy", 12000), Sym("cuArrayDestroy"));
  EXPECT_EQ(lookup("cuMipmappedArrayCreate", 12000), Sym("cuMipmappedArrayCreate"));
  EXPECT_EQ(lookup("cuLaunchGrid", 12000), Sym("cuLaunchGrid"));
  EXPECT_EQ(lookup("cuFuncSetBlockShape", 12000), Sym("cuFuncSetBlockShape"));
  EXPECT_EQ(lookup("cuLaunchCooperativeKernelMultiDevice", 12000),
            Sym("cuLaunchCooperativeKernelMultiDevice"));
  EXPECT_EQ(lookup("cuGraphAddMemAllocNode", 12000), Sym("cuGraphAddMemAllocNode"));
  EXPECT_EQ(lookup("cuGraphAddNode", 12020), Sym("cuGraphAddNode"));
  EXPECT_EQ(lookup("cuGraphAddNode", 12080), Sym("cuGraphAddNode_v2"));
}

}  // namespace
