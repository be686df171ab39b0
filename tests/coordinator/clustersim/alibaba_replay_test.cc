#include "coordinator/clustersim/alibaba_replay.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coordinator/policy/cluster_state.h"
#include "coordinator/policy/placement.h"

namespace iashim::clustersim {
namespace {

using ::testing::HasSubstr;

AlibabaNode Node(std::string sn, int gpus, std::string model) {
  return {.sn = std::move(sn), .cpu_milli = 1000, .memory_mib = 1024, .gpus = gpus,
          .model = std::move(model)};
}

AlibabaPod Pod(std::string name, int num_gpu, int milli, int64_t created, int64_t deleted,
               std::vector<std::string> spec = {}) {
  return {.name = std::move(name), .num_gpu = num_gpu, .gpu_milli = milli,
          .gpu_spec = std::move(spec), .qos = "LS", .phase = "Running",
          .creation_s = created, .deletion_s = deleted};
}

std::vector<std::string> JobsOn(const policy::ClusterState& s, const std::string& host,
                                int index) {
  std::vector<std::string> jobs;
  for (const policy::PlacedJob& j : s.JobsOn({host, index})) jobs.push_back(j.job);
  return jobs;
}

TEST(AlibabaReplayTest, BuildsTheClusterInMilli) {
  const std::vector<AlibabaNode> nodes = {Node("b", 1, "T4"), Node("a", 2, "V100M16")};
  absl::StatusOr<policy::Cluster> c = AlibabaCluster(nodes);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->gpus.size(), 3u);
  // GpuId order.
  EXPECT_EQ(c->gpus[0].id, (policy::GpuId{"a", 0}));
  EXPECT_EQ(c->gpus[1].id, (policy::GpuId{"a", 1}));
  EXPECT_EQ(c->gpus[2].id, (policy::GpuId{"b", 0}));
  EXPECT_EQ(c->gpus[0].type, "V100M16");
  EXPECT_EQ(c->gpus[2].type, "T4");
  EXPECT_EQ(c->gpus[0].memory_bytes, 1000u);
  EXPECT_FALSE(AlibabaCluster(std::vector<AlibabaNode>{Node("a", 1, "T4"), Node("a", 1, "T4")})
                   .ok());
}

// One GPU. Two fractional pods share it; a whole-GPU pod waits until both
// leave; a second whole-GPU pod queues behind it without asking, and starts
// when the first one leaves.
TEST(AlibabaReplayTest, SharesWaitsAndStartsOnDeletion) {
  const std::vector<AlibabaNode> nodes = {Node("a", 1, "T4")};
  const std::vector<AlibabaPod> pods = {
      Pod("p1", 1, 300, 0, 100),    // runs 0..100
      Pod("p2", 1, 400, 10, 100),   // shares: runs 10..100
      Pod("p3", 1, 1000, 20, 70),   // waits 20..100, runs 100..150
      Pod("p4", 1, 1000, 30, 40),   // waits 30..150, runs 150..160
      Pod("cpu", 0, 0, 5, 6),       // skipped
  };
  AlibabaReplayOptions options;
  policy::ClusterState state;

  options.stop_after_arrivals = 2;
  absl::StatusOr<AlibabaReplayResult> two = ReplayAlibaba(nodes, pods, options, &state);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(JobsOn(state, "a", 0), (std::vector<std::string>{"p1", "p2"}));

  options.stop_after_arrivals = -1;
  absl::StatusOr<AlibabaReplayResult> r = ReplayAlibaba(nodes, pods, options, &state);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->pods, 5);
  EXPECT_EQ(r->skipped, 1);
  EXPECT_EQ(r->gpu_pods, 4);
  EXPECT_EQ(r->placed, 4);
  EXPECT_EQ(r->placed_at_once, 2);
  EXPECT_EQ(r->waited, 2);
  EXPECT_EQ(r->never_placed, 0);
  EXPECT_EQ(r->max_queue, 2);
  EXPECT_DOUBLE_EQ(r->wait_mean_s, (80.0 + 120.0) / 2);
  EXPECT_DOUBLE_EQ(r->wait_max_s, 120);
  // p1, p2, p3 asked on arrival; p4 not (p3, alike, waits); at 100 p3 is
  // placed and p4 refused; at 150 p4 is placed.
  EXPECT_EQ(r->decisions, 6);
  EXPECT_LE(r->latency_p50_us, r->latency_p99_us);
  EXPECT_LE(r->latency_p99_us, r->latency_max_us);
  EXPECT_GE(r->wall_s, 0);
  EXPECT_DOUBLE_EQ(r->end_time_s, 160);
  EXPECT_TRUE(state.jobs.empty());  // everyone left
  // Peak: after p2 arrived, 700 of 1000 milli allocated.
  EXPECT_EQ(r->samples, 4);
  EXPECT_EQ(r->peak.allocated_milli, 700);
  EXPECT_DOUBLE_EQ(r->peak_time_s, 10);
  EXPECT_EQ(r->peak_arrivals, 2);
  EXPECT_EQ(r->peak_running, 2);
  EXPECT_DOUBLE_EQ(r->peak.partial_share, 1.0);
}

