// All-reduces between real processes on simulated GPUs, as a data-parallel job
// runs them: each rank's collective kernel ends when the last rank has reached
// it plus the ring transfer, in every rank alike, whether the ranks are
// processes (torchrun) or devices of one process. The parent only
// orchestrates; each child reports through its exit status and a pipe. With
// SIMGPU_FABRIC, ranks on different simulated nodes (namespaces) meet too, and
// their ring runs at the fabric's bandwidth.
#include <cuda.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "simgpu/include/simgpu/collective.h"
#include "tests/simgpu/process/child_process.h"
#include "tests/simgpu/test_env.h"

namespace {

using iashim_test::ExitStatus;
using iashim_test::Spawn;

// 2 ranks, 100 MB at 10 GB/s: 2 ring steps of 50 MB each (5 ms) after 5 us.
constexpr uint64_t kBytes = 100'000'000;
constexpr double kTransferMs = 2 * (5.0 + 0.005);

const char kCollectiveImage[] =
    "simgpu-module 1\n"
    "kernel lead_50ms fixed_us=50000 mem=0.5\n"
    "kernel compute_5ms fixed_us=5000 mem=0.5\n"
    "kernel compute_300ms fixed_us=300000 mem=0.5\n"
    "kernel all_reduce collective=allreduce mem=0.1\n";

simgpu_collective_args Args(const char* group, uint32_t rank, uint32_t nranks, uint64_t bytes) {
  simgpu_collective_args a{};
  std::strncpy(a.group, group, sizeof(a.group) - 1);
  a.rank = rank;
  a.nranks = nranks;
  a.bytes = bytes;
  return a;
}

// One rank on device `device`: its compute kernel, then the all-reduce; the
// stream's time between events around both goes to `fd` (in microseconds).
// A 50 ms kernel ahead of the first event keeps the device busy while the host
// enqueues the rest, so a host stall between the launches (a loaded CI
// machine, a sanitizer, the first launch's set-up) is not in the span.
struct Rank {
  CUcontext ctx = nullptr;
  CUmodule module = nullptr;
  CUstream stream = nullptr;
  CUevent start = nullptr, end = nullptr;

  bool Open(int device) {
    CUdevice dev;
    return cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, device) == CUDA_SUCCESS &&
           cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS &&
           cuCtxSetCurrent(ctx) == CUDA_SUCCESS &&
           cuModuleLoadData(&module, kCollectiveImage) == CUDA_SUCCESS &&
           cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS &&
           cuEventCreate(&start, 0) == CUDA_SUCCESS && cuEventCreate(&end, 0) == CUDA_SUCCESS;
  }
  // Enqueues compute + all-reduce between the events; returns the result of the launch.
  CUresult Step(const char* compute, simgpu_collective_args* args) {
    CUfunction lead, f, all_reduce;
    if (cuCtxSetCurrent(ctx) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_CONTEXT;
    if (cuModuleGetFunction(&lead, module, "lead_50ms") != CUDA_SUCCESS ||
        cuModuleGetFunction(&f, module, compute) != CUDA_SUCCESS ||
        cuModuleGetFunction(&all_reduce, module, "all_reduce") != CUDA_SUCCESS)
      return CUDA_ERROR_NOT_FOUND;
    if (CUresult rc = cuLaunchKernel(lead, 80, 1, 1, 128, 1, 1, 0, stream, nullptr, nullptr);
        rc != CUDA_SUCCESS)
      return rc;
    cuEventRecord(start, stream);
    if (CUresult rc = cuLaunchKernel(f, 80, 1, 1, 128, 1, 1, 0, stream, nullptr, nullptr);
        rc != CUDA_SUCCESS)
      return rc;
    void* params[] = {args};
    if (CUresult rc = cuLaunchKernel(all_reduce, 8, 1, 1, 256, 1, 1, 0, stream, params, nullptr);
        rc != CUDA_SUCCESS)
      return rc;
    return cuEventRecord(end, stream);
  }
  // The step's span in microseconds, after waiting for it; -1 on error.
  long SpanUs() {
    float ms = -1;
    if (cuCtxSetCurrent(ctx) != CUDA_SUCCESS || cuEventSynchronize(end) != CUDA_SUCCESS ||
        cuEventElapsedTime(&ms, start, end) != CUDA_SUCCESS)
      return -1;
    return std::lround(ms * 1000);
  }
};

class CollectiveProcessesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ns_ = iashim_test::UniqueNamespace(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    setenv("SIMGPU_NAMESPACE", ns_.c_str(), 1);
    setenv("SIMGPU_DEVICES", "2xLinked GPU:4GiB:80", 1);
    setenv("SIMGPU_LINK_GBPS", "10", 1);
    ASSERT_EQ(pipe(go_), 0);
    ASSERT_EQ(pipe(spans_), 0);
  }
  void TearDown() override {
    for (int fd : {go_[0], go_[1], spans_[0], spans_[1]}) close(fd);
    unsetenv("SIMGPU_LINK_GBPS");
    iashim_test::RemoveSimulatedDevices(ns_);
  }
  // Reads one span a child wrote on `fd`, waiting at most 30 s.
  long ReadSpanUs(int fd) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 30'000) != 1) return -2;
    long us = -1;
    return read(fd, &us, sizeof(us)) == sizeof(us) ? us : -3;
  }
  std::string ns_;
  int go_[2];
  int spans_[2];
};

