#include "coordinator/policy/cluster_state.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace iashim::policy {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

GpuInfo Gpu(std::string host, int index, uint64_t memory) {
  GpuInfo g;
  g.id = {std::move(host), index};
  g.memory_bytes = memory;
  return g;
}

TEST(ClusterStateTest, FindsGpusAndJobs) {
  ClusterState s;
  s.cluster.gpus = {Gpu("a", 0, 16 * kGiB), Gpu("a", 1, 16 * kGiB)};
  s.jobs[{"a", 1}] = {{.job = "j1", .priority = Priority::kGuaranteed, .mem_bytes = kGiB}};
  EXPECT_NE(s.FindGpu({"a", 1}), nullptr);
  EXPECT_EQ(s.FindGpu({"b", 0}), nullptr);
  EXPECT_EQ(s.JobsOn({"a", 0}).size(), 0u);
  EXPECT_EQ(s.JobsOn({"zzz", 7}).size(), 0u);
  ASSERT_EQ(s.JobsOn({"a", 1}).size(), 1u);
  ASSERT_NE(s.FindJob("j1"), nullptr);
  EXPECT_EQ(*s.FindJob("j1"), (GpuId{"a", 1}));
  EXPECT_EQ(s.FindJob("nope"), nullptr);
  EXPECT_EQ(GpuName({"node7", 3}), "node7:3");
}

TEST(ClusterStateTest, FindsEveryGpuOfAGang) {
  ClusterState s;
  s.cluster.gpus = {Gpu("a", 0, 16 * kGiB), Gpu("a", 1, 16 * kGiB), Gpu("a", 2, 16 * kGiB)};
  const PlacedJob gang{.job = "g", .mem_bytes = kGiB, .gpu_count = 2};
  s.jobs[{"a", 2}] = {gang};
  s.jobs[{"a", 0}] = {{.job = "x"}, gang};
  EXPECT_EQ(s.FindJobGpus("g"), (std::vector<GpuId>{{"a", 0}, {"a", 2}}));
  EXPECT_EQ(s.FindJobGpus("x"), (std::vector<GpuId>{{"a", 0}}));
  EXPECT_TRUE(s.FindJobGpus("nope").empty());
}

// job_submit.lua's guaranteed GRES: asked by guaranteed jobs and by gangs,
// one per GPU each is on; an opportunistic one-GPU job asks for none.
TEST(ClusterStateTest, CountsTheGuaranteedGresPerHostAsSlurmDoes) {
  EXPECT_TRUE(AsksGuaranteedGres(Priority::kGuaranteed, 1));
  EXPECT_TRUE(AsksGuaranteedGres(Priority::kOpportunistic, 2));
  EXPECT_FALSE(AsksGuaranteedGres(Priority::kOpportunistic, 1));
  ClusterState s;
  const PlacedJob gang{.job = "g", .priority = Priority::kOpportunistic, .gpu_count = 2};
  const PlacedJob guaranteed{.job = "a", .priority = Priority::kGuaranteed};
  const PlacedJob opportunistic{.job = "b", .priority = Priority::kOpportunistic};
  s.jobs[{"n1", 0}] = {guaranteed, opportunistic};
  s.jobs[{"n1", 1}] = {gang};
  s.jobs[{"n1", 2}] = {gang};
  s.jobs[{"n2", 0}] = {opportunistic};
  EXPECT_EQ(s.GuaranteedGresUsed(), (std::map<std::string, int>{{"n1", 3}}));
}

TEST(ClusterStateTest, ReservationCountsWholeGpuJobsAsAllOfIt) {
  const GpuInfo g = Gpu("a", 0, 16 * kGiB);
  const std::vector<PlacedJob> sized = {{.job = "x", .mem_bytes = 4 * kGiB},
                                        {.job = "y", .mem_bytes = 2 * kGiB}};
  EXPECT_EQ(ReservedBytes(g, sized), 6 * kGiB);
  EXPECT_EQ(FreeBytes(g, sized), 10 * kGiB);
  const std::vector<PlacedJob> whole = {{.job = "x", .mem_bytes = 0}};
  EXPECT_EQ(FreeBytes(g, whole), 0u);
  const std::vector<PlacedJob> huge = {{.job = "x", .mem_bytes = UINT64_MAX},
                                       {.job = "y", .mem_bytes = UINT64_MAX}};
  EXPECT_EQ(ReservedBytes(g, huge), UINT64_MAX);  // saturates
  EXPECT_EQ(FreeBytes(g, huge), 0u);
}

TEST(ClusterStateTest, Fits) {
  const GpuInfo g = Gpu("a", 0, 16 * kGiB);
  const std::vector<PlacedJob> none;
  const std::vector<PlacedJob> some = {{.job = "x", .mem_bytes = 10 * kGiB}};
  const std::vector<PlacedJob> whole = {{.job = "x", .mem_bytes = 0}};
  EXPECT_TRUE(FitsNow(g, none, 0));
  EXPECT_TRUE(FitsNow(g, none, 16 * kGiB));
  EXPECT_FALSE(FitsNow(g, none, 17 * kGiB));
  EXPECT_TRUE(FitsNow(g, some, 6 * kGiB));
  EXPECT_FALSE(FitsNow(g, some, 7 * kGiB));
  EXPECT_FALSE(FitsNow(g, some, 0));
  EXPECT_FALSE(FitsNow(g, whole, 1));
  EXPECT_TRUE(CanEverFit(g, 16 * kGiB));
  EXPECT_FALSE(CanEverFit(g, 17 * kGiB));

  const GpuInfo unknown = Gpu("a", 1, 0);
  EXPECT_TRUE(FitsNow(unknown, some, 100 * kGiB));
  EXPECT_FALSE(FitsNow(unknown, whole, kGiB));
  EXPECT_TRUE(CanEverFit(unknown, 100 * kGiB));
}

TEST(ClusterStateTest, TotalBusyIgnoresNonsense) {
  const std::vector<PlacedJob> jobs = {{.job = "a", .busy = 0.5},
                                       {.job = "b", .busy = 0.75},
                                       {.job = "c", .busy = NAN},
                                       {.job = "d", .busy = -1}};
  EXPECT_DOUBLE_EQ(TotalBusy(jobs), 1.25);
}

}  // namespace
}  // namespace iashim::policy
