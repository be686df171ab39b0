// The simulated driver through its exported API, as a program linked against
// libcuda.so.1 sees it.
#include <cuda.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "tests/simgpu/array_descriptor.h"
#include "tests/simgpu/test_env.h"

// Per-thread-stream variants, declared by cuda.h only for other build modes.
extern "C" CUresult cuLaunchKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, unsigned, unsigned, CUstream, void**, void**);
extern "C" CUresult cuStreamSynchronize_ptsz(CUstream);

namespace {

// The address the driver library exports under `name`.
void* Sym(const char* name) { return dlsym(RTLD_DEFAULT, name); }

#define ASSERT_CU(expr) ASSERT_EQ((expr), CUDA_SUCCESS) << #expr
#define EXPECT_CU(expr) EXPECT_EQ((expr), CUDA_SUCCESS) << #expr

const char kImage[] =
    "simgpu-module 1\n"
    "kernel k20ms fixed_us=20000 mem=0.1\n"
    "kernel k1ms fixed_us=1000 mem=0.9\n"
    "kernel k0 fixed_us=0\n";

double CpuSeconds() {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

class DriverApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_CU(cuInit(0));
    CUdevice dev;
    ASSERT_CU(cuDeviceGet(&dev, 0));
    ASSERT_CU(cuDevicePrimaryCtxRetain(&ctx_, dev));
  }
  void SetUp() override {
    ASSERT_CU(cuCtxSetCurrent(ctx_));
    ASSERT_CU(cuModuleLoadData(&module_, kImage));
    ASSERT_CU(cuModuleGetFunction(&k20_, module_, "k20ms"));
    ASSERT_CU(cuModuleGetFunction(&k1_, module_, "k1ms"));
  }
  void TearDown() override { EXPECT_CU(cuModuleUnload(module_)); }

  static CUresult Launch(CUfunction f, CUstream s, unsigned blocks = 160) {
    return cuLaunchKernel(f, blocks, 1, 1, 256, 1, 1, 0, s, nullptr, nullptr);
  }

  static inline CUcontext ctx_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction k20_ = nullptr, k1_ = nullptr;
};

TEST_F(DriverApiTest, DevicesFromTheEnvironment) {
  int count = 0;
  ASSERT_CU(cuDeviceGetCount(&count));
  EXPECT_EQ(count, 2);
  char name[128];
  ASSERT_CU(cuDeviceGetName(name, sizeof(name), 1));
  EXPECT_STREQ(name, "Test GPU B");
  size_t total = 0;
  ASSERT_CU(cuDeviceTotalMem(&total, 0));
  EXPECT_EQ(total, 4ULL << 30);
  int sms = 0;
  ASSERT_CU(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1));
  EXPECT_EQ(sms, 40);
  CUuuid a, b;
  ASSERT_CU(cuDeviceGetUuid(&a, 0));
  ASSERT_CU(cuDeviceGetUuid(&b, 1));
  EXPECT_NE(std::memcmp(a.bytes, b.bytes, 16), 0);
  CUdevice bad;
  EXPECT_EQ(cuDeviceGet(&bad, 2), CUDA_ERROR_INVALID_DEVICE);
  int version = 0;
  ASSERT_CU(cuDriverGetVersion(&version));
  EXPECT_EQ(version, CUDA_VERSION);
}

TEST_F(DriverApiTest, KernelOccupiesTheDeviceForItsDurationWithoutSpinning) {
  CUevent start, stop;
  ASSERT_CU(cuEventCreate(&start, 0));
  ASSERT_CU(cuEventCreate(&stop, 0));
  ASSERT_CU(cuEventRecord(start, nullptr));
  for (int i = 0; i < 10; ++i) ASSERT_CU(Launch(k20_, nullptr));
  ASSERT_CU(cuEventRecord(stop, nullptr));
  EXPECT_EQ(cuStreamQuery(nullptr), CUDA_ERROR_NOT_READY);
  float ms = 0;
  EXPECT_EQ(cuEventElapsedTime(&ms, start, stop), CUDA_ERROR_NOT_READY);
  const double cpu_before = CpuSeconds();
  ASSERT_CU(cuEventSynchronize(stop));
  const double cpu_used = CpuSeconds() - cpu_before;
  EXPECT_CU(cuStreamQuery(nullptr));
  ASSERT_CU(cuEventElapsedTime(&ms, start, stop));
  // Simulated device time: the ten kernels back to back, plus only what the
  // host took between the first record and the first launch (a sanitizer, a
  // loaded CI machine).
  EXPECT_GE(ms, 199.0);
  EXPECT_LE(ms, 210.0);
  EXPECT_LT(cpu_used, 0.05);  // waiting sleeps, it does not spin
  EXPECT_CU(cuEventDestroy(start));
  EXPECT_CU(cuEventDestroy(stop));
}

