// Several real processes on one simulated GPU: memory is accounted across them,
// and a process killed in the middle of its work frees its memory and its slot
// without wedging the others. The parent only orchestrates (it never initialises
// CUDA itself); each child reports through its exit status.
#include <cuda.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <thread>

#include "tests/simgpu/process/child_process.h"
#include "tests/simgpu/test_env.h"

namespace {

using iashim_test::ExitStatus;
using iashim_test::Spawn;

constexpr size_t kGiB = 1ULL << 30;
const char kImage[] = "simgpu-module 1\nkernel long fixed_us=1000000 mem=0.5\n"
                      "kernel short fixed_us=10000 mem=0.5\n";

// Opens the primary context of device 0 in the calling (child) process.
bool OpenDevice() {
  CUdevice dev;
  CUcontext ctx;
  return cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS &&
         cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS &&
         cuCtxSetCurrent(ctx) == CUDA_SUCCESS;
}

// A child that takes `bytes`, launches `long_kernels` one-second kernels, says
// "ready" on `fd` and then waits to be killed.
int HoldAndWait(size_t bytes, int long_kernels, int fd) {
  if (!OpenDevice()) return 10;
  CUdeviceptr p;
  if (cuMemAlloc(&p, bytes) != CUDA_SUCCESS) return 11;
  CUmodule m;
  CUfunction f;
  if (cuModuleLoadData(&m, kImage) != CUDA_SUCCESS) return 12;
  if (cuModuleGetFunction(&f, m, "long") != CUDA_SUCCESS) return 13;
  for (int i = 0; i < long_kernels; ++i) {
    if (cuLaunchKernel(f, 160, 1, 1, 128, 1, 1, 0, nullptr, nullptr, nullptr) != CUDA_SUCCESS)
      return 14;
  }
  char c = 'r';
  if (write(fd, &c, 1) != 1) return 15;
  for (;;) pause();
}

class SharedDeviceProcessesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ns_ = iashim_test::UniqueNamespace(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    setenv("SIMGPU_NAMESPACE", ns_.c_str(), 1);
    setenv("SIMGPU_DEVICES", "Shared GPU:4GiB:80", 1);
    ASSERT_EQ(pipe(fds_), 0);
  }
  void TearDown() override {
    close(fds_[0]);
    close(fds_[1]);
    iashim_test::RemoveSimulatedDevices(ns_);
  }
  // A child that fails before saying "ready" must fail the test, not hang it.
  void WaitReady() {
    pollfd p{fds_[0], POLLIN, 0};
    ASSERT_EQ(poll(&p, 1, 30'000), 1) << "the child never became ready";
    char c;
    ASSERT_EQ(read(fds_[0], &c, 1), 1);
  }
  std::string ns_;
  int fds_[2];
};

TEST_F(SharedDeviceProcessesTest, AllocationPastCapacityFailsAcrossProcesses) {
  const pid_t holder = Spawn([&] { return HoldAndWait(3 * kGiB, 0, fds_[1]); });
  WaitReady();
  // 3 GiB of 4 are held by another process: 2 GiB do not fit, 512 MiB do.
  const pid_t second = Spawn([] {
    if (!OpenDevice()) return 10;
    CUdeviceptr p;
    if (cuMemAlloc(&p, 2 * kGiB) != CUDA_ERROR_OUT_OF_MEMORY) return 20;
    if (cuMemAlloc(&p, kGiB / 2) != CUDA_SUCCESS) return 21;
    size_t free_bytes, total;
    if (cuMemGetInfo(&free_bytes, &total) != CUDA_SUCCESS) return 22;
    return free_bytes == total - 3 * kGiB - kGiB / 2 ? 0 : 23;
  });
  EXPECT_EQ(ExitStatus(second), 0);
  kill(holder, SIGKILL);
  ExitStatus(holder);
}

TEST_F(SharedDeviceProcessesTest, KilledProcessFreesItsMemory) {
  const pid_t holder = Spawn([&] { return HoldAndWait(3 * kGiB, 2, fds_[1]); });
  WaitReady();
  kill(holder, SIGKILL);
  ExitStatus(holder);
  // Once the dead process is noticed (within the reap period), its 3 GiB return.
  const pid_t next = Spawn([] {
    if (!OpenDevice()) return 10;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    CUdeviceptr p;
    while (cuMemAlloc(&p, 3 * kGiB) != CUDA_SUCCESS) {
      if (std::chrono::steady_clock::now() > deadline) return 30;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return 0;
  });
  EXPECT_EQ(ExitStatus(next), 0);
}

TEST_F(SharedDeviceProcessesTest, KilledMidKernelDoesNotWedgeOthers) {
  // The victim queues ten seconds of work, then dies in the middle of it.
  const pid_t victim = Spawn([&] { return HoldAndWait(kGiB, 10, fds_[1]); });
  WaitReady();
  kill(victim, SIGKILL);
  ExitStatus(victim);
  const pid_t survivor = Spawn([] {
    if (!OpenDevice()) return 10;
    CUmodule m;
    CUfunction f;
    if (cuModuleLoadData(&m, kImage) != CUDA_SUCCESS) return 12;
    if (cuModuleGetFunction(&f, m, "short") != CUDA_SUCCESS) return 13;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 10; ++i) {
      if (cuLaunchKernel(f, 160, 1, 1, 128, 1, 1, 0, nullptr, nullptr, nullptr) != CUDA_SUCCESS)
        return 14;
    }
    if (cuCtxSynchronize() != CUDA_SUCCESS) return 15;
    // 100 ms of work; had the dead process's ten seconds kept running beside it,
    // this would take far longer.
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return s < 2.0 ? 0 : 40;
  });
  EXPECT_EQ(ExitStatus(survivor), 0);
}

// NVML, loaded the way monitoring tools load it.
struct Nvml {
  void* lib = nullptr;
  template <typename F>
  F Get(const char* name) {
    return reinterpret_cast<F>(dlsym(lib, name));
  }
};

TEST_F(SharedDeviceProcessesTest, NvmlSeesProcessesMemoryAndUtilisation) {
  const pid_t worker = Spawn([&] { return HoldAndWait(kGiB, 5, fds_[1]); });
  WaitReady();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Nvml nvml{dlopen(SIMGPU_NVML_PATH, RTLD_NOW | RTLD_LOCAL)};
  ASSERT_NE(nvml.lib, nullptr) << dlerror();
  ASSERT_EQ(nvml.Get<int (*)()>("nvmlInit_v2")(), 0);
  unsigned count = 0;
  ASSERT_EQ(nvml.Get<int (*)(unsigned*)>("nvmlDeviceGetCount_v2")(&count), 0);
  ASSERT_EQ(count, 1u);
  void* dev = nullptr;
  ASSERT_EQ(nvml.Get<int (*)(unsigned, void**)>("nvmlDeviceGetHandleByIndex_v2")(0, &dev), 0);
  char name[96];
  ASSERT_EQ(nvml.Get<int (*)(void*, char*, unsigned)>("nvmlDeviceGetName")(dev, name, 96), 0);
  EXPECT_STREQ(name, "Shared GPU");
  struct Memory {
    unsigned long long total, free, used;
  } mem;
  ASSERT_EQ(nvml.Get<int (*)(void*, Memory*)>("nvmlDeviceGetMemoryInfo")(dev, &mem), 0);
  EXPECT_EQ(mem.total, 4 * kGiB);
  EXPECT_EQ(mem.used, kGiB);
  struct Proc {
    unsigned pid;
    unsigned long long used;
    unsigned gi, ci;
  } procs[8];
  unsigned n = 8;
  ASSERT_EQ(nvml.Get<int (*)(void*, unsigned*, Proc*)>("nvmlDeviceGetComputeRunningProcesses_v3")(
                dev, &n, procs),
            0);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(procs[0].pid, static_cast<unsigned>(worker));
  EXPECT_EQ(procs[0].used, kGiB);
  struct Util {
    unsigned gpu, memory;
  } util;
  ASSERT_EQ(nvml.Get<int (*)(void*, Util*)>("nvmlDeviceGetUtilizationRates")(dev, &util), 0);
  EXPECT_GT(util.gpu, 80u);  // a kernel has been running all along
  // Board power: a kernel filling every SM all along draws near the default
  // 300 W (power_model.h); energy is what that power amounts to.
  unsigned milliwatts = 0;
  ASSERT_EQ(nvml.Get<int (*)(void*, unsigned*)>("nvmlDeviceGetPowerUsage")(dev, &milliwatts), 0);
  EXPECT_GT(milliwatts, 200'000u);
  EXPECT_LE(milliwatts, 300'000u);
  unsigned long long millijoules = 0;
  ASSERT_EQ(nvml.Get<int (*)(void*, unsigned long long*)>("nvmlDeviceGetTotalEnergyConsumption")(
                dev, &millijoules),
            0);
  EXPECT_GT(millijoules, 0u);
  unsigned limit = 0;
  ASSERT_EQ(nvml.Get<int (*)(void*, unsigned*)>("nvmlDeviceGetEnforcedPowerLimit")(dev, &limit), 0);
  EXPECT_EQ(limit, 300'000u);
  kill(worker, SIGKILL);
  ExitStatus(worker);
  EXPECT_EQ(nvml.Get<int (*)()>("nvmlShutdown")(), 0);
  dlclose(nvml.lib);
}

}  // namespace

namespace {

struct UtilSample {
  unsigned pid;
  unsigned long long time_us;
  unsigned sm, mem, enc, dec;
};

// Process utilisation is one aggregate sample per process: since it started
// for a first query (lastSeenTimeStamp 0), since the caller's previous query
// after that, as the shim's share feedback reads it.
TEST_F(SharedDeviceProcessesTest, NvmlProcessUtilSince) {
  const pid_t worker = Spawn([&] { return HoldAndWait(kGiB, 1, fds_[1]); });  // 1 s of kernel
  WaitReady();
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));  // the kernel is done by now
  Nvml nvml{dlopen(SIMGPU_NVML_PATH, RTLD_NOW | RTLD_LOCAL)};
  ASSERT_NE(nvml.lib, nullptr) << dlerror();
  ASSERT_EQ(nvml.Get<int (*)()>("nvmlInit_v2")(), 0);
  void* dev = nullptr;
  ASSERT_EQ(nvml.Get<int (*)(unsigned, void**)>("nvmlDeviceGetHandleByIndex_v2")(0, &dev), 0);
  auto utilization = nvml.Get<int (*)(void*, UtilSample*, unsigned*, unsigned long long)>(
      "nvmlDeviceGetProcessUtilization");
  ASSERT_NE(utilization, nullptr);
  UtilSample s[4];
  unsigned n = 4;
  ASSERT_EQ(utilization(dev, s, &n, 0), 0);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(s[0].pid, static_cast<unsigned>(worker));
  EXPECT_GT(s[0].sm, 10u);  // busy for 1 s of its life so far
  const unsigned long long seen = s[0].time_us;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  n = 4;
  ASSERT_EQ(utilization(dev, s, &n, seen), 0);
  ASSERT_EQ(n, 1u);
  EXPECT_GT(s[0].time_us, seen);
  EXPECT_EQ(s[0].sm, 0u);  // idle since the previous query
  kill(worker, SIGKILL);
  ExitStatus(worker);
  EXPECT_EQ(nvml.Get<int (*)()>("nvmlShutdown")(), 0);
  dlclose(nvml.lib);
}

}  // namespace
