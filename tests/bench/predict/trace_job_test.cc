#include "bench/predict/trace_job.h"

#include <gtest/gtest.h>

namespace iashim::predict {
namespace {

constexpr uint32_t kMain = 0;
constexpr uint32_t kGemm = 1;
constexpr uint32_t kTriad = 2;

// A trace of `n` iterations on the main thread: each spends 4 ms on the host,
// launches gemm then two triads, synchronises, and takes 10 ms of wall time;
// gemm runs 4 ms and triad 1 ms when timed. Every launch of gemm is timed,
// triad's only when `time_triad`.
Trace MakeTrace(int n, bool time_triad = true) {
  Trace t;
  t.kernel_names = {{kGemm, "iashim_gemm_tiled"}, {kTriad, "iashim_triad"}};
  uint64_t now = 1'000'000;
  uint64_t seq = 0;
  auto add = [&](uint8_t event, uint32_t kernel, uint32_t grid, uint64_t gpu_ns) {
    TraceEvent e{};
    e.launch.time_ns = now;
    e.launch.seq = seq++;
    e.launch.thread = kMain;
    e.launch.kernel = kernel;
    e.launch.grid[0] = grid;
    e.launch.grid[1] = 1;
    e.launch.grid[2] = 1;
    e.launch.event = event;
    e.gpu_ns = gpu_ns;
    t.events.push_back(e);
  };
  add(2, 0, 0, 0);  // the first synchronising call starts the first iteration
  for (int i = 0; i < n; ++i) {
    now += 4'000'000;
    add(0, kGemm, 160, 4'000'000);
    add(0, kTriad, 40, time_triad ? 1'000'000 : 0);
    add(0, kTriad, 40, time_triad ? 1'000'000 : 0);
    now += 6'000'000;
    add(2, 0, 0, 0);
  }
  return t;
}

TEST(JobFromTrace, OneIterationsKernelsDurationsAndHostTime) {
  TraceJobOptions options;
  options.sm_count = 80;
  options.mem_rules = {{"triad", 0.95}, {"gemm", 0.2}};
  absl::StatusOr<TraceJob> job = JobFromTrace(MakeTrace(50), options);
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_EQ(job->job.iteration.size(), 3u);
  EXPECT_DOUBLE_EQ(job->job.iteration[0].op.remaining_ns, 4'000'000);
  EXPECT_FLOAT_EQ(job->job.iteration[0].op.mem_intensity, 0.2f);
  EXPECT_FLOAT_EQ(job->job.iteration[0].op.sm_fill, 1.0f);  // 160 blocks on 80 SMs
  EXPECT_FLOAT_EQ(job->job.iteration[1].op.mem_intensity, 0.95f);
  EXPECT_FLOAT_EQ(job->job.iteration[1].op.sm_fill, 0.5f);
  EXPECT_DOUBLE_EQ(job->job.host_gap_ns, 4'000'000);  // 10 ms less 6 ms of kernels
  EXPECT_DOUBLE_EQ(job->measured_it_per_s, 100.0);
  EXPECT_EQ(job->kernels_per_iteration, 3u);
  // Steady iterations only: the first fifth and the last tenth are left out.
  EXPECT_EQ(job->iterations_used, 35u);
  EXPECT_EQ(job->unsampled_kernels, 0u);
}

// Untimed kernels share what the wall time leaves after the host time before
// the first launch (4 ms) and the timed kernels (4 ms): 1 ms each, as they ran.
TEST(JobFromTrace, UntimedKernelsShareWhatTheWallTimeLeaves) {
  absl::StatusOr<TraceJob> job = JobFromTrace(MakeTrace(50, false), TraceJobOptions{});
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->unsampled_kernels, 2u);
  EXPECT_DOUBLE_EQ(job->job.iteration[1].op.remaining_ns, 1'000'000);
  EXPECT_DOUBLE_EQ(job->job.host_gap_ns, 4'000'000);
  EXPECT_FLOAT_EQ(job->job.iteration[1].op.mem_intensity, 0.5f);  // no rule: the default
}

TEST(JobFromTrace, TooShortOrUntimedTracesSaySo) {
  absl::StatusOr<TraceJob> short_trace = JobFromTrace(MakeTrace(6), TraceJobOptions{});
  ASSERT_FALSE(short_trace.ok());
  EXPECT_NE(short_trace.status().message().find("at least 10"), std::string::npos)
      << short_trace.status();
  EXPECT_FALSE(JobFromTrace(Trace{}, TraceJobOptions{}).ok());
  Trace untimed = MakeTrace(50);
  for (TraceEvent& e : untimed.events) e.gpu_ns = 0;
  absl::StatusOr<TraceJob> none = JobFromTrace(untimed, TraceJobOptions{});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("timed"), std::string::npos);
}

TEST(ParseMemRules, NameEqualsIntensity) {
  auto rules = ParseMemRules("gemm=0.2,triad=0.95");
  ASSERT_TRUE(rules.ok()) << rules.status();
  ASSERT_EQ(rules->size(), 2u);
  EXPECT_EQ((*rules)[1].first, "triad");
  EXPECT_DOUBLE_EQ((*rules)[1].second, 0.95);
  EXPECT_TRUE(ParseMemRules("")->empty());
  for (const char* bad : {"gemm", "=0.5", "gemm=2", "gemm=x", "gemm=0.2,"}) {
    EXPECT_FALSE(ParseMemRules(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace iashim::predict
