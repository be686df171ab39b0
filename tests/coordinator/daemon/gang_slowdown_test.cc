// What each GPU of a guaranteed gang is held to (gang_slowdown.h), from the
// ranks' own telemetry: how long each waits in NCCL's kernels says which rank
// the gang waits for. Driven with windows as the shim sends them.
#include "coordinator/daemon/gang_slowdown.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/wire/kernel_id.h"

namespace iashim::daemon {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr char kNcclAllReduce[] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
constexpr char kCudnnConv[] = "volta_scudnn_128x64_relu_interior_nn_v1";

// One second of a rank that iterates every `iteration_ms`, of which it spends
// `collective_ms` in the all-reduce (every launch timed, as the shim does).
policy::TelemetryWindow RankSecond(int index, double iteration_ms, double collective_ms) {
  policy::TelemetryWindow w;
  w.window_start_ns = uint64_t(index) * 1000 * kMs;
  w.window_end_ns = w.window_start_ns + 1000 * kMs;
  const uint32_t iterations = 4;
  w.iterations = iterations;
  w.iteration_ns = uint64_t(iteration_ms * kMs);
  w.launches = 400 + iterations;
  w.sample_every = 64;
  const double collective_fraction = collective_ms / iteration_ms;
  w.kernels.push_back({KernelId(kCudnnConv), 400, 6, uint64_t(6 * kMs)});
  w.kernels.push_back(
      {KernelId(kNcclAllReduce), iterations, iterations,
       uint64_t(collective_fraction * 1000 * kMs)});  // the window's collective time
  return w;
}

// A rank measured alone for 10 s, then for 10 s as given.
RankProcess MeasuredRank(double solo_ms, double solo_collective_ms, double now_ms, double collective_ms) {
  RankProcess r{.connected = true, .profile = NewJobProfile()};
  r.profile.AddKernelName(KernelId(kNcclAllReduce), kNcclAllReduce);
  r.profile.AddKernelName(KernelId(kCudnnConv), kCudnnConv);
  int i = 0;
  for (; i < 10; ++i) r.profile.AddWindow(RankSecond(i, solo_ms, solo_collective_ms), true);
  for (; i < 40; ++i) r.profile.AddWindow(RankSecond(i, now_ms, collective_ms), false);
  return r;
}

// A gang of two on GPUs 0 and 1 of node1. Alone: 200 ms iterations, 20 ms of
// them in the all-reduce (its transfer). Now rank 0's GPU is shared and its
// compute takes 50 ms longer: every rank iterates in 250 ms, rank 0 still
// spends 20 ms in the all-reduce and rank 1, which waits for it, 70 ms.
Job StraggledGang() {
  Job job;
  job.id = "ddp";
  job.gang_gpus = {{"node1", 0}, {"node1", 1}};
  job.gpu = job.gang_gpus[0];
  job.connected = true;
  job.ranks[0] = MeasuredRank(200, 20, 250, 20);
  job.ranks[1] = MeasuredRank(200, 20, 250, 70);
  return job;
}

TEST(GangSlowdown, TheProfileMeasuresTimeInCollectivesNowAndAlone) {
  const RankProcess r = MeasuredRank(200, 20, 250, 70);
  ASSERT_TRUE(r.profile.collective_fraction());
  EXPECT_NEAR(*r.profile.collective_fraction(), 70.0 / 250, 0.01);
  ASSERT_TRUE(r.profile.solo_collective_fraction());
  EXPECT_NEAR(*r.profile.solo_collective_fraction(), 20.0 / 200, 0.01);
}

TEST(GangSlowdown, AKernelNotNamedNcclIsNotACollective) {
  policy::JobProfile p = NewJobProfile();
  for (int i = 0; i < 5; ++i) p.AddWindow(RankSecond(i, 200, 20), true);  // no names yet
  ASSERT_TRUE(p.collective_fraction());
  EXPECT_EQ(*p.collective_fraction(), 0);
}

TEST(GangSlowdown, StragglerAwareChargesTheSlowRanksGpuWithTheWholeSlowdown) {
  const Job job = StraggledGang();
  ASSERT_TRUE(Slowdown(job));
  EXPECT_NEAR(*Slowdown(job), 0.25, 0.01);
  const auto s0 = SlowdownOnGpu(job, {"node1", 0}, GangBudgets::kStragglerAware);
  const auto s1 = SlowdownOnGpu(job, {"node1", 1}, GangBudgets::kStragglerAware);
  ASSERT_TRUE(s0 && s1);
  EXPECT_NEAR(*s0, 0.25, 0.01);  // the gang waits for rank 0: its GPU is held to the gang's rate
  EXPECT_NEAR(*s1, 0.0, 0.01);   // rank 1 has 50 ms of slack: its GPU costs the gang nothing
  // Its slack, as status shows it: 50 ms of a 200 ms solo iteration.
  EXPECT_NEAR(RankSlack(job, 1).value_or(-1), 0.25, 0.01);
  EXPECT_NEAR(RankSlack(job, 0).value_or(-1), 0.0, 0.01);
}

TEST(GangSlowdown, IndependentHoldsEachGpuToItsOwnRanksTimeOutsideCollectives) {
  const Job job = StraggledGang();
  const auto s0 = SlowdownOnGpu(job, {"node1", 0}, GangBudgets::kIndependent);
  const auto s1 = SlowdownOnGpu(job, {"node1", 1}, GangBudgets::kIndependent);
  ASSERT_TRUE(s0 && s1);
  EXPECT_NEAR(*s0, 230.0 / 180 - 1, 0.01);  // its compute: 180 ms alone, 230 ms now
  EXPECT_NEAR(*s1, 0.0, 0.01);
}

TEST(GangSlowdown, AverageHoldsEveryGpuToTheMeanOfTheRanksOwnSlowdowns) {
  const Job job = StraggledGang();
  for (const int g : {0, 1}) {
    const auto s = SlowdownOnGpu(job, {"node1", g}, GangBudgets::kAverage);
    ASSERT_TRUE(s);
    EXPECT_NEAR(*s, (230.0 / 180 - 1) / 2, 0.01) << "GPU " << g;  // half the slow rank's
  }
}

TEST(GangSlowdown, TwoEquallySlowedRanksAreBothHeldToTheGangsRate) {
  Job job = StraggledGang();
  job.ranks[1] = MeasuredRank(200, 20, 250, 20);
  for (const int g : {0, 1}) {
    const auto s = SlowdownOnGpu(job, {"node1", g}, GangBudgets::kStragglerAware);
    ASSERT_TRUE(s);
    EXPECT_NEAR(*s, 0.25, 0.01) << "GPU " << g;
  }
}

TEST(GangSlowdown, WhatIsNotKnownFallsBackToTheGangsSlowdown) {
  Job job = StraggledGang();
  // A GPU none of its connected ranks runs on (rank 1 gone), a GPU it does
  // not hold, and a one-GPU job: all the job's slowdown.
  job.ranks[1].connected = false;
  const double gang = Slowdown(job).value();
  EXPECT_NEAR(SlowdownOnGpu(job, {"node1", 1}, GangBudgets::kStragglerAware).value(), gang, 1e-9);
  EXPECT_NEAR(SlowdownOnGpu(job, {"node1", 3}, GangBudgets::kIndependent).value(), gang, 1e-9);
  Job single;
  single.gpu = policy::GpuId{"node1", 2};
  single.profile = MeasuredRank(200, 0, 240, 0).profile;
  EXPECT_NEAR(SlowdownOnGpu(single, {"node1", 2}, GangBudgets::kStragglerAware).value(), 0.2, 0.01);
  EXPECT_FALSE(RankSlack(single, 0));
}

// A gang's every rank iterates at its pace, so a pace read against its
// ranks' baselines is worst against the fastest rank's alone; a rank gone is
// not counted; a one-process job reads against its profile's baseline.
TEST(GangSlowdown, APaceIsReadAgainstTheLeastConnectedBaseline) {
  Job job = StraggledGang();
  job.ranks[1] = MeasuredRank(180, 20, 250, 20);
  EXPECT_NEAR(SlowdownAt(job, 270e6).value(), 270.0 / 180 - 1, 1e-3);
  job.ranks[1].connected = false;
  EXPECT_NEAR(SlowdownAt(job, 270e6).value(), 270.0 / 200 - 1, 1e-3);
  Job single;
  single.gpu = policy::GpuId{"node1", 2};
  single.profile = MeasuredRank(200, 0, 240, 0).profile;
  EXPECT_NEAR(SlowdownAt(single, 230e6).value(), 0.15, 1e-3);
  single.profile = NewJobProfile();
  EXPECT_FALSE(SlowdownAt(single, 230e6));  // no baseline
}

TEST(GangSlowdown, ModesParseByName) {
  EXPECT_EQ(ParseGangBudgets("straggler"), GangBudgets::kStragglerAware);
  EXPECT_EQ(ParseGangBudgets("independent"), GangBudgets::kIndependent);
  EXPECT_EQ(ParseGangBudgets("average"), GangBudgets::kAverage);
  EXPECT_FALSE(ParseGangBudgets("Straggler"));
  EXPECT_FALSE(ParseGangBudgets(""));
}

}  // namespace
}  // namespace iashim::daemon