// A rank process: opens its device, then runs two steps (the second shows the
// ranks stay paired) and writes both spans. The slow rank launches first and
// says so on `launched`; the fast rank starts each step only then, so that
// however the host schedules the two processes, the fast rank reaches the
// all-reduce first and waits.
int RankProcess(int rank, const char* compute, int launched_in, int launched_out, int spans) {
  Rank r;
  if (!r.Open(rank)) return 10;
  for (int step = 0; step < 2; ++step) {
    char c = 'l';
    if (launched_in >= 0 && read(launched_in, &c, 1) != 1) return 11;
    simgpu_collective_args args = Args("dp-job", uint32_t(rank), 2, kBytes);
    if (r.Step(compute, &args) != CUDA_SUCCESS) return 12;
    if (launched_out >= 0 && write(launched_out, &c, 1) != 1) return 13;
    const long us = r.SpanUs();
    if (us < 0 || write(spans, &us, sizeof(us)) != sizeof(us)) return 14;
  }
  return 0;
}

TEST_F(CollectiveProcessesTest, EachRankWaitsForTheSlowestThenTransfers) {
  int slow_spans[2], fast_spans[2];
  ASSERT_EQ(pipe(slow_spans), 0);
  ASSERT_EQ(pipe(fast_spans), 0);
  const pid_t slow = Spawn([&] { return RankProcess(1, "compute_300ms", -1, go_[1], slow_spans[1]); });
  const pid_t fast = Spawn([&] { return RankProcess(0, "compute_5ms", go_[0], -1, fast_spans[1]); });
  // The slow rank's step is its 300 ms and the transfer: it arrives last
  // unless the host starts the fast rank more than 295 ms late. The fast rank,
  // started after the slow one, waits for it: its step ends with the slow
  // rank's, so it is at most as long (shorter by how late it started).
  const double expected_us = (300.0 + kTransferMs) * 1000;
  for (int step = 0; step < 2; ++step) {
    const long slow_us = ReadSpanUs(slow_spans[0]);
    const long fast_us = ReadSpanUs(fast_spans[0]);
    ASSERT_GT(slow_us, 0) << "the slow rank failed, step " << step;
    ASSERT_GT(fast_us, 0) << "the fast rank failed, step " << step;
    EXPECT_NEAR(double(slow_us), expected_us, 1500) << "step " << step;
    EXPECT_LE(fast_us, slow_us + 1500) << "step " << step;
    EXPECT_GE(fast_us, (5.0 + kTransferMs) * 1000 - 500) << "step " << step;
  }
  EXPECT_EQ(ExitStatus(fast), 0);
  EXPECT_EQ(ExitStatus(slow), 0);
  for (int fd : {slow_spans[0], slow_spans[1], fast_spans[0], fast_spans[1]}) close(fd);
}

