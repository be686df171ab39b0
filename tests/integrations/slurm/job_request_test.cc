#include "integrations/slurm/job_request.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace iashim::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(JobRequestTest, PriorityOption) {
  EXPECT_EQ(*ParsePriorityOption(nullptr), client::Priority::kGuaranteed);
  EXPECT_EQ(*ParsePriorityOption(""), client::Priority::kGuaranteed);
  EXPECT_EQ(*ParsePriorityOption("guaranteed"), client::Priority::kGuaranteed);
  EXPECT_EQ(*ParsePriorityOption("opportunistic"), client::Priority::kOpportunistic);
  const auto bad = ParsePriorityOption("best-effort");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("--iashim=best-effort"));
}

TEST(JobRequestTest, MemOption) {
  EXPECT_EQ(*ParseMemOption("16GiB"), uint64_t{16} << 30);
  EXPECT_EQ(*ParseMemOption("1048576"), uint64_t{1} << 20);
  for (const char* bad : {"0", "lots", "", "-5GiB"}) {
    const auto parsed = ParseMemOption(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("--iashim-mem="));
  }
  EXPECT_FALSE(ParseMemOption(nullptr).ok());
}

TEST(JobRequestTest, KindOption) {
  EXPECT_EQ(*ParseKindOption("resnet50"), "resnet50");
  EXPECT_FALSE(ParseKindOption("").ok());
  EXPECT_FALSE(ParseKindOption(nullptr).ok());
  EXPECT_FALSE(ParseKindOption("bad\nkind").ok());
}

TEST(JobRequestTest, TheCoordinatorKnowsATaskByItsSlurmIds) {
  EXPECT_EQ(CoordinatorJobName({1234, "0", 3}), "slurm-1234.0.3");
  EXPECT_EQ(CoordinatorJobName({7, "batch", 0}), "slurm-7.batch.0");
  // A step on two nodes: local ids repeat on each, the step's ids do not.
  EXPECT_EQ(CoordinatorJobName({67, "0", 0, 3, 1, 2}), "slurm-67.0.3");
  EXPECT_EQ(CoordinatorJobName({67, "0", 0, 0, 0, 2}), "slurm-67.0.0");
  EXPECT_EQ(CoordinatorGangName({67, "0", 0, 0, 0, 1}), "slurm-67.0");
  EXPECT_EQ(CoordinatorGangName({67, "0", 1, 3, 1, 2}), "slurm-67.0.node1");
  EXPECT_EQ(TaskPlacement({}, {67, "0", 0, 3, 1, 2}, {}).batch.task, 3);
}

TEST(JobRequestTest, TaskPlacementCarriesEverything) {
  UserOptions user;
  user.enabled = true;
  user.priority = client::Priority::kOpportunistic;
  user.mem_bytes = 1 << 30;
  user.kind = "lstm";
  user.movable = true;
  const client::PlacementOptions p = TaskPlacement(user, {42, "1", 2}, {0, 1});
  EXPECT_EQ(p.job, "slurm-42.1.2");
  EXPECT_EQ(p.priority, client::Priority::kOpportunistic);
  EXPECT_EQ(p.mem_bytes, uint64_t{1} << 30);
  EXPECT_EQ(p.kind, "lstm");
  EXPECT_TRUE(p.movable);
  EXPECT_EQ(p.gpu, -1);
  EXPECT_THAT(p.allowed_gpus, ElementsAre(0, 1));
  EXPECT_EQ(p.batch.system, "slurm");
  EXPECT_EQ(p.batch.job, "42");
  EXPECT_EQ(p.batch.step, "1");
  EXPECT_EQ(p.batch.task, 2);
}

}  // namespace
}  // namespace iashim::slurm