TEST(AlibabaReplayTest, HonoursGpuSpec) {
  // a:0 comes first in GpuId order, so only the spec sends p1 to b.
  const std::vector<AlibabaNode> nodes = {Node("a", 1, "T4"), Node("b", 1, "V100M16")};
  const std::vector<AlibabaPod> pods = {
      Pod("p1", 1, 1000, 0, 100, {"V100M32", "V100M16"}),
      Pod("p2", 1, 500, 1, 100, {"V100M16"}),  // b is taken whole: waits, never a
      Pod("p3", 1, 500, 2, 100, {"A100"}),     // no such model: rejected
  };
  AlibabaReplayOptions options;
  options.stop_after_arrivals = 3;
  policy::ClusterState state;
  absl::StatusOr<AlibabaReplayResult> r = ReplayAlibaba(nodes, pods, options, &state);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(JobsOn(state, "b", 0), (std::vector<std::string>{"p1"}));
  EXPECT_TRUE(JobsOn(state, "a", 0).empty());
  EXPECT_EQ(r->waited, 1);
  EXPECT_EQ(r->rejected, 1);

  options.stop_after_arrivals = -1;
  r = ReplayAlibaba(nodes, pods, options, &state);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->placed, 2);
  EXPECT_DOUBLE_EQ(r->wait_max_s, 99);  // p2 started on b when p1 left at 100
}

TEST(AlibabaReplayTest, GangTakesWholeGpusOfOneNode) {
  const std::vector<AlibabaNode> nodes = {Node("a", 2, "T4"), Node("b", 4, "T4")};
  const std::vector<AlibabaPod> pods = {Pod("g", 4, 1000, 0, 10)};
  AlibabaReplayOptions options;
  options.stop_after_arrivals = 1;
  policy::ClusterState state;
  absl::StatusOr<AlibabaReplayResult> r = ReplayAlibaba(nodes, pods, options, &state);
  ASSERT_TRUE(r.ok()) << r.status();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(JobsOn(state, "b", i), (std::vector<std::string>{"g"}));
  EXPECT_EQ(r->peak.allocated_milli, 4000);
  EXPECT_EQ(state.JobsOn({"b", 0})[0].mem_bytes, 0u);  // whole GPUs
  EXPECT_EQ(state.JobsOn({"b", 0})[0].gpu_count, 4);
}

