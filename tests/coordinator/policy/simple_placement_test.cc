#include "coordinator/policy/simple_placement.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace iashim::policy {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;
using Outcome = PlacementDecision::Outcome;

GpuInfo Gpu(std::string host, int index, uint64_t memory) {
  GpuInfo g;
  g.id = {std::move(host), index};
  g.type = "v100";
  g.memory_bytes = memory;
  return g;
}

PlacedJob Job(std::string id, Priority p, uint64_t mem, double busy) {
  return {.job = std::move(id), .priority = p, .mem_bytes = mem, .busy = busy};
}

PlacementRequest Request(std::string id, Priority p, uint64_t mem) {
  PlacementRequest r;
  r.job = std::move(id);
  r.priority = p;
  r.mem_bytes = mem;
  return r;
}

// Two nodes: a has two 16 GiB GPUs, b one 32 GiB GPU.
ClusterState TwoNodes() {
  ClusterState s;
  s.cluster.gpus = {Gpu("a", 0, 16 * kGiB), Gpu("a", 1, 16 * kGiB), Gpu("b", 0, 32 * kGiB)};
  return s;
}

constexpr Priority kG = Priority::kGuaranteed;
constexpr Priority kO = Priority::kOpportunistic;

class SimplePlacementTest : public ::testing::Test {
 protected:
  PlacementDecision Place(const PlacementRequest& r, const ClusterState& s) {
    const PlacementDecision d = policy_->Place(r, s);
    EXPECT_FALSE(d.reason.empty());
    return d;
  }

  // Used through the interface, as the daemon will.
  std::unique_ptr<PlacementPolicy> policy_ = std::make_unique<SimplePlacement>();
};

TEST_F(SimplePlacementTest, RequestedGpu) {
  ClusterState s = TwoNodes();
  PlacementRequest r = Request("j", kG, 4 * kGiB);
  r.gpu = GpuId{"a", 1};
  PlacementDecision d = Place(r, s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 1}));

  r.gpu = GpuId{"a", 9};
  d = Place(r, s);
  EXPECT_EQ(d.outcome, Outcome::kRejected);
  EXPECT_NE(d.reason.find("a:9"), std::string::npos) << d.reason;

  r.gpu = GpuId{"a", 0};
  r.mem_bytes = 20 * kGiB;
  EXPECT_EQ(Place(r, s).outcome, Outcome::kRejected);
}

TEST_F(SimplePlacementTest, RequestedGpuBusyIsQueued) {
  ClusterState s = TwoNodes();
  s.jobs[{"a", 0}] = {Job("g", kG, 12 * kGiB, 0.9)};
  PlacementRequest r = Request("j", kO, 8 * kGiB);
  r.gpu = GpuId{"a", 0};
  EXPECT_EQ(Place(r, s).outcome, Outcome::kQueued);  // memory
  r.mem_bytes = 2 * kGiB;
  EXPECT_EQ(Place(r, s).outcome, Outcome::kPlaced);
  r.priority = kG;
  const PlacementDecision d = Place(r, s);
  EXPECT_EQ(d.outcome, Outcome::kQueued);  // two guaranteed jobs
  EXPECT_NE(d.reason.find("guaranteed"), std::string::npos) << d.reason;
}

TEST_F(SimplePlacementTest, PrefersAnEmptyGpuTheSmallestThatFits) {
  ClusterState s = TwoNodes();
  EXPECT_EQ(Place(Request("j", kG, 4 * kGiB), s).gpu, (GpuId{"a", 0}));
  EXPECT_EQ(Place(Request("j", kG, 20 * kGiB), s).gpu, (GpuId{"b", 0}));
  s.jobs[{"a", 0}] = {Job("x", kO, kGiB, 0.1)};
  const PlacementDecision d = Place(Request("j", kO, kGiB), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 1}));
}

TEST_F(SimplePlacementTest, HonoursTheRequestedHost) {
  ClusterState s = TwoNodes();
  PlacementRequest r = Request("j", kG, 4 * kGiB);
  r.host = "b";
  EXPECT_EQ(Place(r, s).gpu, (GpuId{"b", 0}));
  r.host = "nowhere";
  EXPECT_EQ(Place(r, s).outcome, Outcome::kRejected);
  r.host = "a";
  r.mem_bytes = 20 * kGiB;  // only b's GPU is that big
  EXPECT_EQ(Place(r, s).outcome, Outcome::kRejected);
}

TEST_F(SimplePlacementTest, SharesTheLeastBusyGpuAndNeverPairsGuaranteedJobs) {
  ClusterState s = TwoNodes();
  s.jobs[{"a", 0}] = {Job("g1", kG, 4 * kGiB, 0.3)};
  s.jobs[{"a", 1}] = {Job("o1", kO, 4 * kGiB, 0.6)};
  s.jobs[{"b", 0}] = {Job("o2", kO, 4 * kGiB, 0.5)};
  // Opportunistic: the least busy GPU, even next to a guaranteed job.
  PlacementDecision d = Place(Request("o3", kO, 4 * kGiB), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 0}));
  // Guaranteed: not next to g1; b:0 is less busy than a:1.
  d = Place(Request("g2", kG, 4 * kGiB), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"b", 0}));
}