TEST_F(DriverApiTest, StreamsRunConcurrentlyAndSynchroniseIndependently) {
  CUstream s1, s2;
  ASSERT_CU(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
  ASSERT_CU(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
  // A compute-bound and a memory-bound kernel overlap almost perfectly.
  ASSERT_CU(Launch(k20_, s1));
  ASSERT_CU(Launch(k20_, s1));
  for (int i = 0; i < 20; ++i) ASSERT_CU(Launch(k1_, s2));
  ASSERT_CU(cuStreamSynchronize(s2));
  EXPECT_EQ(cuStreamQuery(s1), CUDA_ERROR_NOT_READY);
  ASSERT_CU(cuCtxSynchronize());
  EXPECT_CU(cuStreamQuery(s1));
  EXPECT_CU(cuStreamDestroy(s1));
  EXPECT_CU(cuStreamDestroy(s2));
}

TEST_F(DriverApiTest, PerThreadStreamIsSeparateFromLegacyStream) {
  ASSERT_CU(Launch(k20_, nullptr));
  ASSERT_CU(cuLaunchKernel_ptsz(k1_, 160, 1, 1, 256, 1, 1, 0, nullptr, nullptr, nullptr));
  ASSERT_CU(cuStreamSynchronize_ptsz(nullptr));
  EXPECT_EQ(cuStreamQuery(nullptr), CUDA_ERROR_NOT_READY);
  ASSERT_CU(cuStreamSynchronize(nullptr));
  // Another thread's per-thread stream is its own.
  std::thread t([&] {
    ASSERT_CU(cuCtxSetCurrent(ctx_));
    ASSERT_CU(cuLaunchKernel_ptsz(k1_, 160, 1, 1, 256, 1, 1, 0, CU_STREAM_PER_THREAD, nullptr,
                                  nullptr));
    ASSERT_CU(cuStreamSynchronize_ptsz(CU_STREAM_PER_THREAD));
  });
  t.join();
}

TEST_F(DriverApiTest, LaunchExAndBadLaunches) {
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = config.blockDimY = config.blockDimZ = 1;
  ASSERT_CU(cuLaunchKernelEx(&config, k1_, nullptr, nullptr));
  ASSERT_CU(cuCtxSynchronize());
  EXPECT_EQ(Launch(nullptr, nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(Launch(k1_, nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(k1_, 1, 1, 1, 2048, 1, 1, 0, nullptr, nullptr, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  const char* name = nullptr;
  ASSERT_CU(cuFuncGetName(&name, k1_));
  EXPECT_STREQ(name, "k1ms");
  CUfunction missing;
  EXPECT_EQ(cuModuleGetFunction(&missing, module_, "nope"), CUDA_ERROR_NOT_FOUND);
  CUmodule bad;
  EXPECT_EQ(cuModuleLoadData(&bad, "not a module"), CUDA_ERROR_INVALID_IMAGE);
}

TEST_F(DriverApiTest, MemoryIsAccountedAndCopiesMoveBytes) {
  size_t free0, total;
  ASSERT_CU(cuMemGetInfo(&free0, &total));
  EXPECT_EQ(total, 4ULL << 30);
  CUdeviceptr p;
  ASSERT_CU(cuMemAlloc(&p, 1ULL << 30));
  size_t free1;
  ASSERT_CU(cuMemGetInfo(&free1, &total));
  EXPECT_EQ(free0 - free1, 1ULL << 30);
  CUdeviceptr too_big;
  EXPECT_EQ(cuMemAlloc(&too_big, 4ULL << 30), CUDA_ERROR_OUT_OF_MEMORY);
  std::vector<int> in(1000), out(1000, 0);
  for (int i = 0; i < 1000; ++i) in[i] = i * 7;
  ASSERT_CU(cuMemcpyHtoD(p + 64, in.data(), in.size() * sizeof(int)));
  ASSERT_CU(cuMemcpyDtoH(out.data(), p + 64, out.size() * sizeof(int)));
  EXPECT_EQ(in, out);
  EXPECT_EQ(cuMemcpyHtoD(p + (1ULL << 30) - 4, in.data(), 8), CUDA_ERROR_INVALID_VALUE);
  ASSERT_CU(cuMemFree(p));
  EXPECT_EQ(cuMemFree(p), CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr m, a;
  ASSERT_CU(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL));
  ASSERT_CU(cuMemAllocAsync(&a, 4096, nullptr));
  ASSERT_CU(cuMemFreeAsync(a, nullptr));
  ASSERT_CU(cuMemFree(m));
  size_t free2;
  ASSERT_CU(cuMemGetInfo(&free2, &total));
  EXPECT_EQ(free2, free0);
}

TEST_F(DriverApiTest, ProcAddressHonoursVersionsAndPerThreadFlag) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status;
  ASSERT_CU(cuGetProcAddress_v2("cuMemAlloc", &fn, 12000, 0, &status));
  EXPECT_EQ(fn, Sym("cuMemAlloc_v2"));
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
  ASSERT_CU(cuGetProcAddress_v2("cuLaunchKernel", &fn, 12000,
                                CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status));
  EXPECT_EQ(fn, Sym("cuLaunchKernel_ptsz"));
  ASSERT_CU(cuGetProcAddress_v2("cuLaunchKernel", &fn, 12000, CU_GET_PROC_ADDRESS_LEGACY_STREAM,
                                &status));
  EXPECT_EQ(fn, Sym("cuLaunchKernel"));
  ASSERT_CU(cuGetProcAddress_v2("cuCtxCreate", &fn, 11040, 0, &status));
  EXPECT_EQ(fn, Sym("cuCtxCreate_v3"));
  ASSERT_CU(cuGetProcAddress_v2("cuCtxCreate", &fn, 13000, 0, &status));
  EXPECT_EQ(fn, Sym("cuCtxCreate_v4"));
  // From CUDA 13.0 the base name means the variant that takes a context.
  ASSERT_CU(cuGetProcAddress_v2("cuCtxSynchronize", &fn, 12080, 0, &status));
  EXPECT_EQ(fn, Sym("cuCtxSynchronize"));
  ASSERT_CU(cuGetProcAddress_v2("cuCtxSynchronize", &fn, 13000, 0, &status));
  EXPECT_EQ(fn, Sym("cuCtxSynchronize_v2"));
  EXPECT_EQ(cuGetProcAddress_v2("cuMemAllocAsync", &fn, 10000, 0, &status), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  EXPECT_EQ(cuGetProcAddress_v2("cuNoSuchThing", &fn, 12000, 0, &status), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  // An entry point simgpu lacks resolves to a stub that says so.
  ASSERT_CU(cuGetProcAddress_v2("cuMemsetD8", &fn, 12000, 0, &status));
  auto memset_d8 = reinterpret_cast<CUresult (*)(CUdeviceptr, unsigned char, size_t)>(fn);
  EXPECT_EQ(memset_d8(0, 0, 0), CUDA_ERROR_NOT_SUPPORTED);
  // The v1 lookup (CUDA 11.3 runtimes).
  auto v1 = reinterpret_cast<CUresult (*)(const char*, void**, int, cuuint64_t)>(
      Sym("cuGetProcAddress"));
  ASSERT_NE(v1, nullptr);
  ASSERT_CU(v1("cuStreamSynchronize", &fn, 11030, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM));
  EXPECT_EQ(fn, Sym("cuStreamSynchronize_ptsz"));
}

TEST_F(DriverApiTest, ErrorNamesAndStrings) {
  const char* s = nullptr;
  ASSERT_CU(cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &s));
  EXPECT_STREQ(s, "CUDA_ERROR_OUT_OF_MEMORY");
  ASSERT_CU(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s));
  EXPECT_STREQ(s, "out of memory");
  EXPECT_EQ(cuGetErrorName(static_cast<CUresult>(123456), &s), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(DriverApiTest, ContextsCreatePushPop) {
  CUcontext own;
  ASSERT_CU(cuCtxCreate(&own, nullptr, 0, 1));
  CUcontext cur;
  ASSERT_CU(cuCtxGetCurrent(&cur));
  EXPECT_EQ(cur, own);
  CUdevice dev;
  ASSERT_CU(cuCtxGetDevice(&dev));
  EXPECT_EQ(dev, 1);
  CUcontext popped;
  ASSERT_CU(cuCtxPopCurrent(&popped));
  EXPECT_EQ(popped, own);
  ASSERT_CU(cuCtxPushCurrent(own));
  ASSERT_CU(cuCtxDestroy(own));
  EXPECT_EQ(cuCtxDestroy(ctx_), CUDA_ERROR_INVALID_CONTEXT);  // primary
}

// The driver frees a context's memory with it: a created context's when it is
// destroyed, the primary context's when it is reset or released for the last
// time. (What the shim's memory ledger follows, libiashim/src/hooks_context.cc.)
TEST_F(DriverApiTest, AContextsMemoryGoesWithIt) {
  constexpr size_t kBytes = size_t(64) << 20;
  size_t before = 0, now = 0, total = 0;
  ASSERT_CU(cuMemGetInfo(&before, &total));
  CUdeviceptr p = 0;

  CUcontext own = nullptr;
  ASSERT_CU(cuCtxCreate(&own, nullptr, 0, 0));
  ASSERT_CU(cuMemAlloc(&p, kBytes));
  // Arrays too: 4096 x 4096 single-byte texels, 16 MiB.
  const auto desc = iashim_test::Desc2D(4096, 4096, CU_AD_FORMAT_UNSIGNED_INT8, 1);
  CUarray array = nullptr;
  ASSERT_CU(cuArrayCreate(&array, &desc));
  ASSERT_CU(cuMemGetInfo(&now, &total));
  EXPECT_EQ(now, before - kBytes - (size_t(16) << 20));
  ASSERT_CU(cuCtxDestroy(own));
  ASSERT_CU(cuCtxSetCurrent(ctx_));
  ASSERT_CU(cuMemGetInfo(&now, &total));
  EXPECT_EQ(now, before);
  EXPECT_EQ(cuMemFree(p), CUDA_ERROR_INVALID_VALUE);         // went with its context
  EXPECT_EQ(cuArrayDestroy(array), CUDA_ERROR_INVALID_HANDLE);  // so did the array's memory

  ASSERT_CU(cuMemAlloc(&p, kBytes));
  const auto mip_desc = iashim_test::Desc3D(1024, 1024, 0, CU_AD_FORMAT_FLOAT, 1);
  CUmipmappedArray mipmapped = nullptr;
  ASSERT_CU(cuMipmappedArrayCreate(&mipmapped, &mip_desc, 2));
  CUarray kept = nullptr;  // made and destroyed before the reset: given back once
  ASSERT_CU(cuArrayCreate(&kept, &desc));
  ASSERT_CU(cuArrayDestroy(kept));
  ASSERT_CU(cuDevicePrimaryCtxReset(0));
  ASSERT_CU(cuMemGetInfo(&now, &total));
  EXPECT_EQ(now, before);
  EXPECT_EQ(cuMipmappedArrayDestroy(mipmapped), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_CU(cuMemGetInfo(&now, &total));
  EXPECT_EQ(now, before);  // not given back twice

  // Held twice (the suite holds it too): the first release keeps the memory,
  // the last frees it; retained again, the context works as before.
  CUcontext again = nullptr;
  ASSERT_CU(cuDevicePrimaryCtxRetain(&again, 0));
  ASSERT_CU(cuMemAlloc(&p, kBytes));
  ASSERT_CU(cuDevicePrimaryCtxRelease(0));
  ASSERT_CU(cuMemGetInfo(&now, &total));
  EXPECT_EQ(now, before - kBytes);
  ASSERT_CU(cuDevicePrimaryCtxRelease(0));
  ASSERT_CU(cuMemGetInfo(&now, &total));
  EXPECT_EQ(now, before);
  ASSERT_CU(cuDevicePrimaryCtxRetain(&again, 0));
  EXPECT_EQ(again, ctx_);
  ASSERT_CU(cuMemAlloc(&p, kBytes));
  EXPECT_CU(cuMemFree(p));
}

// The primary context's streams go with its reset and last release, and give
// their slots on the device back: a job that resets its device and makes its
// streams again, twice over, fits in the device's 512 stream slots.
TEST_F(DriverApiTest, APrimaryContextsStreamsGoWithItsReset) {
  constexpr int kStreams = 400;
  for (int round = 0; round < 2; ++round) {
    std::vector<CUstream> streams(kStreams);
    for (CUstream& s : streams) {
      ASSERT_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)) << "round " << round;
    }
    ASSERT_CU(Launch(k1_, streams.back()));
    ASSERT_CU(cuDevicePrimaryCtxReset(0));
    ASSERT_CU(cuModuleGetFunction(&k1_, module_, "k1ms"));  // the module stays
  }
  // The last release too (the suite holds the context once; retained again
  // for the rest of the suite).
  CUcontext again = nullptr;
  std::vector<CUstream> streams(kStreams);
  for (CUstream& s : streams) ASSERT_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  ASSERT_CU(cuDevicePrimaryCtxRelease(0));
  ASSERT_CU(cuDevicePrimaryCtxRetain(&again, 0));
  EXPECT_EQ(again, ctx_);
  for (CUstream& s : streams) ASSERT_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  for (CUstream s : streams) EXPECT_CU(cuStreamDestroy(s));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string ns = iashim_test::UniqueNamespace("driver");
  setenv("SIMGPU_NAMESPACE", ns.c_str(), 1);
  setenv("SIMGPU_DEVICES", "Test GPU A:4GiB:80,Test GPU B:2GiB:40", 1);
  unsetenv("CUDA_VISIBLE_DEVICES");
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  iashim_test::RemoveSimulatedDevices(ns);
  return rc;
}