TEST_F(CollectiveProcessesTest, OneProcessDrivingTwoDevicesIsTwoRanks) {
  const pid_t job = Spawn([&] {
    Rank r0, r1;
    if (!r0.Open(0) || !r1.Open(1)) return 10;
    simgpu_collective_args a0 = Args("one-process", 0, 2, kBytes);
    simgpu_collective_args a1 = Args("one-process", 1, 2, kBytes);
    if (r0.Step("compute_300ms", &a0) != CUDA_SUCCESS) return 11;
    if (r1.Step("compute_5ms", &a1) != CUDA_SUCCESS) return 12;
    const long s0 = r0.SpanUs(), s1 = r1.SpanUs();
    if (write(spans_[1], &s0, sizeof(s0)) != sizeof(s0)) return 13;
    if (write(spans_[1], &s1, sizeof(s1)) != sizeof(s1)) return 14;
    return 0;
  });
  // Rank 0 computes 300 ms and arrives last; rank 1, launched just after it,
  // waits for it, so both end together: rank 1's span is shorter by the host
  // time between the two launches.
  const double expected_us = (300.0 + kTransferMs) * 1000;
  const long s0 = ReadSpanUs(spans_[0]), s1 = ReadSpanUs(spans_[0]);
  EXPECT_NEAR(double(s0), expected_us, 1000);
  EXPECT_LE(s1, s0 + 1000);
  EXPECT_GE(s1, (5.0 + kTransferMs) * 1000 - 500);
  EXPECT_EQ(ExitStatus(job), 0);
}

TEST_F(CollectiveProcessesTest, BadArgumentsAreRefusedAtLaunch) {
  const pid_t job = Spawn([&] {
    Rank r;
    if (!r.Open(0)) return 10;
    CUfunction all_reduce;
    if (cuModuleGetFunction(&all_reduce, r.module, "all_reduce") != CUDA_SUCCESS) return 11;
    // No argument at all.
    if (cuLaunchKernel(all_reduce, 8, 1, 1, 256, 1, 1, 0, r.stream, nullptr, nullptr) !=
        CUDA_ERROR_INVALID_VALUE)
      return 12;
    // A rank outside the group, and a bad group name.
    simgpu_collective_args bad_rank = Args("job", 2, 2, kBytes);
    void* p1[] = {&bad_rank};
    if (cuLaunchKernel(all_reduce, 8, 1, 1, 256, 1, 1, 0, r.stream, p1, nullptr) !=
        CUDA_ERROR_INVALID_VALUE)
      return 13;
    simgpu_collective_args bad_name = Args("no spaces", 0, 2, kBytes);
    void* p2[] = {&bad_name};
    if (cuLaunchKernel(all_reduce, 8, 1, 1, 256, 1, 1, 0, r.stream, p2, nullptr) !=
        CUDA_ERROR_INVALID_VALUE)
      return 14;
    // One rank alone completes at once.
    simgpu_collective_args alone = Args("alone", 0, 1, kBytes);
    void* p3[] = {&alone};
    if (cuLaunchKernel(all_reduce, 8, 1, 1, 256, 1, 1, 0, r.stream, p3, nullptr) != CUDA_SUCCESS)
      return 15;
    return cuStreamSynchronize(r.stream) == CUDA_SUCCESS ? 0 : 16;
  });
  EXPECT_EQ(ExitStatus(job), 0);
}

// Two simulated nodes on this machine: two namespaces, each with its own
// GPUs, sharing a fabric directory.
class FabricProcessesTest : public CollectiveProcessesTest {
 protected:
  void SetUp() override {
    CollectiveProcessesTest::SetUp();
    char dir[] = "/tmp/iashim-fabric-proc-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    fabric_ = dir;
    setenv("SIMGPU_FABRIC", fabric_.c_str(), 1);
    setenv("SIMGPU_FABRIC_GBPS", "1", 1);
  }
  void TearDown() override {
    unsetenv("SIMGPU_FABRIC");
    unsetenv("SIMGPU_FABRIC_GBPS");
    iashim_test::RemoveSimulatedDevices(ns_ + "-b");
    ::unlink((fabric_ + "/collectives").c_str());
    ::rmdir(fabric_.c_str());
    CollectiveProcessesTest::TearDown();
  }
  // Reads what a child wrote on `fd` until it closes it, waiting at most 30 s.
  static std::string ReadAll(int fd) {
    std::string text;
    for (int i = 0; i < 64; ++i) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 30'000) != 1) break;
      char buf[512];
      const ssize_t n = read(fd, buf, sizeof(buf));
      if (n <= 0) break;
      text.append(buf, size_t(n));
    }
    return text;
  }
  std::string fabric_;
};