TEST_F(SimplePlacementTest, TiesGoToFewerJobsThenMoreFreeMemory) {
  ClusterState s = TwoNodes();
  s.jobs[{"a", 0}] = {Job("x", kO, 2 * kGiB, 0.2), Job("y", kO, 2 * kGiB, 0.2)};
  s.jobs[{"a", 1}] = {Job("z", kO, 2 * kGiB, 0.4)};
  s.jobs[{"b", 0}] = {Job("w", kO, 30 * kGiB, 0.4)};
  // a:1 and b:0 have one job and the same busy; a:1 has more free memory.
  EXPECT_EQ(Place(Request("j", kO, kGiB), s).gpu, (GpuId{"a", 1}));
}

TEST_F(SimplePlacementTest, QueuesWhenNothingFitsNow) {
  ClusterState s = TwoNodes();
  s.jobs[{"a", 0}] = {Job("x", kO, 14 * kGiB, 0.2)};
  s.jobs[{"a", 1}] = {Job("g", kG, 4 * kGiB, 0.2)};
  s.jobs[{"b", 0}] = {Job("y", kO, 0, 0.2)};  // holds the whole GPU
  PlacementDecision d = Place(Request("g2", kG, 4 * kGiB), s);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  d = Place(Request("w", kO, 0), s);  // whole GPU, none empty
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  d = Place(Request("big", kO, 64 * kGiB), s);  // never
  EXPECT_EQ(d.outcome, Outcome::kRejected);
  // Something fits: a:1 next to the guaranteed job.
  d = Place(Request("o", kO, 4 * kGiB), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 1}));
}

TEST_F(SimplePlacementTest, AnEmptyClusterRejects) {
  ClusterState s;
  EXPECT_EQ(Place(Request("j", kG, kGiB), s).outcome, Outcome::kRejected);
}

TEST_F(SimplePlacementTest, AnAlreadyPlacedJobGetsItsGpuAgain) {
  ClusterState s = TwoNodes();
  s.jobs[{"b", 0}] = {Job("j", kG, 4 * kGiB, 0.2)};
  const PlacementDecision d = Place(Request("j", kG, 4 * kGiB), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"b", 0}));
}

TEST_F(SimplePlacementTest, AGangRunsAloneOnOneNodeTheFullestThatFits) {
  ClusterState s;
  for (const char* host : {"a", "b", "c"}) {
    for (int i = 0; i < 4; ++i) s.cluster.gpus.push_back(Gpu(host, i, 16 * kGiB));
  }
  s.jobs[{"a", 0}] = {Job("x", kO, kGiB, 0.1)};  // a: 3 empty
  s.jobs[{"b", 1}] = {Job("y", kO, kGiB, 0.1)};
  s.jobs[{"b", 2}] = {Job("z", kO, kGiB, 0.1)};  // b: 2 empty; c: 4
  PlacementRequest r = Request("g", kO, 4 * kGiB);
  r.gpu_count = 2;
  PlacementDecision d = Place(r, s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"b", 0}, {"b", 3}}));
  EXPECT_EQ(d.gpu, (GpuId{"b", 0}));
  // Recorded, and asked again: the same GPUs.
  for (const GpuId& g : d.gpus) {
    s.jobs[g] = {Job("g", kO, 4 * kGiB, 0.5)};
    s.jobs[g].front().gpu_count = 2;
  }
  d = Place(r, s);
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"b", 0}, {"b", 3}}));
  // c stayed whole for a gang of 4; no node has 5 GPUs.
  r.job = "h";
  r.gpu_count = 4;
  d = Place(r, s);
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"c", 0}, {"c", 1}, {"c", 2}, {"c", 3}}));
  r.gpu_count = 5;
  EXPECT_EQ(Place(r, s).outcome, Outcome::kRejected);
}

TEST_F(SimplePlacementTest, AGangIsQueuedRatherThanSplitOrShared) {
  ClusterState s = TwoNodes();
  s.jobs[{"a", 0}] = {Job("x", kO, kGiB, 0.1)};  // a:1 and b:0 are empty
  PlacementRequest r = Request("g", kO, 4 * kGiB);
  r.gpu_count = 2;
  EXPECT_EQ(Place(r, s).outcome, Outcome::kQueued);
  r.host = "b";  // one GPU there
  EXPECT_EQ(Place(r, s).outcome, Outcome::kRejected);
  r.host.clear();
  r.gpu = GpuId{"a", 0};
  EXPECT_EQ(Place(r, s).outcome, Outcome::kRejected);
  r.gpu.reset();
  r.gpu_count = 0;
  EXPECT_EQ(Place(r, s).outcome, Outcome::kRejected);
}

TEST_F(SimplePlacementTest, NamesOutcomes) {
  EXPECT_EQ(OutcomeName(Outcome::kPlaced), "placed");
  EXPECT_EQ(OutcomeName(Outcome::kQueued), "queued");
  EXPECT_EQ(OutcomeName(Outcome::kRejected), "rejected");
}

}  // namespace
}  // namespace iashim::policy
