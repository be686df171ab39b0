// The simulated driver's cooperative launches, stream capture and graphs,
// pitched / managed / stream-ordered / virtual memory and libraries, through
// the exported API as a program linked against libcuda.so.1 sees it.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tests/simgpu/driver/driver_test_support.h"

namespace {

using simgpu_test::ExpectSpan;
using simgpu_test::FreeBytes;
using simgpu_test::TimedMs;

constexpr size_t kMiB = 1 << 20;

const char kImage[] =
    "simgpu-module 1\n"
    "kernel k20ms fixed_us=20000 mem=0.1\n"
    "kernel k1ms fixed_us=1000 mem=0.9\n";

void* Sym(const char* name) { return dlsym(RTLD_DEFAULT, name); }

// The entry point cuGetProcAddress gives for `name`, as type T.
template <typename T>
T Proc(const char* name, int version, cuuint64_t flags = CU_GET_PROC_ADDRESS_DEFAULT) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status;
  EXPECT_EQ(cuGetProcAddress_v2(name, &fn, version, flags, &status), CUDA_SUCCESS) << name;
  return reinterpret_cast<T>(fn);
}

class GraphMemoryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_CU(cuInit(0));
    ASSERT_CU(cuDevicePrimaryCtxRetain(&ctx_, 0));
  }
  void SetUp() override {
    ASSERT_CU(cuCtxSetCurrent(ctx_));
    ASSERT_CU(cuModuleLoadData(&module_, kImage));
    ASSERT_CU(cuModuleGetFunction(&k20_, module_, "k20ms"));
    ASSERT_CU(cuModuleGetFunction(&k1_, module_, "k1ms"));
    ASSERT_CU(cuStreamCreate(&s_, CU_STREAM_NON_BLOCKING));
  }
  void TearDown() override {
    EXPECT_CU(cuStreamDestroy(s_));
    EXPECT_CU(cuModuleUnload(module_));
  }

  // A launch of `blocks` blocks of 256 threads (device 0 has 80 SMs).
  static CUresult Launch(CUfunction f, CUstream s, unsigned blocks = 160) {
    return cuLaunchKernel(f, blocks, 1, 1, 256, 1, 1, 0, s, nullptr, nullptr);
  }

  // A graph of `kernels` launches of `f`, captured on s_.
  CUgraph Capture(CUfunction f, int kernels) {
    EXPECT_CU(cuStreamBeginCapture(s_, CU_STREAM_CAPTURE_MODE_GLOBAL));
    for (int i = 0; i < kernels; ++i) EXPECT_CU(Launch(f, s_));
    CUgraph g = nullptr;
    EXPECT_CU(cuStreamEndCapture(s_, &g));
    return g;
  }

  static inline CUcontext ctx_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction k20_ = nullptr, k1_ = nullptr;
  CUstream s_ = nullptr;
};

// ---- Cooperative launch ----------------------------------------------------