// Rank 0 in this test's namespace and rank 1 in another, both on their
// node's device 0, as Slurm places a job's ranks on two nodes. They complete
// the same all-reduces together, each step taking at least the compute and
// the ring at the fabric's 1 GB/s (the links would take a tenth of that).
TEST_F(FabricProcessesTest, RanksInTwoNamespacesMeetOverTheFabric) {
  const std::string other = ns_ + "-b";
  const pid_t a = Spawn([&] { return RankProcess(0, "compute_5ms", -1, -1, spans_[1]); });
  const pid_t b = Spawn([&] {
    setenv("SIMGPU_NAMESPACE", other.c_str(), 1);
    Rank r;
    if (!r.Open(0)) return 10;
    for (int step = 0; step < 2; ++step) {
      simgpu_collective_args args = Args("dp-job", 1, 2, kBytes);
      if (r.Step("compute_5ms", &args) != CUDA_SUCCESS) return 12;
      const long us = r.SpanUs();
      if (us < 0 || write(go_[1], &us, sizeof(us)) != sizeof(us)) return 14;
    }
    return 0;
  });
  // 2 steps of 50 MB at 1 GB/s, 5 us each.
  const double fabric_ms = 2 * (50.0 + 0.005);
  for (int step = 0; step < 2; ++step) {
    const long a_us = ReadSpanUs(spans_[0]);
    const long b_us = ReadSpanUs(go_[0]);
    ASSERT_GT(a_us, 0) << "rank 0 failed, step " << step;
    ASSERT_GT(b_us, 0) << "rank 1 failed, step " << step;
    EXPECT_GE(a_us, fabric_ms * 1000 - 100) << "step " << step;
    EXPECT_GE(b_us, fabric_ms * 1000 - 100) << "step " << step;
  }
  EXPECT_EQ(ExitStatus(a), 0);
  EXPECT_EQ(ExitStatus(b), 0);
}

TEST_F(FabricProcessesTest, ABadFabricRefusesCollectivesAndSaysWhy) {
  int err[2];
  ASSERT_EQ(pipe(err), 0);
  const std::string missing = fabric_ + "/missing";
  const pid_t job = Spawn([&] {
    dup2(err[1], 2);
    close(err[0]);
    close(err[1]);
    setenv("SIMGPU_FABRIC", missing.c_str(), 1);
    Rank r;
    if (!r.Open(0)) return 10;
    simgpu_collective_args args = Args("dp-job", 0, 2, kBytes);
    // The collective is refused at launch, as when its groups cannot be
    // mapped; the kernel before it runs.
    if (r.Step("compute_5ms", &args) != CUDA_ERROR_INVALID_VALUE) return 11;
    return cuStreamSynchronize(r.stream) == CUDA_SUCCESS ? 0 : 12;
  });
  close(err[1]);
  const std::string text = ReadAll(err[0]);
  close(err[0]);
  EXPECT_EQ(ExitStatus(job), 0);
  EXPECT_NE(text.find("simgpu: SIMGPU_FABRIC='" + missing +
                      "' is invalid: no such directory: give the absolute path of an existing, "
                      "writable directory that the nodes share, or unset it"),
            std::string::npos)
      << text;
}

TEST_F(FabricProcessesTest, ABadFabricBandwidthFailsCuInit) {
  int err[2];
  ASSERT_EQ(pipe(err), 0);
  const pid_t job = Spawn([&] {
    dup2(err[1], 2);
    close(err[0]);
    close(err[1]);
    setenv("SIMGPU_FABRIC_GBPS", "0", 1);
    return cuInit(0) == CUDA_ERROR_INVALID_VALUE ? 0 : 10;
  });
  close(err[1]);
  const std::string text = ReadAll(err[0]);
  close(err[0]);
  EXPECT_EQ(ExitStatus(job), 0);
  EXPECT_NE(text.find("SIMGPU_FABRIC_GBPS='0' is invalid"), std::string::npos) << text;
}

}  // namespace