TEST(AlibabaReplayTest, PodsWithoutTimesReplayInFillModeOnly) {
  const std::vector<AlibabaNode> nodes = {Node("a", 1, "T4")};
  std::vector<AlibabaPod> pods = {Pod("p1", 1, 300, 0, 0), Pod("p2", 1, 800, 0, 0)};
  for (AlibabaPod& p : pods) p.has_times = false;
  AlibabaReplayOptions options;
  absl::StatusOr<AlibabaReplayResult> timed = ReplayAlibaba(nodes, pods, options);
  ASSERT_FALSE(timed.ok());
  EXPECT_THAT(std::string(timed.status().message()), HasSubstr("--alibaba-mode fill"));
  options.mode = AlibabaReplayMode::kFill;
  absl::StatusOr<AlibabaReplayResult> fill = ReplayAlibaba(nodes, pods, options);
  ASSERT_TRUE(fill.ok()) << fill.status();
  EXPECT_EQ(fill->placed, 1);  // in file order: p1 takes 300, p2 (800) no longer fits
  EXPECT_EQ(fill->never_placed, 1);
}

TEST(AlibabaReplayTest, FillModeNeverFreesCapacity) {
  const std::vector<AlibabaNode> nodes = {Node("a", 1, "T4")};
  const std::vector<AlibabaPod> pods = {Pod("p1", 1, 600, 0, 1), Pod("p2", 1, 600, 5, 6),
                                        Pod("p3", 1, 300, 7, 8)};
  AlibabaReplayOptions options;
  options.mode = AlibabaReplayMode::kFill;
  policy::ClusterState state;
  absl::StatusOr<AlibabaReplayResult> r = ReplayAlibaba(nodes, pods, options, &state);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->placed, 2);
  EXPECT_EQ(r->never_placed, 1);
  EXPECT_EQ(JobsOn(state, "a", 0), (std::vector<std::string>{"p1", "p3"}));
  EXPECT_EQ(r->peak.allocated_milli, 900);
}

TEST(AlibabaReplayTest, MaxPodsCutsTheTrace) {
  const std::vector<AlibabaNode> nodes = {Node("a", 1, "T4")};
  const std::vector<AlibabaPod> pods = {Pod("p1", 1, 100, 0, 1), Pod("p2", 1, 100, 5, 6),
                                        Pod("p3", 1, 100, 7, 8)};
  AlibabaReplayOptions options;
  options.max_pods = 2;
  absl::StatusOr<AlibabaReplayResult> r = ReplayAlibaba(nodes, pods, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->pods, 2);
  EXPECT_EQ(r->placed, 2);
}

// A policy that answers the impossible.
class WrongPolicy : public policy::PlacementPolicy {
 public:
  policy::PlacementDecision Place(const policy::PlacementRequest&,
                                  const policy::ClusterState&) const override {
    return policy::PlacementDecision::Placed({"nowhere", 0}, "because");
  }
};

TEST(AlibabaReplayTest, APolicyBugIsAnError) {
  const std::vector<AlibabaNode> nodes = {Node("a", 1, "T4")};
  const std::vector<AlibabaPod> pods = {Pod("p1", 1, 100, 0, 1)};
  WrongPolicy wrong;
  absl::StatusOr<AlibabaReplayResult> r = ReplayAlibabaWith(wrong, nodes, pods, {});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("pod p1 on nowhere:0: no such GPU"));
}

TEST(AlibabaReplayTest, WorkloadWeighsRequestClasses) {
  const std::vector<AlibabaPod> pods = {Pod("p1", 1, 500, 0, 1), Pod("p2", 1, 500, 0, 1),
                                        Pod("p3", 8, 1000, 0, 1), Pod("p4", 1, 500, 0, 1, {"T4"}),
                                        Pod("cpu", 0, 0, 0, 1)};
  const std::vector<WorkloadClass> w = AlibabaWorkload(pods);
  ASSERT_EQ(w.size(), 3u);
  double total = 0;
  for (const WorkloadClass& c : w) {
    total += c.weight;
    if (c.milli == 500 && c.models.empty()) {
      EXPECT_DOUBLE_EQ(c.weight, 0.5);
    }
    if (c.gpus == 8) {
      EXPECT_DOUBLE_EQ(c.weight, 0.25);
    }
  }
  EXPECT_DOUBLE_EQ(total, 1.0);
}

}  // namespace
}  // namespace iashim::clustersim