TEST_F(GraphMemoryTest, CooperativeGridMustBeCoResident) {
  // At most min(32, 2048 / threads) blocks per SM, on 80 SMs, as the device reports.
  int per_sm = 0, threads_per_sm = 0, cooperative = 0;
  ASSERT_CU(cuDeviceGetAttribute(&per_sm, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 0));
  ASSERT_CU(
      cuDeviceGetAttribute(&threads_per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 0));
  ASSERT_CU(cuDeviceGetAttribute(&cooperative, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0));
  EXPECT_EQ(per_sm, 32);
  EXPECT_EQ(threads_per_sm, 2048);
  EXPECT_EQ(cooperative, 1);
  auto coop = [&](unsigned gx, unsigned gy, unsigned threads) {
    return cuLaunchCooperativeKernel(k1_, gx, gy, 1, threads, 1, 1, 0, s_, nullptr);
  };
  EXPECT_CU(coop(640, 1, 256));
  EXPECT_EQ(coop(641, 1, 256), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  EXPECT_CU(coop(80, 8, 256));
  EXPECT_EQ(coop(81, 8, 256), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  EXPECT_CU(coop(160, 1, 1024));
  EXPECT_EQ(coop(161, 1, 1024), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  EXPECT_CU(coop(2560, 1, 32));
  EXPECT_EQ(coop(2561, 1, 32), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  EXPECT_EQ(coop(0, 1, 256), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchCooperativeKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, s_, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  // The same limit through cuLaunchKernelEx's cooperative attribute.
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attr.value.cooperative = 1;
  CUlaunchConfig config{};
  config.gridDimX = 641;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 256;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = s_;
  config.attrs = &attr;
  config.numAttrs = 1;
  EXPECT_EQ(cuLaunchKernelEx(&config, k1_, nullptr, nullptr),
            CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  attr.value.cooperative = 0;
  EXPECT_CU(cuLaunchKernelEx(&config, k1_, nullptr, nullptr));
  config.attrs = nullptr;
  EXPECT_EQ(cuLaunchKernelEx(&config, k1_, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamSynchronize(s_));
  // A cooperative kernel takes its modelled time.
  ExpectSpan(
      TimedMs(s_,
              [&] {
                EXPECT_CU(cuLaunchCooperativeKernel(k20_, 640, 1, 1, 256, 1, 1, 0, s_, nullptr));
              }),
      20.0);
  // The per-thread variant runs on this thread's default stream.
  auto coop_ptsz = Proc<PFN_cuLaunchCooperativeKernel_v9000>(
      "cuLaunchCooperativeKernel", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  EXPECT_CU(coop_ptsz(k1_, 640, 1, 1, 256, 1, 1, 0, nullptr, nullptr));
  EXPECT_EQ(coop_ptsz(k1_, 641, 1, 1, 256, 1, 1, 0, nullptr, nullptr),
            CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  ASSERT_CU(cuCtxSynchronize());
}

// ---- Stream capture and graphs ---------------------------------------------

TEST_F(GraphMemoryTest, CapturedLaunchesRunWhenTheGraphIsLaunched) {
  ASSERT_CU(cuStreamBeginCapture(s_, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CUstreamCaptureStatus status;
  ASSERT_CU(cuStreamIsCapturing(s_, &status));
  EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
  cuuint64_t id = 0;
  CUgraph capturing = nullptr;
  const CUgraphNode* deps = nullptr;
  const CUgraphEdgeData* edges = nullptr;
  size_t num_deps = 99;
  ASSERT_CU(cuStreamGetCaptureInfo(s_, &status, &id, &capturing, &deps, &edges, &num_deps));
  EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
  EXPECT_NE(id, 0u);
  EXPECT_NE(capturing, nullptr);
  EXPECT_EQ(num_deps, 0u);
  // Every launch entry point is captured, not run.
  ASSERT_CU(Launch(k20_, s_));
  ASSERT_CU(Launch(k20_, s_));
  CUlaunchConfig config{};
  config.gridDimX = 160;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 256;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = s_;
  ASSERT_CU(cuLaunchKernelEx(&config, k20_, nullptr, nullptr));
  ASSERT_CU(cuLaunchCooperativeKernel(k20_, 160, 1, 1, 256, 1, 1, 0, s_, nullptr));
  ASSERT_CU(cuStreamGetCaptureInfo(s_, &status, &id, nullptr, &deps, &edges, &num_deps));
  ASSERT_EQ(num_deps, 1u);
  EXPECT_NE(deps[0], nullptr);  // the chain's last node
  EXPECT_EQ(edges, nullptr);    // default edges
  // A graph being captured can be neither instantiated nor destroyed.
  CUgraphExec early;
  EXPECT_EQ(cuGraphInstantiate(&early, capturing, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphDestroy(capturing), CUDA_ERROR_INVALID_VALUE);
  CUgraph graph = nullptr;
  ASSERT_CU(cuStreamEndCapture(s_, &graph));
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph, capturing);
  ASSERT_CU(cuStreamIsCapturing(s_, &status));
  EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_NONE);
  EXPECT_CU(cuStreamQuery(s_));  // nothing was queued
  CUgraphExec exec = nullptr;
  ASSERT_CU(cuGraphInstantiate(&exec, graph, 0));
  // The instantiated copy outlives its graph.
  ASSERT_CU(cuGraphDestroy(graph));
  ExpectSpan(TimedMs(s_, [&] { EXPECT_CU(cuGraphLaunch(exec, s_)); }), 80.0);
  ExpectSpan(TimedMs(s_,
                     [&] {
                       EXPECT_CU(cuGraphLaunch(exec, s_));
                       EXPECT_CU(cuGraphLaunch(exec, s_));
                     }),
             160.0);
  EXPECT_EQ(cuGraphLaunch(nullptr, s_), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuGraphExecDestroy(exec));
}

TEST_F(GraphMemoryTest, CaptureRulesAndInvalidation) {
  EXPECT_EQ(cuStreamBeginCapture(nullptr, CU_STREAM_CAPTURE_MODE_GLOBAL),
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);  // the legacy stream
  EXPECT_EQ(cuStreamBeginCapture(CU_STREAM_LEGACY, CU_STREAM_CAPTURE_MODE_GLOBAL),
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(cuStreamBeginCapture(s_, static_cast<CUstreamCaptureMode>(7)),
            CUDA_ERROR_INVALID_VALUE);
  CUgraph g = nullptr;
  EXPECT_EQ(cuStreamEndCapture(s_, &g), CUDA_ERROR_ILLEGAL_STATE);
  EXPECT_EQ(cuStreamEndCapture(s_, nullptr), CUDA_ERROR_INVALID_VALUE);
  CUstreamCaptureStatus status;
  EXPECT_EQ(cuStreamIsCapturing(s_, nullptr), CUDA_ERROR_INVALID_VALUE);

  // Synchronising a capturing stream is an error that invalidates the capture.
  ASSERT_CU(cuStreamBeginCapture(s_, CU_STREAM_CAPTURE_MODE_GLOBAL));
  EXPECT_EQ(cuStreamBeginCapture(s_, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_ILLEGAL_STATE);
  ASSERT_CU(Launch(k20_, s_));
  EXPECT_EQ(cuStreamSynchronize(s_), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  ASSERT_CU(cuStreamIsCapturing(s_, &status));
  EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  EXPECT_EQ(Launch(k20_, s_), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  g = reinterpret_cast<CUgraph>(&status);
  EXPECT_EQ(cuStreamEndCapture(s_, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(g, nullptr);
  EXPECT_CU(cuStreamQuery(s_));  // nothing ran; the stream works again
  ASSERT_CU(Launch(k1_, s_));
  ASSERT_CU(cuStreamSynchronize(s_));

  // So do a query, a copy, a context synchronisation and a stream-ordered allocation.
  CUdeviceptr p;
  ASSERT_CU(cuMemAlloc(&p, 4096));
  char buf[64] = {};
  const std::vector<std::function<CUresult()>> illegal = {
      [&] { return cuStreamQuery(s_); },
      [&] { return cuMemcpyHtoDAsync(p, buf, sizeof(buf), s_); },
      [&] { return cuCtxSynchronize(); },
      [&] {
        CUdeviceptr q;
        return cuMemAllocAsync(&q, 4096, s_);
      },
      [&] { return cuMemFreeAsync(p, s_); },
  };
  for (size_t i = 0; i < illegal.size(); ++i) {
    ASSERT_CU(cuStreamBeginCapture(s_, CU_STREAM_CAPTURE_MODE_RELAXED));
    EXPECT_EQ(illegal[i](), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) << "call " << i;
    EXPECT_EQ(cuStreamEndCapture(s_, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) << "call " << i;
  }
  ASSERT_CU(cuMemFree(p));

  // Outside relaxed mode, the capture must end on the thread that began it.
  ASSERT_CU(cuStreamBeginCapture(s_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  std::thread([&] {
    EXPECT_EQ(cuStreamEndCapture(s_, &g), CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
  }).join();
  ASSERT_CU(cuStreamEndCapture(s_, &g));
  ASSERT_CU(cuGraphDestroy(g));
  ASSERT_CU(cuStreamBeginCapture(s_, CU_STREAM_CAPTURE_MODE_RELAXED));
  std::thread([&] { EXPECT_CU(cuStreamEndCapture(s_, &g)); }).join();
  ASSERT_CU(cuGraphDestroy(g));

  // A stream destroyed mid-capture takes its capture with it.
  CUstream doomed;
  ASSERT_CU(cuStreamCreate(&doomed, 0));
  ASSERT_CU(cuStreamBeginCapture(doomed, CU_STREAM_CAPTURE_MODE_GLOBAL));
  ASSERT_CU(Launch(k20_, doomed));
  ASSERT_CU(cuStreamDestroy(doomed));
  ASSERT_CU(cuCtxSynchronize());
}

TEST_F(GraphMemoryTest, PerThreadStreamCapture) {
  auto begin = Proc<PFN_cuStreamBeginCapture_v10010_ptsz>(
      "cuStreamBeginCapture", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  auto end = Proc<PFN_cuStreamEndCapture_v10000_ptsz>(
      "cuStreamEndCapture", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  auto is_capturing = Proc<PFN_cuStreamIsCapturing_v10000_ptsz>(
      "cuStreamIsCapturing", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  auto launch = Proc<PFN_cuLaunchKernel_v7000_ptsz>("cuLaunchKernel", 12000,
                                                    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  auto graph_launch = Proc<PFN_cuGraphLaunch_v10000_ptsz>(
      "cuGraphLaunch", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  ASSERT_CU(begin(nullptr, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CUstreamCaptureStatus status;
  ASSERT_CU(is_capturing(nullptr, &status));
  EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
  ASSERT_CU(cuStreamIsCapturing(nullptr, &status));  // the legacy stream is not capturing
  EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_NONE);
  ASSERT_CU(launch(k20_, 160, 1, 1, 256, 1, 1, 0, nullptr, nullptr, nullptr));
  CUgraph g = nullptr;
  ASSERT_CU(end(nullptr, &g));
  CUgraphExec exec;
  ASSERT_CU(cuGraphInstantiate(&exec, g, 0));
  ExpectSpan(TimedMs(s_, [&] { EXPECT_CU(cuGraphLaunch(exec, s_)); }), 20.0);
  ASSERT_CU(graph_launch(exec, nullptr));
  ASSERT_CU(cuCtxSynchronize());
  ASSERT_CU(cuGraphExecDestroy(exec));
  ASSERT_CU(cuGraphDestroy(g));
}

TEST_F(GraphMemoryTest, EventRecordsDuringCapture) {
  CUevent start, stop, marker;
  ASSERT_CU(cuEventCreate(&start, 0));
  ASSERT_CU(cuEventCreate(&stop, 0));
  ASSERT_CU(cuEventCreate(&marker, 0));
  // CU_EVENT_RECORD_EXTERNAL is only valid during capture.
  EXPECT_EQ(cuEventRecordWithFlags(start, s_, CU_EVENT_RECORD_EXTERNAL), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuEventRecordWithFlags(start, s_, 2), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamBeginCapture(s_, CU_STREAM_CAPTURE_MODE_GLOBAL));
  // A plain record marks a capture point: the event cannot be waited on.
  ASSERT_CU(cuEventRecord(marker, s_));
  EXPECT_EQ(cuEventQuery(marker), CUDA_ERROR_CAPTURED_EVENT);
  EXPECT_EQ(cuEventSynchronize(marker), CUDA_ERROR_CAPTURED_EVENT);
  // External records become nodes that record the events when the graph runs.
  ASSERT_CU(cuEventRecordWithFlags(start, s_, CU_EVENT_RECORD_EXTERNAL));
  ASSERT_CU(Launch(k20_, s_));
  ASSERT_CU(Launch(k20_, s_));
  ASSERT_CU(cuEventRecordWithFlags(stop, s_, CU_EVENT_RECORD_EXTERNAL));
  CUgraph g = nullptr;
  ASSERT_CU(cuStreamEndCapture(s_, &g));
  CUgraphExec exec;
  ASSERT_CU(cuGraphInstantiate(&exec, g, 0));
  ASSERT_CU(cuGraphLaunch(exec, s_));
  ASSERT_CU(cuEventSynchronize(stop));
  float ms = 0;
  ASSERT_CU(cuEventElapsedTime(&ms, start, stop));
  EXPECT_NEAR(ms, 40.0, 1.0);
  // An ordinary record makes the marker an ordinary event again.
  EXPECT_EQ(cuEventElapsedTime(&ms, start, marker), CUDA_ERROR_CAPTURED_EVENT);
  ASSERT_CU(cuEventRecordWithFlags(marker, s_, CU_EVENT_RECORD_DEFAULT));
  ASSERT_CU(cuEventSynchronize(marker));
  EXPECT_CU(cuEventQuery(marker));
  ASSERT_CU(cuGraphExecDestroy(exec));
  ASSERT_CU(cuGraphDestroy(g));
  for (CUevent e : {start, stop, marker}) ASSERT_CU(cuEventDestroy(e));
}

TEST_F(GraphMemoryTest, InstantiateVariantsAndGraphsInCaptures) {
  CUgraph g = Capture(k1_, 1);
  ASSERT_NE(g, nullptr);
  // The CUDA 10 and 11 forms take an error node and a log buffer.
  using LegacyInstantiate = CUresult (*)(CUgraphExec*, CUgraph, CUgraphNode*, char*, size_t);
  auto v1 = Proc<LegacyInstantiate>("cuGraphInstantiate", 10000);
  auto v2 = Proc<LegacyInstantiate>("cuGraphInstantiate", 11000);
  EXPECT_EQ(reinterpret_cast<void*>(v1), Sym("cuGraphInstantiate"));
  EXPECT_EQ(reinterpret_cast<void*>(v2), Sym("cuGraphInstantiate_v2"));
  CUgraphExec e1 = nullptr, e2 = nullptr, e3 = nullptr;
  CUgraphNode error_node = reinterpret_cast<CUgraphNode>(&g);
  char log[64] = "";
  ASSERT_CU(v1(&e1, g, &error_node, log, sizeof(log)));
  ASSERT_CU(v2(&e2, g, nullptr, nullptr, 0));
  EXPECT_EQ(v2(&e3, nullptr, &error_node, log, sizeof(log)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(error_node, nullptr);
  EXPECT_NE(log[0], '\0');
  // The flags form, which CUDA 12 calls cuGraphInstantiate.
  EXPECT_EQ(cuGraphInstantiateWithFlags(&e3, g, CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphInstantiateWithFlags(&e3, g, 0x100), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphInstantiateWithFlags(&e3, g,
                                        CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
                                            CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphInstantiateWithFlags(nullptr, g, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuGraphInstantiateWithFlags(&e3, g, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
  // The params form, which may upload into a stream.
  CUDA_GRAPH_INSTANTIATE_PARAMS params{};
  params.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
  params.hUploadStream = s_;
  params.result_out = CUDA_GRAPH_INSTANTIATE_ERROR;
  CUgraphExec e4 = nullptr;
  ASSERT_CU(cuGraphInstantiateWithParams(&e4, g, &params));
  EXPECT_EQ(params.result_out, CUDA_GRAPH_INSTANTIATE_SUCCESS);
  EXPECT_EQ(params.hErrNode_out, nullptr);
  EXPECT_EQ(cuGraphInstantiateWithParams(&e4, g, nullptr), CUDA_ERROR_INVALID_VALUE);

  // A graph launched into a capturing stream joins the capture.
  ASSERT_CU(cuStreamBeginCapture(s_, CU_STREAM_CAPTURE_MODE_GLOBAL));
  ASSERT_CU(cuGraphLaunch(e1, s_));
  ASSERT_CU(Launch(k20_, s_));
  ASSERT_CU(cuGraphLaunch(e2, s_));
  CUgraph outer = nullptr;
  ASSERT_CU(cuStreamEndCapture(s_, &outer));
  EXPECT_CU(cuStreamQuery(s_));
  CUgraphExec outer_exec;
  ASSERT_CU(cuGraphInstantiate(&outer_exec, outer, 0));
  ExpectSpan(TimedMs(s_, [&] { EXPECT_CU(cuGraphLaunch(outer_exec, s_)); }), 22.0);

  // A graph runs only on its own device.
  CUcontext other;
  ASSERT_CU(cuCtxCreate(&other, nullptr, 0, 1));
  CUstream other_stream;
  ASSERT_CU(cuStreamCreate(&other_stream, 0));
  EXPECT_EQ(cuGraphLaunch(e1, other_stream), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuStreamDestroy(other_stream));
  ASSERT_CU(cuCtxDestroy(other));
  ASSERT_CU(cuCtxSetCurrent(ctx_));

  for (CUgraphExec e : {e1, e2, e3, e4, outer_exec}) ASSERT_CU(cuGraphExecDestroy(e));
  ASSERT_CU(cuGraphDestroy(g));
  ASSERT_CU(cuGraphDestroy(outer));
}

// ---- Memory ----------------------------------------------------------------

TEST_F(GraphMemoryTest, PitchedAllocationsRoundRowsTo512Bytes) {
  const size_t free0 = FreeBytes();
  CUdeviceptr p = 0;
  size_t pitch = 0;
  ASSERT_CU(cuMemAllocPitch(&p, &pitch, 100, 10, 4));
  EXPECT_EQ(pitch, 512u);
  EXPECT_EQ(free0 - FreeBytes(), 5120u);
  // Rows are addressable at the pitch.
  const char row[] = "last row";
  ASSERT_CU(cuMemcpyHtoD(p + 9 * pitch, row, sizeof(row)));
  char back[sizeof(row)] = {};
  ASSERT_CU(cuMemcpyDtoH(back, p + 9 * pitch, sizeof(back)));
  EXPECT_STREQ(back, row);
  ASSERT_CU(cuMemFree(p));
  EXPECT_EQ(FreeBytes(), free0);
  ASSERT_CU(cuMemAllocPitch(&p, &pitch, 512, 1, 16));
  EXPECT_EQ(pitch, 512u);
  ASSERT_CU(cuMemFree(p));
  ASSERT_CU(cuMemAllocPitch(&p, &pitch, 513, 2, 8));
  EXPECT_EQ(pitch, 1024u);
  ASSERT_CU(cuMemFree(p));
  for (unsigned element : {0u, 1u, 2u, 3u, 32u})
    EXPECT_EQ(cuMemAllocPitch(&p, &pitch, 100, 10, element), CUDA_ERROR_INVALID_VALUE) << element;
  EXPECT_EQ(cuMemAllocPitch(&p, &pitch, 0, 10, 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocPitch(&p, &pitch, 100, 0, 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocPitch(&p, nullptr, 100, 10, 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocPitch(&p, &pitch, 1 << 30, 8, 4), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(FreeBytes(), free0);
}

TEST_F(GraphMemoryTest, ManagedAndStreamOrderedAllocationsAreAccounted) {
  const size_t free0 = FreeBytes();
  CUdeviceptr m = 0, a = 0, b = 0;
  ASSERT_CU(cuMemAllocManaged(&m, 3 * kMiB, CU_MEM_ATTACH_GLOBAL));
  EXPECT_EQ(free0 - FreeBytes(), 3 * kMiB);
  EXPECT_EQ(cuMemAllocManaged(&m, kMiB, 0x10), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemAllocAsync(&a, 256 * kMiB, s_));
  EXPECT_EQ(free0 - FreeBytes(), 259 * kMiB);
  auto alloc_ptsz = Proc<PFN_cuMemAllocAsync_v11020_ptsz>(
      "cuMemAllocAsync", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  auto free_ptsz = Proc<PFN_cuMemFreeAsync_v11020_ptsz>(
      "cuMemFreeAsync", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  ASSERT_CU(alloc_ptsz(&b, kMiB, nullptr));
  EXPECT_EQ(free0 - FreeBytes(), 260 * kMiB);
  CUdeviceptr huge;
  EXPECT_EQ(cuMemAllocAsync(&huge, 4ULL << 30, s_), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(cuMemAllocAsync(&huge, 0, s_), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(free_ptsz(b, nullptr));
  ASSERT_CU(cuMemFreeAsync(a, s_));
  ASSERT_CU(cuMemFree(m));
  EXPECT_EQ(FreeBytes(), free0);
}

TEST_F(GraphMemoryTest, MemoryPools) {
  const size_t free0 = FreeBytes();
  CUmemoryPool def = nullptr, again = nullptr;
  ASSERT_CU(cuDeviceGetDefaultMemPool(&def, 0));
  ASSERT_CU(cuDeviceGetDefaultMemPool(&again, 0));
  EXPECT_EQ(def, again);
  EXPECT_EQ(cuDeviceGetDefaultMemPool(&again, 7), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDeviceGetDefaultMemPool(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPoolDestroy(def), CUDA_ERROR_INVALID_VALUE);  // default pools stay

  CUdeviceptr p = 0;
  ASSERT_CU(cuMemAllocFromPoolAsync(&p, 64 * kMiB, def, s_));
  EXPECT_EQ(free0 - FreeBytes(), 64 * kMiB);
  ASSERT_CU(cuMemFreeAsync(p, s_));
  EXPECT_EQ(FreeBytes(), free0);
  EXPECT_EQ(cuMemAllocFromPoolAsync(&p, 5ULL << 30, def, s_), CUDA_ERROR_OUT_OF_MEMORY);

  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = 0;
  props.maxSize = 64 * kMiB;
  CUmemoryPool pool = nullptr;
  ASSERT_CU(cuMemPoolCreate(&pool, &props));
  CUdeviceptr a = 0, b = 0, c = 0;
  ASSERT_CU(cuMemAllocFromPoolAsync(&a, 48 * kMiB, pool, s_));
  EXPECT_EQ(cuMemAllocFromPoolAsync(&b, 32 * kMiB, pool, s_), CUDA_ERROR_OUT_OF_MEMORY);
  auto from_pool_ptsz = Proc<PFN_cuMemAllocFromPoolAsync_v11020_ptsz>(
      "cuMemAllocFromPoolAsync", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  ASSERT_CU(from_pool_ptsz(&b, 16 * kMiB, pool, nullptr));
  EXPECT_EQ(free0 - FreeBytes(), 64 * kMiB);
  ASSERT_CU(cuMemFreeAsync(b, s_));
  // A destroyed pool's allocations stay valid until freed.
  ASSERT_CU(cuMemPoolDestroy(pool));
  EXPECT_EQ(cuMemAllocFromPoolAsync(&c, kMiB, pool, s_), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(free0 - FreeBytes(), 48 * kMiB);
  const char data[] = "pool";
  ASSERT_CU(cuMemcpyHtoD(a, data, sizeof(data)));
  ASSERT_CU(cuMemFree(a));
  EXPECT_EQ(FreeBytes(), free0);

  CUmemPoolProps bad = props;
  bad.allocType = CU_MEM_ALLOCATION_TYPE_INVALID;
  EXPECT_EQ(cuMemPoolCreate(&pool, &bad), CUDA_ERROR_INVALID_VALUE);
  bad = props;
  bad.location.id = 9;
  EXPECT_EQ(cuMemPoolCreate(&pool, &bad), CUDA_ERROR_INVALID_VALUE);
  bad = props;
  bad.location.type = CU_MEM_LOCATION_TYPE_HOST;
  EXPECT_EQ(cuMemPoolCreate(&pool, &bad), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPoolCreate(&pool, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(GraphMemoryTest, VirtualMemoryMapsAccountedPhysicalMemory) {
  int supported = 0;
  ASSERT_CU(
      cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
  EXPECT_EQ(supported, 1);
  const size_t free0 = FreeBytes();
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t gran = 0;
  ASSERT_CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  EXPECT_EQ(gran, 2 * kMiB);
  ASSERT_CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  EXPECT_EQ(gran, 2 * kMiB);
  EXPECT_EQ(
      cuMemGetAllocationGranularity(&gran, &prop, static_cast<CUmemAllocationGranularity_flags>(5)),
      CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemGetAllocationGranularity(&gran, nullptr, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            CUDA_ERROR_INVALID_VALUE);

  // Physical memory is taken at creation.
  CUmemGenericAllocationHandle h1 = 0, h2 = 0, bad = 0;
  EXPECT_EQ(cuMemCreate(&bad, 3 * kMiB, &prop, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemCreate(&bad, 0, &prop, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemCreate(&bad, 2 * kMiB, &prop, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemCreate(&bad, 8ULL << 30, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
  CUmemAllocationProp elsewhere = prop;
  elsewhere.location.id = 7;
  EXPECT_EQ(cuMemCreate(&bad, 2 * kMiB, &elsewhere, 0), CUDA_ERROR_INVALID_DEVICE);
  ASSERT_CU(cuMemCreate(&h1, 4 * kMiB, &prop, 0));
  ASSERT_CU(cuMemCreate(&h2, 2 * kMiB, &prop, 0));
  EXPECT_EQ(free0 - FreeBytes(), 6 * kMiB);

  CUdeviceptr va = 0;
  EXPECT_EQ(cuMemAddressReserve(&va, 4097, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAddressReserve(&va, 16 * kMiB, 3, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAddressReserve(&va, 16 * kMiB, 0, 0, 1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemAddressReserve(&va, 16 * kMiB, 0, 0, 0));
  EXPECT_EQ(va % (2 * kMiB), 0u);
  EXPECT_EQ(free0 - FreeBytes(), 6 * kMiB);  // address space costs no memory

  // Maps: granule-aligned, inside the reservation, not over another mapping.
  ASSERT_CU(cuMemMap(va, 4 * kMiB, 0, h1, 0));
  ASSERT_CU(cuMemMap(va + 4 * kMiB, 2 * kMiB, 0, h2, 0));
  EXPECT_EQ(cuMemMap(va + 6 * kMiB + 4096, 2 * kMiB, 0, h2, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemMap(va + 2 * kMiB, 2 * kMiB, 0, h2, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemMap(va + 14 * kMiB, 4 * kMiB, 0, h1, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemMap(va + 6 * kMiB, 4 * kMiB, 0, h2, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemMap(va + 6 * kMiB, 2 * kMiB, 0, 12345, 0), CUDA_ERROR_INVALID_VALUE);
  // The second half of h1 again, at +8 MiB: the same memory at two addresses.
  ASSERT_CU(cuMemMap(va + 8 * kMiB, 2 * kMiB, 2 * kMiB, h1, 0));

  // No access until cuMemSetAccess.
  const char text[] = "spans two allocations";
  const CUdeviceptr seam = va + 4 * kMiB - 8;
  EXPECT_EQ(cuMemcpyHtoD(seam, text, sizeof(text)), CUDA_ERROR_INVALID_VALUE);
  CUmemAccessDesc rw{};
  rw.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  rw.location.id = 0;
  rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  EXPECT_EQ(cuMemSetAccess(va, kMiB, &rw, 1), CUDA_ERROR_INVALID_VALUE);  // part of a mapping
  EXPECT_EQ(cuMemSetAccess(va + 6 * kMiB, 2 * kMiB, &rw, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemSetAccess(va, 6 * kMiB, nullptr, 1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemSetAccess(va, 6 * kMiB, &rw, 1));
  ASSERT_CU(cuMemcpyHtoD(seam, text, sizeof(text)));
  char back[sizeof(text)] = {};
  ASSERT_CU(cuMemcpyDtoH(back, seam, sizeof(back)));
  EXPECT_STREQ(back, text);
  EXPECT_EQ(cuMemcpyDtoH(back, va + 6 * kMiB - 8, sizeof(back)), CUDA_ERROR_INVALID_VALUE);

  // Read-only access allows reads only.
  CUmemAccessDesc ro = rw;
  ro.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
  ASSERT_CU(cuMemSetAccess(va + 8 * kMiB, 2 * kMiB, &ro, 1));
  const char shared[] = "one allocation";
  ASSERT_CU(cuMemcpyHtoD(va + 3 * kMiB, shared, sizeof(shared)));
  char seen[sizeof(shared)] = {};
  ASSERT_CU(cuMemcpyDtoH(seen, va + 9 * kMiB, sizeof(seen)));
  EXPECT_STREQ(seen, shared);
  EXPECT_EQ(cuMemcpyHtoD(va + 9 * kMiB, shared, sizeof(shared)), CUDA_ERROR_INVALID_VALUE);

  // Memory returns once released and unmapped everywhere.
  ASSERT_CU(cuMemRelease(h1));
  EXPECT_EQ(cuMemRelease(h1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(free0 - FreeBytes(), 6 * kMiB);
  EXPECT_EQ(cuMemUnmap(va, 2 * kMiB), CUDA_ERROR_INVALID_VALUE);  // part of a mapping
  ASSERT_CU(cuMemUnmap(va, 4 * kMiB));
  EXPECT_EQ(free0 - FreeBytes(), 6 * kMiB);
  ASSERT_CU(cuMemUnmap(va + 8 * kMiB, 2 * kMiB));
  EXPECT_EQ(free0 - FreeBytes(), 2 * kMiB);
  EXPECT_EQ(cuMemcpyHtoD(va, text, sizeof(text)), CUDA_ERROR_INVALID_VALUE);

  // A reservation is freed whole, once unmapped.
  EXPECT_EQ(cuMemAddressFree(va, 16 * kMiB), CUDA_ERROR_INVALID_VALUE);  // still mapped
  ASSERT_CU(cuMemUnmap(va + 4 * kMiB, 2 * kMiB));
  EXPECT_EQ(free0 - FreeBytes(), 2 * kMiB);  // h2 is not released yet
  ASSERT_CU(cuMemRelease(h2));
  EXPECT_EQ(FreeBytes(), free0);
  EXPECT_EQ(cuMemAddressFree(va, 8 * kMiB), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemAddressFree(va, 16 * kMiB));
  EXPECT_EQ(cuMemAddressFree(va, 16 * kMiB), CUDA_ERROR_INVALID_VALUE);

  // A hinted reservation lands at the hint when that space is free (as the
  // space just freed is).
  CUdeviceptr hinted = 0;
  ASSERT_CU(cuMemAddressReserve(&hinted, 4 * kMiB, 0, va + 4 * kMiB, 0));
  EXPECT_EQ(hinted, va + 4 * kMiB);
  ASSERT_CU(cuMemAddressFree(hinted, 4 * kMiB));
}

// ---- Libraries -------------------------------------------------------------

TEST_F(GraphMemoryTest, LibraryKernelsLaunchAsFunctionsAndAsKernels) {
  CUlibrary lib = nullptr;
  ASSERT_CU(cuLibraryLoadData(&lib, kImage, nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kernel = nullptr;
  ASSERT_CU(cuLibraryGetKernel(&kernel, lib, "k20ms"));
  EXPECT_EQ(cuLibraryGetKernel(&kernel, lib, "nope"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuLibraryGetKernel(&kernel, nullptr, "k20ms"), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLibraryGetKernel(nullptr, lib, "k20ms"), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuLibraryGetKernel(&kernel, lib, "k20ms"));
  CUfunction fn = nullptr;
  ASSERT_CU(cuKernelGetFunction(&fn, kernel));
  const char* name = nullptr;
  ASSERT_CU(cuKernelGetName(&name, kernel));
  EXPECT_STREQ(name, "k20ms");
  ASSERT_CU(cuFuncGetName(&name, fn));
  EXPECT_STREQ(name, "k20ms");
  ASSERT_CU(cuFuncGetName(&name, reinterpret_cast<CUfunction>(kernel)));
  EXPECT_STREQ(name, "k20ms");
  EXPECT_EQ(cuKernelGetName(nullptr, kernel), CUDA_ERROR_INVALID_VALUE);
  // A module's function is not a library kernel.
  EXPECT_EQ(cuKernelGetName(&name, reinterpret_cast<CUkernel>(k20_)), CUDA_ERROR_INVALID_VALUE);
  CUlibrary owner = nullptr;
  ASSERT_CU(cuKernelGetLibrary(&owner, kernel));
  EXPECT_EQ(owner, lib);

  // Launchable through its function and as itself, taking the modelled time.
  ExpectSpan(TimedMs(s_, [&] { EXPECT_CU(Launch(fn, s_)); }), 20.0);
  ExpectSpan(TimedMs(s_, [&] { EXPECT_CU(Launch(reinterpret_cast<CUfunction>(kernel), s_)); }),
             20.0);
  ExpectSpan(TimedMs(s_,
                     [&] {
                       EXPECT_CU(cuLaunchCooperativeKernel(reinterpret_cast<CUfunction>(kernel),
                                                           160, 1, 1, 256, 1, 1, 0, s_, nullptr));
                     }),
             20.0);

  // Loading needs no context; getting the function for "the current context" does.
  std::thread([&] {
    CUlibrary other = nullptr;
    EXPECT_CU(cuLibraryLoadData(&other, kImage, nullptr, nullptr, 0, nullptr, nullptr, 0));
    CUfunction f;
    EXPECT_EQ(cuKernelGetFunction(&f, kernel), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_CU(cuLibraryUnload(other));
  }).join();

  // Bad images and options.
  CUlibrary bad = nullptr;
  EXPECT_EQ(cuLibraryLoadData(&bad, "not a library", nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_ERROR_INVALID_IMAGE);
  EXPECT_EQ(cuLibraryLoadData(&bad, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLibraryLoadData(&bad, kImage, nullptr, nullptr, 1, nullptr, nullptr, 0),
            CUDA_ERROR_INVALID_VALUE);

  EXPECT_EQ(cuLibraryUnload(nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuLibraryUnload(lib));
}

TEST_F(GraphMemoryTest, LibraryFromFile) {
  char path[] = "/tmp/simgpu-library-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, kImage, sizeof(kImage) - 1), static_cast<ssize_t>(sizeof(kImage) - 1));
  close(fd);
  CUlibrary lib = nullptr;
  ASSERT_CU(cuLibraryLoadFromFile(&lib, path, nullptr, nullptr, 0, nullptr, nullptr, 0));
  unlink(path);
  CUkernel kernel = nullptr;
  ASSERT_CU(cuLibraryGetKernel(&kernel, lib, "k1ms"));
  ExpectSpan(TimedMs(s_, [&] { EXPECT_CU(Launch(reinterpret_cast<CUfunction>(kernel), s_)); }), 1.0,
             0.5);
  ASSERT_CU(cuLibraryUnload(lib));
  EXPECT_EQ(cuLibraryLoadFromFile(&lib, path, nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_ERROR_FILE_NOT_FOUND);
}

// ---- cuGetProcAddress ------------------------------------------------------

TEST_F(GraphMemoryTest, ProcAddressServesEveryNewVariant) {
  struct Case {
    const char* name;
    int version;
    bool per_thread;
    const char* expect;  // nullptr: not available at that version
  };
  const Case cases[] = {
      {"cuLaunchCooperativeKernel", 9000, false, "cuLaunchCooperativeKernel"},
      {"cuLaunchCooperativeKernel", 12000, true, "cuLaunchCooperativeKernel_ptsz"},
      {"cuLaunchCooperativeKernel", 8000, false, nullptr},
      {"cuStreamBeginCapture", 10000, false, "cuStreamBeginCapture"},
      {"cuStreamBeginCapture", 10000, true, "cuStreamBeginCapture_ptsz"},
      {"cuStreamBeginCapture", 10010, false, "cuStreamBeginCapture_v2"},
      {"cuStreamBeginCapture", 12000, true, "cuStreamBeginCapture_v2_ptsz"},
      {"cuStreamEndCapture", 10000, false, "cuStreamEndCapture"},
      {"cuStreamEndCapture", 12000, true, "cuStreamEndCapture_ptsz"},
      {"cuStreamIsCapturing", 10000, false, "cuStreamIsCapturing"},
      {"cuStreamIsCapturing", 12000, true, "cuStreamIsCapturing_ptsz"},
      {"cuStreamGetCaptureInfo", 10010, false, "cuStreamGetCaptureInfo"},
      {"cuStreamGetCaptureInfo", 11020, true, "cuStreamGetCaptureInfo_ptsz"},
      {"cuStreamGetCaptureInfo", 11030, false, "cuStreamGetCaptureInfo_v2"},
      {"cuStreamGetCaptureInfo", 12020, true, "cuStreamGetCaptureInfo_v2_ptsz"},
      {"cuStreamGetCaptureInfo", 12030, false, "cuStreamGetCaptureInfo_v3"},
      {"cuStreamGetCaptureInfo", 13000, true, "cuStreamGetCaptureInfo_v3_ptsz"},
      {"cuStreamGetCaptureInfo", 10000, false, nullptr},
      {"cuGraphInstantiate", 10000, false, "cuGraphInstantiate"},
      {"cuGraphInstantiate", 11000, false, "cuGraphInstantiate_v2"},
      {"cuGraphInstantiate", 11080, true, "cuGraphInstantiate_v2"},
      {"cuGraphInstantiate", 12000, false, "cuGraphInstantiateWithFlags"},
      {"cuGraphInstantiate", 13000, false, "cuGraphInstantiateWithFlags"},
      {"cuGraphInstantiateWithFlags", 11040, false, "cuGraphInstantiateWithFlags"},
      {"cuGraphInstantiateWithFlags", 11030, false, nullptr},
      {"cuGraphInstantiateWithParams", 12000, false, "cuGraphInstantiateWithParams"},
      {"cuGraphInstantiateWithParams", 12000, true, "cuGraphInstantiateWithParams_ptsz"},
      {"cuGraphLaunch", 10000, false, "cuGraphLaunch"},
      {"cuGraphLaunch", 12000, true, "cuGraphLaunch_ptsz"},
      {"cuGraphExecDestroy", 10000, false, "cuGraphExecDestroy"},
      {"cuGraphDestroy", 10000, false, "cuGraphDestroy"},
      {"cuEventRecordWithFlags", 11010, false, "cuEventRecordWithFlags"},
      {"cuEventRecordWithFlags", 12000, true, "cuEventRecordWithFlags_ptsz"},
      {"cuMemAllocPitch", 3020, false, "cuMemAllocPitch_v2"},
      {"cuMemAllocManaged", 6000, false, "cuMemAllocManaged"},
      {"cuMemAllocAsync", 11020, false, "cuMemAllocAsync"},
      {"cuMemAllocAsync", 11020, true, "cuMemAllocAsync_ptsz"},
      {"cuMemFreeAsync", 11020, true, "cuMemFreeAsync_ptsz"},
      {"cuMemAllocFromPoolAsync", 11020, false, "cuMemAllocFromPoolAsync"},
      {"cuMemAllocFromPoolAsync", 11020, true, "cuMemAllocFromPoolAsync_ptsz"},
      {"cuDeviceGetDefaultMemPool", 11020, false, "cuDeviceGetDefaultMemPool"},
      {"cuMemPoolCreate", 11020, false, "cuMemPoolCreate"},
      {"cuMemPoolDestroy", 11020, false, "cuMemPoolDestroy"},
      {"cuMemPoolCreate", 11010, false, nullptr},
      {"cuMemGetAllocationGranularity", 10020, false, "cuMemGetAllocationGranularity"},
      {"cuMemCreate", 10020, false, "cuMemCreate"},
      {"cuMemCreate", 10010, false, nullptr},
      {"cuMemRelease", 10020, false, "cuMemRelease"},
      {"cuMemAddressReserve", 10020, false, "cuMemAddressReserve"},
      {"cuMemAddressFree", 10020, false, "cuMemAddressFree"},
      {"cuMemMap", 10020, false, "cuMemMap"},
      {"cuMemUnmap", 10020, false, "cuMemUnmap"},
      {"cuMemSetAccess", 10020, false, "cuMemSetAccess"},
      {"cuLibraryLoadData", 12000, false, "cuLibraryLoadData"},
      {"cuLibraryLoadData", 11080, false, nullptr},
      {"cuLibraryLoadFromFile", 12000, false, "cuLibraryLoadFromFile"},
      {"cuLibraryUnload", 12000, false, "cuLibraryUnload"},
      {"cuLibraryGetKernel", 12000, false, "cuLibraryGetKernel"},
      {"cuKernelGetFunction", 12000, false, "cuKernelGetFunction"},
      {"cuKernelGetName", 12030, false, "cuKernelGetName"},
      {"cuKernelGetName", 12020, false, nullptr},
      {"cuKernelGetLibrary", 12050, false, "cuKernelGetLibrary"},
      {"cuFuncGetName", 12030, false, "cuFuncGetName"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.name) + " @" + std::to_string(c.version) +
                 (c.per_thread ? " per-thread" : ""));
    void* fn = nullptr;
    CUdriverProcAddressQueryResult status;
    const cuuint64_t flags = c.per_thread ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
                                          : CU_GET_PROC_ADDRESS_LEGACY_STREAM;
    const CUresult rc = cuGetProcAddress_v2(c.name, &fn, c.version, flags, &status);
    if (c.expect == nullptr) {
      EXPECT_EQ(rc, CUDA_ERROR_NOT_FOUND);
      EXPECT_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
      continue;
    }
    ASSERT_CU(rc);
    EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
    ASSERT_NE(Sym(c.expect), nullptr);
    EXPECT_EQ(fn, Sym(c.expect));
  }
  const char* text = nullptr;
  ASSERT_CU(cuGetErrorString(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, &text));
  EXPECT_STREQ(text, "operation not permitted when stream is capturing");
}

}  // namespace
