#include "coordinator/clustersim/alibaba_fragmentation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coordinator/policy/cluster_state.h"

namespace iashim::clustersim {
namespace {

policy::GpuInfo Gpu(std::string host, int index, std::string model) {
  return {.id = {std::move(host), index}, .type = std::move(model), .memory_bytes = kGpuMilli};
}

policy::PlacedJob Job(std::string name, uint64_t milli) {
  return {.job = std::move(name), .priority = policy::Priority::kOpportunistic,
          .mem_bytes = milli};
}

// Node a: two T4s, a:0 with 300 milli taken, a:1 empty. Node b: one V100
// held whole. 3000 milli in all, 1300 allocated, 1700 free, 700 of it on a
// partially allocated GPU.
policy::ClusterState HandBuilt() {
  policy::ClusterState s;
  s.cluster.gpus = {Gpu("a", 0, "T4"), Gpu("a", 1, "T4"), Gpu("b", 0, "V100")};
  s.jobs[{"a", 0}] = {Job("x", 300)};
  s.jobs[{"b", 0}] = {Job("y", 0)};
  return s;
}

TEST(AlibabaFragmentationTest, CountsAllocatedAndPartial) {
  absl::StatusOr<Fragmentation> f = MeasureFragmentation(HandBuilt(), {});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->total_milli, 3000);
  EXPECT_EQ(f->allocated_milli, 1300);
  EXPECT_EQ(f->free_milli, 1700);
  EXPECT_EQ(f->partial_free_milli, 700);
  EXPECT_DOUBLE_EQ(f->alloc_rate, 1300.0 / 3000);
  EXPECT_DOUBLE_EQ(f->partial_share, 700.0 / 1700);
  EXPECT_DOUBLE_EQ(f->workload_share, 0);  // no workload: nothing unusable
}

TEST(AlibabaFragmentationTest, WorkloadShareFollowsEachClass) {
  const policy::ClusterState s = HandBuilt();
  const auto share = [&](std::vector<WorkloadClass> w) {
    absl::StatusOr<Fragmentation> f = MeasureFragmentation(s, w);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? f->workload_share : -1;
  };
  // Half a GPU fits on a:0 (700 free) and a:1: nothing is lost.
  EXPECT_DOUBLE_EQ(share({{.milli = 500, .weight = 1}}), 0);
  // 800 milli: a:0's 700 are lost.
  EXPECT_DOUBLE_EQ(share({{.milli = 800, .weight = 1}}), 700.0 / 1700);
  // A whole GPU: the partial GPU's free milli is lost.
  EXPECT_DOUBLE_EQ(share({{.milli = 1000, .weight = 1}}), 700.0 / 1700);
  // Two whole GPUs of one node: node a has one free GPU, so all of it is lost.
  EXPECT_DOUBLE_EQ(share({{.milli = 1000, .gpus = 2, .weight = 1}}), 1.0);
  // Only V100s accepted: the T4s' free milli is lost (b has none).
  EXPECT_DOUBLE_EQ(share({{.milli = 100, .models = {"V100"}, .weight = 1}}), 1.0);
  // Expectation over the classes.
  EXPECT_DOUBLE_EQ(share({{.milli = 500, .weight = 0.5}, {.milli = 1000, .gpus = 2, .weight = 0.5}}),
                   0.5);
}

TEST(AlibabaFragmentationTest, TrackerMatchesFromScratch) {
  policy::ClusterState s = HandBuilt();
  FragmentationTracker tracker(s.cluster);
  tracker.SetAllocated(0, 300);
  tracker.SetAllocated(2, 1000);
  tracker.SetAllocated(1, 450);  // then changes its mind twice
  tracker.SetAllocated(1, 1000);
  tracker.SetAllocated(1, 0);
  const std::vector<WorkloadClass> w = {{.milli = 800, .weight = 0.25},
                                        {.milli = 1000, .gpus = 2, .weight = 0.5},
                                        {.milli = 200, .models = {"T4"}, .weight = 0.25}};
  const Fragmentation a = tracker.Measure(w);
  absl::StatusOr<Fragmentation> b = MeasureFragmentation(s, w);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a.allocated_milli, b->allocated_milli);
  EXPECT_EQ(a.partial_free_milli, b->partial_free_milli);
  EXPECT_DOUBLE_EQ(a.workload_share, b->workload_share);

  // Freed, nothing is on partial GPUs; what remains unusable is what no
  // placement could help: node b is too small for the gang (0.5 of the
  // weight) and the T4-only class cannot use b (0.25), b being 1/3 of it all.
  tracker.SetAllocated(0, 0);
  tracker.SetAllocated(2, 0);
  const Fragmentation empty = tracker.Measure(w);
  EXPECT_EQ(empty.free_milli, 3000);
  EXPECT_DOUBLE_EQ(empty.partial_share, 0);
  EXPECT_DOUBLE_EQ(empty.workload_share, (0.5 + 0.25) / 3);
}

TEST(AlibabaFragmentationTest, FullClusterHasNoShares) {
  policy::ClusterState s = HandBuilt();
  s.jobs[{"a", 0}] = {Job("x", 0)};
  s.jobs[{"a", 1}] = {Job("z", 1000)};
  const std::vector<WorkloadClass> w = {{.milli = 100, .weight = 1}};
  absl::StatusOr<Fragmentation> f = MeasureFragmentation(s, w);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->free_milli, 0);
  EXPECT_DOUBLE_EQ(f->alloc_rate, 1.0);
  EXPECT_DOUBLE_EQ(f->partial_share, 0);
  EXPECT_DOUBLE_EQ(f->workload_share, 0);
}

TEST(AlibabaFragmentationTest, RejectsGpusNotInMilli) {
  policy::ClusterState s = HandBuilt();
  s.cluster.gpus[1].memory_bytes = 16;
  EXPECT_FALSE(MeasureFragmentation(s, {}).ok());
}

}  // namespace
}  // namespace iashim::clustersim
