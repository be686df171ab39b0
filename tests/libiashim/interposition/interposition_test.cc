// The shim sees every launch exactly once however the program reached the
// driver: the plain symbol, dlsym on the libcuda handle, or cuGetProcAddress
// (both versions) with several CUDA versions and the per-thread flag, and the
// driver variant it forwards to is the one the program asked for.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "libiashim/src/trace_reader.h"
#include "tests/simgpu/test_env.h"
#include "tests/libiashim/interposition/shim_test_support.h"

namespace {

using iashim_test::ShimTest;
using iashim_test::Stats;

using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void**, void**);

void* Libcuda() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(h, nullptr);
  return h;
}

// Our hook for `symbol`: what the program sees exported under that name.
void* Hook(const char* symbol) { return dlsym(RTLD_DEFAULT, symbol); }

CUresult LaunchWith(LaunchFn fn, CUfunction f, CUstream s = nullptr) {
  return fn(f, 4, 1, 1, 128, 1, 1, 0, s, nullptr, nullptr);
}

class InterpositionTest : public ShimTest {};

TEST_F(InterpositionTest, ShimIsActiveAndExportsItsHooks) {
  ASSERT_CU(cuLaunchKernel(k0_, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
  EXPECT_EQ(Stats().active, 1);
  // The exported cuLaunchKernel is the shim's, not the driver's.
  Dl_info hook{}, real{};
  ASSERT_NE(dladdr(Hook("cuLaunchKernel"), &hook), 0);
  void* real_fn = dlsym(Libcuda(), "cuStreamCreate");  // not hooked: the driver's own
  ASSERT_NE(dladdr(real_fn, &real), 0);
  EXPECT_NE(std::string(hook.dli_fname), std::string(real.dli_fname));
  EXPECT_NE(std::string(hook.dli_fname).find("libiashim"), std::string::npos) << hook.dli_fname;
}

TEST_F(InterpositionTest, PlainSymbolLaunchesAreCountedOnce) {
  const iashim_stats before = Stats();
  for (int i = 0; i < 25; ++i) ASSERT_CU(LaunchWith(&cuLaunchKernel, k0_));
  for (int i = 0; i < 15; ++i) ASSERT_CU(LaunchWith(&cuLaunchKernel_ptsz, k0_));
  ASSERT_CU(cuCtxSynchronize());
  const iashim_stats after = Stats();
  EXPECT_EQ(after.launches - before.launches, 40u);
  EXPECT_EQ(after.syncs - before.syncs, 1u);
  EXPECT_EQ(after.records_dropped, 0u);
}

TEST_F(InterpositionTest, DlsymOnTheDriverHandleReturnsTheHook) {
  void* h = Libcuda();
  void* const launch_hook = Hook("cuLaunchKernel");
  void* const proc_hook = Hook("cuGetProcAddress_v2");
  void* const alloc_hook = Hook("cuMemAlloc_v2");
  const iashim_stats before = Stats();
  void* p = dlsym(h, "cuLaunchKernel");
  EXPECT_EQ(p, launch_hook);
  EXPECT_EQ(dlsym(h, "cuGetProcAddress_v2"), proc_hook);
  EXPECT_EQ(dlsym(h, "cuMemAlloc_v2"), alloc_hook);
  // Entry points we do not hook, and names nobody defines, are glibc's answer.
  EXPECT_NE(dlsym(h, "cuStreamCreate"), nullptr);
  EXPECT_EQ(dlsym(h, "cuNoSuchEntryPoint"), nullptr);
  EXPECT_EQ(dlsym(h, "cuLaunchKernelNoSuch"), nullptr);
  for (int i = 0; i < 10; ++i) ASSERT_CU(LaunchWith(reinterpret_cast<LaunchFn>(p), k0_));
  const iashim_stats after = Stats();
  EXPECT_EQ(after.lookups_dlsym - before.lookups_dlsym, 3u);
  EXPECT_EQ(after.launches - before.launches, 10u);
}

TEST_F(InterpositionTest, DlsymRtldNextSkipsToTheObjectsAfterTheCaller) {
  // From the test executable, the next cuLaunchKernel after it is the shim's
  // (loaded before the driver), exactly as glibc would answer.
  EXPECT_EQ(dlsym(RTLD_NEXT, "cuLaunchKernel"), Hook("cuLaunchKernel"));
  EXPECT_NE(dlsym(RTLD_NEXT, "malloc"), nullptr);
  EXPECT_EQ(dlsym(RTLD_NEXT, "no_such_symbol_anywhere"), nullptr);
}

struct Request {
  const char* symbol;
  int version;
  bool per_thread;
  const char* expect;  // our hook's symbol, or null: the driver's own entry point
};

const Request kRequests[] = {
    {"cuLaunchKernel", 4000, false, "cuLaunchKernel"},
    {"cuLaunchKernel", 12000, false, "cuLaunchKernel"},
    {"cuLaunchKernel", 12000, true, "cuLaunchKernel_ptsz"},
    {"cuLaunchKernel", 13000, true, "cuLaunchKernel_ptsz"},
    {"cuLaunchKernelEx", 12000, false, "cuLaunchKernelEx"},
    {"cuLaunchKernelEx", 12000, true, "cuLaunchKernelEx_ptsz"},
    {"cuLaunchCooperativeKernel", 12000, true, "cuLaunchCooperativeKernel_ptsz"},
    {"cuGraphLaunch", 12000, false, "cuGraphLaunch"},
    {"cuGraphLaunch", 12000, true, "cuGraphLaunch_ptsz"},
    {"cuMemAlloc", 3020, false, "cuMemAlloc_v2"},
    {"cuMemAlloc", 12000, true, "cuMemAlloc_v2"},
    {"cuMemFree", 12000, false, "cuMemFree_v2"},
    {"cuMemAllocAsync", 12000, true, "cuMemAllocAsync_ptsz"},
    {"cuMemAllocFromPoolAsync", 12000, false, "cuMemAllocFromPoolAsync"},
    {"cuMemGetInfo", 12000, false, "cuMemGetInfo_v2"},
    {"cuDeviceTotalMem", 12000, false, "cuDeviceTotalMem_v2"},
    {"cuStreamSynchronize", 12000, true, "cuStreamSynchronize_ptsz"},
    {"cuCtxSynchronize", 12000, false, "cuCtxSynchronize"},
    {"cuCtxSynchronize", 13000, false, "cuCtxSynchronize_v2"},
    {"cuModuleGetFunction", 12000, false, "cuModuleGetFunction"},
    {"cuGetProcAddress", 12000, false, "cuGetProcAddress_v2"},
    {"cuGetProcAddress", 11030, false, "cuGetProcAddress"},
    {"cuStreamCreate", 12000, false, nullptr},
    {"cuEventRecord", 12000, true, nullptr},
};

TEST_F(InterpositionTest, CuGetProcAddressV2ReturnsTheHookOfTheRightVariant) {
  for (const Request& r : kRequests) {
    SCOPED_TRACE(std::string(r.symbol) + " v" + std::to_string(r.version) +
                 (r.per_thread ? " per-thread" : ""));
    void* p = nullptr;
    CUdriverProcAddressQueryResult status{};
    const cuuint64_t flags = r.per_thread ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
                                          : CU_GET_PROC_ADDRESS_DEFAULT;
    ASSERT_CU(cuGetProcAddress_v2(r.symbol, &p, r.version, flags, &status));
    EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
    if (r.expect != nullptr) {
      EXPECT_EQ(p, Hook(r.expect)) << "expected the hook " << r.expect;
    } else {
      Dl_info info{};
      ASSERT_NE(dladdr(p, &info), 0);
      EXPECT_EQ(std::string(info.dli_fname).find("libiashim"), std::string::npos);
    }
  }
}

TEST_F(InterpositionTest, CuGetProcAddressV1ReturnsTheSameHooks) {
  for (const Request& r : kRequests) {
    if (r.expect == nullptr) continue;
    SCOPED_TRACE(std::string(r.symbol) + " v" + std::to_string(r.version));
    void* p = nullptr;
    ASSERT_CU(cuGetProcAddress(r.symbol, &p, r.version,
                               r.per_thread ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
                                            : CU_GET_PROC_ADDRESS_DEFAULT));
    EXPECT_EQ(p, Hook(r.expect));
  }
}

TEST_F(InterpositionTest, FailedLookupsPassThroughUnchanged) {
  void* p = reinterpret_cast<void*>(0x1);
  CUdriverProcAddressQueryResult status{};
  EXPECT_EQ(cuGetProcAddress_v2("cuNoSuchEntryPoint", &p, 12000, 0, &status), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  // cuMemAllocAsync did not exist in CUDA 11.0.
  EXPECT_EQ(cuGetProcAddress_v2("cuMemAllocAsync", &p, 11000, 0, &status), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
}

TEST_F(InterpositionTest, EveryPathCountsEachLaunchExactlyOnce) {
  const iashim_stats before = Stats();
  int launched = 0;
  void* p = dlsym(Libcuda(), "cuLaunchKernel");
  for (int i = 0; i < 7; ++i, ++launched) ASSERT_CU(LaunchWith(reinterpret_cast<LaunchFn>(p), k0_));
  for (int version : {11030, 12000, 12080, 13000}) {
    for (bool per_thread : {false, true}) {
      const cuuint64_t flags = per_thread ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0;
      void* v1 = nullptr;
      void* v2 = nullptr;
      ASSERT_CU(cuGetProcAddress("cuLaunchKernel", &v1, version, flags));
      ASSERT_CU(cuGetProcAddress_v2("cuLaunchKernel", &v2, version, flags, nullptr));
      for (int i = 0; i < 3; ++i, launched += 2) {
        ASSERT_CU(LaunchWith(reinterpret_cast<LaunchFn>(v1), k0_));
        ASSERT_CU(LaunchWith(reinterpret_cast<LaunchFn>(v2), k_other_));
      }
    }
  }
  for (int i = 0; i < 5; ++i, ++launched) ASSERT_CU(LaunchWith(&cuLaunchKernel, k0_));
  ASSERT_CU(cuCtxSynchronize());
  const iashim_stats after = Stats();
  EXPECT_EQ(after.launches - before.launches, uint64_t(launched));
  EXPECT_EQ(after.lookups_proc_v1 - before.lookups_proc_v1, 8u);
  EXPECT_EQ(after.lookups_proc_v2 - before.lookups_proc_v2, 8u);
  EXPECT_EQ(after.lookups_per_thread - before.lookups_per_thread, 8u);
}

TEST_F(InterpositionTest, PerThreadVariantReachesThePerThreadStream) {
  // A long kernel launched through the per-thread hook runs on this thread's
  // per-thread default stream, so the legacy default stream stays idle.
  void* p = nullptr;
  ASSERT_CU(cuGetProcAddress_v2("cuLaunchKernel", &p, 12000,
                                CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, nullptr));
  ASSERT_CU(LaunchWith(reinterpret_cast<LaunchFn>(p), k500ms_));
  EXPECT_CU(cuStreamQuery(nullptr));
  EXPECT_EQ(cuStreamQuery_ptsz(nullptr), CUDA_ERROR_NOT_READY);
  ASSERT_CU(cuStreamSynchronize_ptsz(nullptr));
  // And the legacy hook reaches the legacy stream.
  ASSERT_CU(cuGetProcAddress_v2("cuLaunchKernel", &p, 12000, 0, nullptr));
  ASSERT_CU(LaunchWith(reinterpret_cast<LaunchFn>(p), k500ms_));
  EXPECT_EQ(cuStreamQuery(nullptr), CUDA_ERROR_NOT_READY);
  EXPECT_CU(cuStreamQuery_ptsz(nullptr));
  ASSERT_CU(cuStreamSynchronize(nullptr));
}

TEST_F(InterpositionTest, ExCooperativeAndGraphLaunchesAreCounted) {
  const iashim_stats before = Stats();
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 64;
  config.blockDimY = config.blockDimZ = 1;
  ASSERT_CU(cuLaunchKernelEx(&config, k0_, nullptr, nullptr));
  ASSERT_CU(cuLaunchKernelEx_ptsz(&config, k0_, nullptr, nullptr));
  ASSERT_CU(cuLaunchCooperativeKernel(k0_, 2, 1, 1, 64, 1, 1, 0, nullptr, nullptr));
  ASSERT_CU(cuLaunchCooperativeKernel_ptsz(k0_, 2, 1, 1, 64, 1, 1, 0, nullptr, nullptr));

  CUstream s;
  ASSERT_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  ASSERT_CU(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  for (int i = 0; i < 3; ++i) ASSERT_CU(LaunchWith(&cuLaunchKernel, k0_, s));
  CUgraph graph;
  ASSERT_CU(cuStreamEndCapture(s, &graph));
  CUgraphExec exec;
  ASSERT_CU(cuGraphInstantiateWithFlags(&exec, graph, 0));
  ASSERT_CU(cuGraphLaunch(exec, s));
  ASSERT_CU(cuGraphLaunch_ptsz(exec, s));
  ASSERT_CU(cuStreamSynchronize(s));
  const iashim_stats after = Stats();
  // Captured launches are calls the program made: counted as launches.
  EXPECT_EQ(after.launches - before.launches, 4u + 3u);
  EXPECT_EQ(after.graph_launches - before.graph_launches, 2u);
  EXPECT_CU(cuGraphExecDestroy(exec));
  EXPECT_CU(cuGraphDestroy(graph));
  EXPECT_CU(cuStreamDestroy_v2(s));
}

TEST_F(InterpositionTest, LegacyLaunchesAreCountedHoweverFound) {
  const iashim_stats before = Stats();
  ASSERT_CU(cuFuncSetBlockShape(k0_, 64, 1, 1));
  ASSERT_CU(cuLaunch(k0_));
  ASSERT_CU(cuLaunchGrid(k0_, 4, 2));
  CUstream s;
  ASSERT_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  ASSERT_CU(cuLaunchGridAsync(k0_, 4, 2, s));
  // Found through the driver's lookup, the legacy launch is still ours.
  void* found = nullptr;
  ASSERT_CU(cuGetProcAddress_v2("cuLaunchGridAsync", &found, 12000, CU_GET_PROC_ADDRESS_DEFAULT,
                                nullptr));
  EXPECT_EQ(found, Hook("cuLaunchGridAsync"));
  auto grid_async = reinterpret_cast<CUresult (*)(CUfunction, int, int, CUstream)>(found);
  ASSERT_CU(grid_async(k0_, 1, 1, s));
  ASSERT_CU(cuStreamSynchronize(s));
  ASSERT_CU(cuCtxSynchronize());
  EXPECT_EQ(Stats().launches - before.launches, 4u);
  EXPECT_CU(cuStreamDestroy_v2(s));
}

TEST_F(InterpositionTest, MultiDeviceCooperativeLaunchCountsTheKernelOfEachDevice) {
  // Device 1's context, module and stream beside device 0's.
  CUdevice second = 0;
  ASSERT_CU(cuDeviceGet(&second, 1));
  CUcontext ctx1 = nullptr;
  ASSERT_CU(cuDevicePrimaryCtxRetain(&ctx1, second));
  ASSERT_CU(cuCtxSetCurrent(ctx1));
  CUmodule module1 = nullptr;
  CUfunction k1 = nullptr;
  ASSERT_CU(cuModuleLoadData(&module1, iashim_test::kShimTestImage));
  ASSERT_CU(cuModuleGetFunction(&k1, module1, "k0"));
  CUstream s1 = nullptr;
  ASSERT_CU(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
  ASSERT_CU(cuCtxSetCurrent(ctx_));
  CUstream s0 = nullptr;
  ASSERT_CU(cuStreamCreate(&s0, CU_STREAM_NON_BLOCKING));

  const iashim_stats before = Stats();
  CUDA_LAUNCH_PARAMS params[2] = {};
  params[0].function = k0_;
  params[0].hStream = s0;
  params[1].function = k1;
  params[1].hStream = s1;
  for (CUDA_LAUNCH_PARAMS& p : params) {
    p.gridDimX = 2;
    p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 64;
    p.blockDimY = p.blockDimZ = 1;
  }
  ASSERT_CU(cuLaunchCooperativeKernelMultiDevice(params, 2, 0));
  EXPECT_EQ(Stats().launches - before.launches, 2u);
  // A launch the driver refuses (grids differ) is not counted.
  params[1].gridDimX = 3;
  EXPECT_NE(cuLaunchCooperativeKernelMultiDevice(params, 2, 0), CUDA_SUCCESS);
  EXPECT_EQ(Stats().launches - before.launches, 2u);

  ASSERT_CU(cuStreamSynchronize(s0));
  EXPECT_CU(cuStreamDestroy_v2(s0));
  ASSERT_CU(cuCtxSetCurrent(ctx1));
  ASSERT_CU(cuStreamSynchronize(s1));
  EXPECT_CU(cuStreamDestroy_v2(s1));
  EXPECT_CU(cuModuleUnload(module1));
  ASSERT_CU(cuCtxSetCurrent(ctx_));
  EXPECT_CU(cuDevicePrimaryCtxRelease(second));
}

// The trace written so far (Stats() drains and flushes it first).
iashim::Trace TraceSoFar() {
  Stats();
  iashim::Trace trace;
  std::string error;
  const char* path = std::getenv("IASHIM_TRACE");
  EXPECT_TRUE(iashim::ReadTrace(path != nullptr ? path : "", &trace, &error)) << error;
  return trace;
}

TEST_F(InterpositionTest, KernelsAreLabelledByNameHoweverTheyWereFound) {
  constexpr char kLibraryImage[] =
      "simgpu-module 1\n"
      "kernel lib_gemm fixed_us=0\n";
  CUlibrary library;
  ASSERT_CU(cuLibraryLoadData(&library, kLibraryImage, nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kernel;
  ASSERT_CU(cuLibraryGetKernel(&kernel, library, "lib_gemm"));
  // A CUkernel launches where a CUfunction is expected (CUDA 12).
  for (int i = 0; i < 3; ++i) ASSERT_CU(LaunchWith(&cuLaunchKernel, reinterpret_cast<CUfunction>(kernel)));
  CUfunction from_kernel;
  ASSERT_CU(cuKernelGetFunction(&from_kernel, kernel));
  for (int i = 0; i < 2; ++i) ASSERT_CU(LaunchWith(&cuLaunchKernel, from_kernel));
  const char* name = nullptr;
  ASSERT_CU(cuFuncGetName(&name, k0_));
  EXPECT_STREQ(name, "k0");
  ASSERT_CU(cuCtxSynchronize());

  const iashim::Trace trace = TraceSoFar();
  std::map<std::string, int> launches;
  for (const iashim::TraceEvent& e : trace.events) {
    if (e.launch.event == 0) ++launches[trace.NameOf(e.launch.kernel)];
  }
  EXPECT_EQ(launches["lib_gemm"], 5);
  EXPECT_EQ(launches.count("?"), 0u);
  EXPECT_CU(cuLibraryUnload(library));
}

TEST_F(InterpositionTest, FailedLaunchesAreNotCounted) {
  const iashim_stats before = Stats();
  EXPECT_NE(cuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_SUCCESS);
  EXPECT_NE(cuLaunchKernel(k0_, 0, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(Stats().launches, before.launches);
}

// Eight threads launching at once (run under TSan in CI): every launch is
// counted, none twice, none lost. 5,000 per thread fits the per-thread buffer,
// so no record can be dropped whatever the scheduling.
TEST_F(InterpositionTest, EightThreadsLaunchingConcurrentlyAreCountedExactly) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 5000;
  const iashim_stats before = Stats();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ASSERT_CU(cuCtxSetCurrent(ctx_));
      CUstream s;
      ASSERT_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
      void* p = nullptr;
      ASSERT_CU(cuGetProcAddress_v2("cuLaunchKernel", &p, 12000, 0, nullptr));
      const LaunchFn fn = t % 2 == 0 ? &cuLaunchKernel : reinterpret_cast<LaunchFn>(p);
      for (int i = 0; i < kPerThread; ++i) {
        ASSERT_CU(LaunchWith(fn, i % 3 == 0 ? k_other_ : k0_, s));
        if (i % 1000 == 999) {
          ASSERT_CU(cuStreamSynchronize(s));
        }
      }
      ASSERT_CU(cuStreamSynchronize(s));
      ASSERT_CU(cuStreamDestroy_v2(s));
    });
  }
  for (std::thread& t : threads) t.join();
  const iashim_stats after = Stats();
  EXPECT_EQ(after.launches - before.launches, uint64_t(kThreads) * kPerThread);
  EXPECT_EQ(after.syncs - before.syncs, uint64_t(kThreads) * (kPerThread / 1000 + 1));
  EXPECT_EQ(after.records_dropped, 0u);
}

TEST_F(InterpositionTest, ForkedChildRunsAndTheParentKeepsCounting) {
#if defined(IASHIM_SANITIZE_THREAD)
  GTEST_SKIP() << "TSan cannot start threads in the child of a multi-threaded fork";
#endif
  ASSERT_CU(LaunchWith(&cuLaunchKernel, k0_));
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // A child that never touches the GPU (a data-loader worker), then one
    // that asks the shim for its state: neither hangs nor crashes.
    iashim_stats s{};
    const int rc = iashim_get_stats(&s, sizeof s);
    _exit(rc == 0 && s.active == 1 && s.launches == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The child's shim wrote its own trace, named by its pid after the parent's.
  if (const char* trace = std::getenv("IASHIM_TRACE"); trace != nullptr) {
    ::unlink((std::string(trace) + "." + std::to_string(pid)).c_str());
  }
  const iashim_stats before = Stats();
  for (int i = 0; i < 5; ++i) ASSERT_CU(LaunchWith(&cuLaunchKernel, k0_));
  EXPECT_EQ(Stats().launches - before.launches, 5u);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string ns = iashim_test::UniqueNamespace("shim");
  setenv("SIMGPU_NAMESPACE", ns.c_str(), 1);
  setenv("SIMGPU_DEVICES", "2xTest GPU:4GiB:80", 1);
  unsetenv("CUDA_VISIBLE_DEVICES");
  // Telemetry on (sampling on), sent nowhere: the worst case for the hooks.
  setenv("IASHIM_COORDINATOR", ("ipc:///tmp/" + ns + "-nobody").c_str(), 1);
  const std::string trace = "/tmp/" + ns + ".trace";
  setenv("IASHIM_TRACE", trace.c_str(), 1);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  iashim_test::RemoveSimulatedDevices(ns);
  unlink(trace.c_str());
  return rc;
}
