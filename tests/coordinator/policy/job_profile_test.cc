#include "coordinator/policy/job_profile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "coordinator/policy/hash.h"

namespace iashim::policy {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kS = 1'000'000'000;

// Builds consecutive windows of one process.
class Windows {
 public:
  explicit Windows(uint64_t length_ns = kS) : length_ns_(length_ns) {}

  TelemetryWindow Next(uint64_t launches, uint32_t iterations, uint64_t iteration_ns,
                       std::vector<KernelWindow> kernels = {}, double share = 1.0) {
    TelemetryWindow w;
    w.window_start_ns = t_;
    w.window_end_ns = t_ + length_ns_;
    t_ = w.window_end_ns;
    w.launches = launches;
    w.iterations = iterations;
    w.iteration_ns = iteration_ns;
    w.sample_every = 10;
    w.kernels = std::move(kernels);
    w.budget_share = share;
    return w;
  }

 private:
  uint64_t length_ns_;
  uint64_t t_ = 5 * kS;
};

JobProfileOptions NoWarmup() {
  JobProfileOptions o;
  o.warmup_windows = 0;
  o.warmup_iteration_windows = 0;
  o.baseline.min_windows = 3;
  return o;
}

TEST(JobProfileTest, NothingKnownBeforeAnyWindow) {
  JobProfile p;
  EXPECT_FALSE(p.busy().has_value());
  EXPECT_FALSE(p.kernels_per_s().has_value());
  EXPECT_FALSE(p.iteration_ns().has_value());
  EXPECT_FALSE(p.slowdown().has_value());
  EXPECT_EQ(p.slowdown_source(), SlowdownSource::kUnknown);
  EXPECT_EQ(p.fingerprint(), 0u);
  EXPECT_FALSE(p.fingerprint_stable());
  const KernelMix mix = p.kernel_mix();
  EXPECT_EQ(mix.compute + mix.memory + mix.other + mix.unnamed, 0);
}

TEST(JobProfileTest, BusyIsSampledMeanTimesLaunchesOverWindow) {
  JobProfile p;
  Windows w;
  // 100 launches of a 2 ms kernel and 300 of a 1 ms one in 1 s: 0.5 busy.
  p.AddWindow(w.Next(400, 0, 0,
                     {{.kernel = 1, .launches = 100, .sampled = 10, .gpu_ns_sum = 20 * kMs},
                      {.kernel = 2, .launches = 300, .sampled = 30, .gpu_ns_sum = 30 * kMs}}),
              false);
  ASSERT_TRUE(p.busy().has_value());
  EXPECT_NEAR(*p.busy(), 0.5, 1e-9);
  EXPECT_NEAR(*p.kernels_per_s(), 400, 1e-9);
}

TEST(JobProfileTest, BusyIsCappedAtOne) {
  JobProfile p;
  Windows w;
  p.AddWindow(
      w.Next(1000, 0, 0, {{.kernel = 1, .launches = 1000, .sampled = 1, .gpu_ns_sum = 5 * kMs}}),
      false);
  EXPECT_DOUBLE_EQ(*p.busy(), 1.0);
}

TEST(JobProfileTest, UnsampledKernelsCountWithTheirLearnedOrTheJobsMeanDuration) {
  JobProfileOptions o;
  o.tau_s = 0;  // keep only the latest window, to read it directly
  JobProfile p(o);
  Windows w;
  p.AddWindow(
      w.Next(10, 0, 0, {{.kernel = 1, .launches = 10, .sampled = 10, .gpu_ns_sum = 10 * kMs}}),
      false);
  // Kernel 1 is not sampled this time (1 ms learned); kernel 2 never was (the
  // job's mean, 1 ms): 100 + 100 launches of 1 ms in 1 s.
  p.AddWindow(w.Next(200, 0, 0,
                     {{.kernel = 1, .launches = 100, .sampled = 0, .gpu_ns_sum = 0},
                      {.kernel = 2, .launches = 100, .sampled = 0, .gpu_ns_sum = 0}}),
              false);
  EXPECT_NEAR(*p.busy(), 0.2, 1e-9);
}

TEST(JobProfileTest, EwmaFollowsAChangeOverTime) {
  JobProfileOptions o;
  o.tau_s = 3;
  JobProfile p(o);
  Windows w;
  for (int i = 0; i < 10; ++i) p.AddWindow(w.Next(1000, 10, 100 * kMs), false);
  EXPECT_NEAR(*p.iteration_ns(), 100.0 * kMs, 1);
  p.AddWindow(w.Next(1000, 10, 200 * kMs), false);
  // One second of a new value moves a 3 s EWMA by 1 - e^(-1/3) = 28%.
  EXPECT_NEAR(*p.iteration_ns(), (100 + 100 * (1 - std::exp(-1.0 / 3))) * kMs, 1e3);
  for (int i = 0; i < 60; ++i) p.AddWindow(w.Next(1000, 10, 200 * kMs), false);
  EXPECT_NEAR(*p.iteration_ns(), 200.0 * kMs, 1e-3 * kMs);
}

// An iteration longer than the telemetry window completes in only some
// windows; the average still follows a change with the time constant in wall
// time, not in the time of the windows that happened to complete one.
TEST(JobProfileTest, EwmaFollowsInWallTimeWhenIterationsSpanSeveralWindows) {
  JobProfileOptions o;
  o.tau_s = 3;
  JobProfile p(o);
  Windows w(100 * kMs);
  // One 300 ms iteration completes every third 100 ms window.
  auto run = [&](double seconds, uint64_t iteration_ns) {
    for (int i = 0; i < int(std::lround(seconds * 10)); ++i) {
      const bool completes = i % 3 == 2;
      p.AddWindow(w.Next(100, completes ? 1 : 0, completes ? iteration_ns : 0), false);
    }
  };
  run(30, 300 * kMs);
  EXPECT_NEAR(*p.iteration_ns(), 300.0 * kMs, 1);
  run(3, 600 * kMs);  // 3 s of the new value: 63% absorbed
  EXPECT_NEAR(*p.iteration_ns(), (300 + 300 * (1 - std::exp(-1.0))) * kMs, 2 * kMs);
}

TEST(JobProfileTest, WindowsWithoutIterationsLeaveIterationTimeAlone) {
  JobProfile p(NoWarmup());
  Windows w;
  p.AddWindow(w.Next(1000, 1, 800 * kMs), false);
  p.AddWindow(w.Next(1000, 0, 0), false);
  EXPECT_DOUBLE_EQ(*p.iteration_ns(), 800.0 * kMs);
}

// The first window that completes an iteration holds the job's start-up (here
// 3 s against 100 ms): it is not the job's speed, and left in, the 3 s EWMA
// would show the job 10 times slower than alone for seconds, and the control
// loop would cut its co-runners to the floor for it.
TEST(JobProfileTest, TheFirstIterationsWindowIsStartUpNotSpeed) {
  JobProfile p;
  Windows w;
  p.SeedBaseline(100 * kMs);
  p.AddWindow(w.Next(1000, 1, 3000 * kMs), false);
  EXPECT_FALSE(p.iteration_ns().has_value());
  EXPECT_FALSE(p.slowdown().has_value());
  p.AddWindow(w.Next(1000, 10, 105 * kMs), false);
  EXPECT_DOUBLE_EQ(*p.iteration_ns(), 105.0 * kMs);
  EXPECT_NEAR(*p.slowdown(), 0.05, 1e-9);
}

// Slowed by its own budget, then given the whole GPU: what it measured under
// the budget is forgotten, iteration time and launch rate alike, and so is
// the window that straddles the change.
TEST(JobProfileTest, ForgetSpeedStartsTheSlowdownAfresh) {
  JobProfile p;
  Windows w;
  p.SeedBaseline(100 * kMs, 1000);
  for (int i = 0; i < 10; ++i) p.AddWindow(w.Next(300, 1, 300 * kMs), false);
  ASSERT_NEAR(*p.slowdown(), 2.0, 1e-9);
  p.ForgetSpeed();
  EXPECT_FALSE(p.slowdown().has_value());
  EXPECT_FALSE(p.kernels_per_s().has_value());
  p.AddWindow(w.Next(600, 1, 200 * kMs), false);  // straddles the change
  EXPECT_FALSE(p.slowdown().has_value());
  p.AddWindow(w.Next(1000, 1, 101 * kMs), false);
  EXPECT_NEAR(*p.slowdown(), 0.01, 1e-9);
}

TEST(JobProfileTest, TracksMemoryCurrentAndPeak) {
  JobProfile p;
  Windows w;
  for (uint64_t used : {100u, 700u, 300u}) {
    TelemetryWindow x = w.Next(10, 0, 0);
    x.mem_used_bytes = used;
    x.mem_limit_bytes = 1000;
    p.AddWindow(x, false);
  }
  EXPECT_EQ(p.mem_used_bytes(), 300u);
  EXPECT_EQ(p.mem_peak_bytes(), 700u);
  EXPECT_EQ(p.mem_limit_bytes(), 1000u);
}

TEST(JobProfileTest, KernelMixByEstimatedTimeWithNamesArrivingLate) {
  JobProfile p;
  Windows w;
  const uint64_t gemm = Fnv1a("ampere_sgemm_128x64_tn");
  const uint64_t relu = Fnv1a("vectorized_elementwise_kernel_relu");
  const uint64_t mine = Fnv1a("my_kernel");
  p.AddWindow(w.Next(300, 0, 0,
                     {{.kernel = gemm, .launches = 100, .sampled = 10, .gpu_ns_sum = 60 * kMs},
                      {.kernel = relu, .launches = 100, .sampled = 10, .gpu_ns_sum = 30 * kMs},
                      {.kernel = mine, .launches = 100, .sampled = 10, .gpu_ns_sum = 10 * kMs}}),
              false);
  KernelMix mix = p.kernel_mix();
  EXPECT_DOUBLE_EQ(mix.unnamed, 1.0);

  p.AddKernelName(gemm, "ampere_sgemm_128x64_tn");
  p.AddKernelName(relu, "vectorized_elementwise_kernel_relu");
  mix = p.kernel_mix();
  EXPECT_NEAR(mix.compute, 0.6, 1e-9);
  EXPECT_NEAR(mix.memory, 0.3, 1e-9);
  EXPECT_NEAR(mix.unnamed, 0.1, 1e-9);
  p.AddKernelName(mine, "my_kernel");
  EXPECT_NEAR(p.kernel_mix().other, 0.1, 1e-9);
}

TEST(JobProfileTest, FingerprintIsTheKernelSetAndBecomesStable) {
  JobProfileOptions o;
  o.fingerprint_stable_s = 5;
  JobProfile a(o);
  JobProfile b(o);
  Windows wa;
  Windows wb;
  a.AddWindow(wa.Next(2, 0, 0, {{.kernel = 1, .launches = 1}, {.kernel = 2, .launches = 1}}),
              false);
  a.AddWindow(wa.Next(1, 0, 0, {{.kernel = 3, .launches = 1}}), false);
  b.AddWindow(wb.Next(1, 0, 0, {{.kernel = 3, .launches = 1}}), false);
  b.AddWindow(wb.Next(3, 0, 0, {{.kernel = 2, .launches = 2}, {.kernel = 1, .launches = 1}}),
              false);
  EXPECT_EQ(a.fingerprint(), b.fingerprint());
  EXPECT_EQ(a.kernel_count(), 3u);
  EXPECT_FALSE(a.fingerprint_stable());
  for (int i = 0; i < 4; ++i) a.AddWindow(wa.Next(1, 0, 0, {{.kernel = 1, .launches = 1}}), false);
  EXPECT_FALSE(a.fingerprint_stable());
  a.AddWindow(wa.Next(1, 0, 0, {{.kernel = 2, .launches = 1}}), false);
  EXPECT_TRUE(a.fingerprint_stable());
  a.AddWindow(wa.Next(1, 0, 0, {{.kernel = 4, .launches = 1}}), false);
  EXPECT_FALSE(a.fingerprint_stable());
  EXPECT_NE(a.fingerprint(), b.fingerprint());
}

TEST(JobProfileTest, BaselineOnlyFromAloneAndUnthrottledWindows) {
  JobProfile p(NoWarmup());
  Windows w;
  for (int i = 0; i < 5; ++i) p.AddWindow(w.Next(1000, 10, 150 * kMs), /*alone_on_gpu=*/false);
  for (int i = 0; i < 5; ++i) p.AddWindow(w.Next(1000, 10, 300 * kMs, {}, 0.5), true);
  EXPECT_FALSE(p.baseline_iteration_ns().has_value());
  EXPECT_FALSE(p.slowdown().has_value());
  for (int i = 0; i < 3; ++i) p.AddWindow(w.Next(1000, 10, 100 * kMs), true);
  EXPECT_DOUBLE_EQ(*p.baseline_iteration_ns(), 100.0 * kMs);
  for (int i = 0; i < 30; ++i) p.AddWindow(w.Next(1000, 10, 125 * kMs), false);
  ASSERT_TRUE(p.slowdown().has_value());
  EXPECT_NEAR(*p.slowdown(), 0.25, 1e-3);
  EXPECT_EQ(p.slowdown_source(), SlowdownSource::kIterations);
}

// What a budget is a share of (Coordinator::FullPaceGpuTime): the GPU time
// the job takes alone and unthrottled, not what it takes shared or held back.
TEST(JobProfileTest, SoloBusyOnlyFromAloneAndUnthrottledWindows) {
  JobProfile p(NoWarmup());
  Windows w;
  // 100 launches of a 5 ms kernel a second: 0.5 busy.
  const auto kernels = [](uint32_t launches) {
    return std::vector<KernelWindow>{
        {.kernel = 1, .launches = launches, .sampled = 10, .gpu_ns_sum = 50 * kMs}};
  };
  for (int i = 0; i < 5; ++i) p.AddWindow(w.Next(160, 1, 100 * kMs, kernels(160)), false);
  for (int i = 0; i < 5; ++i) p.AddWindow(w.Next(40, 1, 100 * kMs, kernels(40), 0.2), true);
  EXPECT_FALSE(p.solo_busy().has_value());
  for (int i = 0; i < 5; ++i) p.AddWindow(w.Next(100, 1, 100 * kMs, kernels(100)), true);
  ASSERT_TRUE(p.solo_busy().has_value());
  EXPECT_NEAR(*p.solo_busy(), 0.5, 1e-9);
  // Shared again: the busy fraction moves, the solo one stays.
  for (int i = 0; i < 10; ++i) p.AddWindow(w.Next(160, 1, 100 * kMs, kernels(160)), false);
  EXPECT_GT(*p.busy(), 0.7);
  EXPECT_NEAR(*p.solo_busy(), 0.5, 1e-9);
}

// A window's wait for a CPU as a fraction of its length.
TelemetryWindow Waited(TelemetryWindow win, double fraction) {
  win.cpu_wait_ns = uint64_t(fraction * double(win.window_end_ns - win.window_start_ns));
  return win;
}

// An LSTM-like job alone on its GPU (15.2 ms iterations on an idle host)
// whose threads waited 2% of each window for a CPU, and whose iterations
// took as much longer: the baseline is its speed without that wait, and the
// launch rate's the same.
TEST(JobProfileTest, ASoloWindowsWaitForACpuIsTakenOutOfTheBaseline) {
  JobProfile p(NoWarmup());
  Windows w;
  for (int i = 0; i < 5; ++i) p.AddWindow(Waited(w.Next(1000, 64, 15'510'204), 0.02), true);
  EXPECT_NEAR(*p.baseline_iteration_ns(), 15'200'000.0, 1.0);
  EXPECT_NEAR(*p.baseline_kernels_per_s(), 1000 / 0.98, 1e-6);  // 1-s windows
  EXPECT_FALSE(p.baseline_contended());
  // Shared, at the same speed and the same wait: 2% slower than alone on an
  // idle host, what its user sees, and what its co-runners are held against.
  for (int i = 0; i < 30; ++i) p.AddWindow(Waited(w.Next(1000, 64, 15'510'204), 0.02), false);
  EXPECT_NEAR(*p.slowdown(), 0.0204, 1e-3);
}

// Past max_cpu_wait_correction a window's wait is taken out only up to it.
TEST(JobProfileTest, AWaitForACpuIsTakenOutOnlyUpToItsBound) {
  JobProfileOptions o = NoWarmup();
  o.max_cpu_wait_correction = 0.5;
  JobProfile p(o);
  Windows w;
  for (int i = 0; i < 5; ++i) p.AddWindow(Waited(w.Next(1000, 10, 40'000'000), 0.8), true);
  EXPECT_NEAR(*p.baseline_iteration_ns(), 20'000'000.0, 1.0);
}

// An LSTM-like job whose first solo seconds shared the host's CPUs with jobs
// starting beside it: the windows in which one of its threads waited for a
// CPU more than max_solo_cpu_wait read it slow even with their wait taken
// out, and give way to the windows after.
TEST(JobProfileTest, SoloWindowsContendedForACpuGiveWayToUncontendedOnes) {
  JobProfile p(NoWarmup());
  Windows w;
  // 16.7 ms with 5% of wait: 15.865 ms without it, still 4% over 15.2.
  for (int i = 0; i < 4; ++i) p.AddWindow(Waited(w.Next(1000, 60, 16'700'000), 0.05), true);
  EXPECT_NEAR(*p.baseline_iteration_ns(), 15'865'000.0, 1.0);
  EXPECT_TRUE(p.baseline_contended());
  EXPECT_NEAR(*p.cpu_wait(), 0.05, 1e-9);
  // At the threshold a window still counts as uncontended.
  for (int i = 0; i < 3; ++i) p.AddWindow(Waited(w.Next(1000, 66, 15'670'103), 0.03), true);
  EXPECT_NEAR(*p.baseline_iteration_ns(), 15'200'000.0, 1.0);
  EXPECT_FALSE(p.baseline_contended());
  EXPECT_LT(*p.cpu_wait(), 0.05);
  // Shared and contended again later: the slowdown is measured against 15.2
  // ms, the wait left in (the user waits through it too).
  for (int i = 0; i < 30; ++i) p.AddWindow(Waited(w.Next(900, 60, 16'720'000), 0.2), false);
  EXPECT_NEAR(*p.slowdown(), 0.10, 1e-3);
}

TEST(JobProfileTest, WarmupWindowsDoNotCountForTheBaseline) {
  JobProfileOptions o;
  o.warmup_windows = 2;
  o.baseline.min_windows = 1;
  JobProfile p(o);
  Windows w;
  p.AddWindow(w.Next(1000, 1, 900 * kMs), true);
  p.AddWindow(w.Next(1000, 1, 900 * kMs), true);
  EXPECT_FALSE(p.baseline_iteration_ns().has_value());
  p.AddWindow(w.Next(1000, 10, 100 * kMs), true);
  EXPECT_DOUBLE_EQ(*p.baseline_iteration_ns(), 100.0 * kMs);
}

TEST(JobProfileTest, SeededBaselineGivesASlowdownWithoutEverBeingAlone) {
  JobProfile p(NoWarmup());
  p.SeedBaseline(100 * kMs);
  Windows w;
  for (int i = 0; i < 30; ++i) p.AddWindow(w.Next(1000, 10, 110 * kMs), false);
  EXPECT_NEAR(*p.slowdown(), 0.10, 1e-3);
}

TEST(JobProfileTest, FallsBackToKernelRateWhenIterationsAreNotDetected) {
  JobProfile p(NoWarmup());
  Windows w;
  for (int i = 0; i < 3; ++i) p.AddWindow(w.Next(2000, 0, 0), true);
  for (int i = 0; i < 30; ++i) p.AddWindow(w.Next(1600, 0, 0), false);
  ASSERT_TRUE(p.slowdown().has_value());
  EXPECT_NEAR(*p.slowdown(), 0.25, 1e-3);
  EXPECT_EQ(p.slowdown_source(), SlowdownSource::kKernelRate);
}

TEST(JobProfileTest, KernelRateFallbackOfAStalledJobIsClamped) {
  JobProfileOptions o = NoWarmup();
  o.tau_s = 0;
  JobProfile p(o);
  Windows w;
  for (int i = 0; i < 3; ++i) p.AddWindow(w.Next(2000, 0, 0), true);
  p.AddWindow(w.Next(0, 0, 0), false);
  EXPECT_DOUBLE_EQ(*p.slowdown(), o.max_slowdown);
}

TEST(JobProfileTest, AnIterationThatDoesNotEndCountsAsSlow) {
  JobProfile p(NoWarmup());
  Windows w;
  for (int i = 0; i < 3; ++i) p.AddWindow(w.Next(1000, 10, 100 * kMs), true);
  EXPECT_NEAR(*p.slowdown(), 0.0, 1e-9);
  // Slowed so much that no iteration completes for 2 s.
  p.AddWindow(w.Next(10, 0, 0), false);
  p.AddWindow(w.Next(10, 0, 0), false);
  EXPECT_NEAR(*p.slowdown(), 2 * kS / (100.0 * kMs) - 1, 1e-9);
}

TEST(JobProfileTest, BadWindowsAreIgnoredAndCounted) {
  JobProfile p(NoWarmup());
  Windows w;
  const TelemetryWindow first = w.Next(1000, 10, 100 * kMs);
  EXPECT_TRUE(p.AddWindow(first, true));
  EXPECT_FALSE(p.AddWindow(first, true));  // duplicate
  TelemetryWindow earlier = first;
  earlier.window_start_ns -= kS;
  earlier.window_end_ns -= kS;
  EXPECT_FALSE(p.AddWindow(earlier, true));  // out of order
  TelemetryWindow empty = w.Next(1000, 10, 100 * kMs);
  empty.window_end_ns = empty.window_start_ns;
  EXPECT_FALSE(p.AddWindow(empty, true));
  TelemetryWindow nan_share = w.Next(1000, 10, 100 * kMs);
  nan_share.budget_share = NAN;
  EXPECT_FALSE(p.AddWindow(nan_share, true));
  TelemetryWindow absurd = w.Next(1000, 10, UINT64_MAX);
  EXPECT_FALSE(p.AddWindow(absurd, true));

  EXPECT_EQ(p.counts().accepted, 1u);
  EXPECT_EQ(p.counts().out_of_order, 2u);
  EXPECT_EQ(p.counts().defective, 3u);
  EXPECT_EQ(p.counts().last_defect, WindowDefect::kAbsurdIteration);
  EXPECT_DOUBLE_EQ(*p.iteration_ns(), 100.0 * kMs);
  // Windows after the skipped ones are accepted.
  EXPECT_TRUE(p.AddWindow(w.Next(1000, 10, 100 * kMs), true));
}

// Random and extreme input: the profile must never crash or report a
// non-finite number.
TEST(JobProfileTest, RandomInputNeverYieldsNaN) {
  std::mt19937_64 rng(12345);
  auto pick = [&](std::initializer_list<uint64_t> values) {
    std::uniform_int_distribution<size_t> d(0, values.size() - 1);
    return *(values.begin() + d(rng));
  };
  JobProfile p;
  uint64_t t = 10 * kS;
  for (int i = 0; i < 5000; ++i) {
    TelemetryWindow w;
    w.window_start_ns = t + pick({0, 1, kS}) - pick({0, 0, 2 * kS});
    w.window_end_ns = w.window_start_ns + pick({0, 1, kMs, kS, 3600 * kS});
    t = std::max(t, w.window_end_ns);
    w.launches = pick({0, 1, 1000, UINT64_MAX});
    w.iterations = static_cast<uint32_t>(pick({0, 1, 10}));
    w.iteration_ns = pick({0, 1, 100 * kMs, UINT64_MAX});
    w.budget_share = static_cast<double>(pick({0, 1, 2})) / 2.0;
    w.mem_used_bytes = pick({0, 1, UINT64_MAX});
    const int kernels = static_cast<int>(pick({0, 1, 3}));
    for (int k = 0; k < kernels; ++k) {
      w.kernels.push_back({.kernel = pick({1, 2, 3}),
                           .launches = static_cast<uint32_t>(pick({0, 1, UINT32_MAX})),
                           .sampled = static_cast<uint32_t>(pick({0, 1, UINT32_MAX})),
                           .gpu_ns_sum = pick({0, 1, kMs, UINT64_MAX})});
    }
    p.AddWindow(w, pick({0, 1}) == 1);
    if (i % 100 == 0) p.SeedBaseline(pick({0, 1, 100 * kMs}), static_cast<double>(pick({0, 1})));
    for (std::optional<double> v : {p.busy(), p.kernels_per_s(), p.iteration_ns(), p.slowdown(),
                                    p.baseline_iteration_ns(), p.baseline_kernels_per_s()}) {
      if (v.has_value()) {
        ASSERT_TRUE(std::isfinite(*v)) << "window " << i;
      }
    }
    const KernelMix mix = p.kernel_mix();
    for (double f : {mix.compute, mix.memory, mix.other, mix.unnamed}) {
      ASSERT_TRUE(std::isfinite(f) && f >= 0 && f <= 1) << "window " << i;
    }
  }
  EXPECT_GT(p.counts().accepted, 0u);
  EXPECT_GT(p.counts().defective + p.counts().out_of_order, 0u);
}

}  // namespace
}  // namespace iashim::policy
