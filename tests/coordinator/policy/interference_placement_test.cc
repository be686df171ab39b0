#include "coordinator/policy/interference_placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace iashim::policy {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr Priority kG = Priority::kGuaranteed;
constexpr Priority kO = Priority::kOpportunistic;
using Outcome = PlacementDecision::Outcome;

// Predictions from a table of (victim kind, aggressor kind); `fallback`
// for pairs not in it.
class TablePredictor : public InterferencePredictor {
 public:
  void Set(const std::string& victim, const std::string& aggressor, double throughput,
           double uncertainty = 0) {
    table_[{victim, aggressor}] = {throughput, uncertainty, 1};
  }
  // Both directions at once.
  void SetPair(const std::string& a, const std::string& b, double a_next_to_b, double b_next_to_a) {
    Set(a, b, a_next_to_b);
    Set(b, a, b_next_to_a);
  }
  InterferencePrediction Predict(const JobTraits& victim,
                                 const JobTraits& aggressor) const override {
    ++calls;
    auto it = table_.find({victim.kind, aggressor.kind});
    if (it != table_.end()) return it->second;
    return {fallback, 0, 0};
  }
  double fallback = 0.5;
  mutable int calls = 0;

 private:
  std::map<std::pair<std::string, std::string>, InterferencePrediction> table_;
};

// Forbids the listed pairs of kinds, in either order.
class DenyRule : public ShareRule {
 public:
  void Deny(const std::string& a, const std::string& b) {
    denied_.insert({a, b});
    denied_.insert({b, a});
  }
  bool MayShare(const JobTraits& a, const JobTraits& b) const override {
    return !denied_.contains({a.kind, b.kind});
  }

 private:
  std::set<std::pair<std::string, std::string>> denied_;
};

GpuInfo Gpu(std::string host, int index, uint64_t memory = 16 * kGiB) {
  GpuInfo g;
  g.id = {std::move(host), index};
  g.type = "v100";
  g.memory_bytes = memory;
  return g;
}

PlacedJob Job(std::string id, std::string kind, Priority p = kO, uint64_t mem = 4 * kGiB,
              int gpu_count = 1) {
  PlacedJob j{.job = std::move(id), .priority = p, .mem_bytes = mem};
  j.traits.kind = std::move(kind);
  j.gpu_count = gpu_count;
  return j;
}

PlacementRequest Request(std::string id, std::string kind, Priority p = kO, uint64_t mem = 4 * kGiB,
                         int gpu_count = 1) {
  PlacementRequest r;
  r.job = std::move(id);
  r.traits.kind = std::move(kind);
  r.priority = p;
  r.mem_bytes = mem;
  r.gpu_count = gpu_count;
  return r;
}

// `n` GPUs on each of `hosts`.
ClusterState Nodes(const std::vector<std::string>& hosts, int n) {
  ClusterState s;
  for (const std::string& h : hosts) {
    for (int i = 0; i < n; ++i) s.cluster.gpus.push_back(Gpu(h, i));
  }
  return s;
}

bool OneNode(const std::vector<GpuId>& gpus) {
  return std::all_of(gpus.begin(), gpus.end(),
                     [&](const GpuId& g) { return g.host == gpus.front().host; });
}

class InterferencePlacementTest : public ::testing::Test {
 protected:
  PlacementDecision Place(const PlacementRequest& r, const ClusterState& s,
                          const ShareRule* rule = nullptr) {
    const InterferenceAwarePlacement policy(&predictor_, rule, options_);
    // Used through the interface, as the daemon and the simulator will.
    const PlacementPolicy& p = policy;
    const PlacementDecision d = p.Place(r, s);
    EXPECT_FALSE(d.reason.empty());
    if (d.outcome == Outcome::kPlaced) {
      EXPECT_EQ(d.gpus.size(), static_cast<size_t>(r.gpu_count)) << d.reason;
      if (!d.gpus.empty()) {
        EXPECT_EQ(d.gpus.front(), d.gpu);
      }
    }
    return d;
  }

  TablePredictor predictor_;
  InterferenceAwarePlacement::Options options_;
};

TEST_F(InterferencePlacementTest, PrefersAnEmptyGpu) {
  ClusterState s = Nodes({"a"}, 2);
  s.jobs[{"a", 0}] = {Job("x", "X")};
  predictor_.SetPair("N", "X", 1.0, 1.0);  // sharing would cost nothing, still not better
  const PlacementDecision d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 1}));
}

TEST_F(InterferencePlacementTest, ExclusiveTakesTheFullestNodeThenTheSmallestGpu) {
  ClusterState s;
  s.cluster.gpus = {
      Gpu("a", 0),           Gpu("a", 1), Gpu("a", 2), Gpu("b", 0), Gpu("b", 1, 80 * kGiB),
      Gpu("b", 2, 32 * kGiB)};
  s.jobs[{"b", 0}] = {Job("x", "X")};
  // b has two empty GPUs, a three: b, and its smaller empty GPU.
  PlacementDecision d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"b", 2}));
  // Too big for b:2: b:1 is the only fit there, and b still the fuller node.
  d = Place(Request("n", "N", kO, 40 * kGiB), s);
  EXPECT_EQ(d.gpu, (GpuId{"b", 1}));
}

TEST_F(InterferencePlacementTest, SharesWhereTheClusterGainsMost) {
  ClusterState s = Nodes({"a"}, 3);
  s.jobs[{"a", 0}] = {Job("x", "A")};
  s.jobs[{"a", 1}] = {Job("y", "B")};
  s.jobs[{"a", 2}] = {Job("z", "C")};
  predictor_.SetPair("N", "A", 0.9, 0.5);   // gain 0.9 - 0.5 = 0.4
  predictor_.SetPair("N", "B", 0.8, 0.9);   // gain 0.8 - 0.1 = 0.7
  predictor_.SetPair("N", "C", 0.6, 0.95);  // gain 0.6 - 0.05 = 0.55
  const PlacementDecision d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 1}));
  EXPECT_NE(d.reason.find("y"), std::string::npos) << d.reason;
}

TEST_F(InterferencePlacementTest, AResidentGangsLossCountsForEveryGpuItHolds) {
  ClusterState s = Nodes({"a", "b"}, 2);
  // g holds a:0 and a:1; b:0 runs a single-GPU job; b:1 holds a whole-GPU job.
  s.jobs[{"a", 0}] = {Job("g", "G", kO, 4 * kGiB, 2)};
  s.jobs[{"a", 1}] = {Job("g", "G", kO, 4 * kGiB, 2)};
  s.jobs[{"b", 0}] = {Job("x", "X")};
  s.jobs[{"b", 1}] = {Job("w", "W", kO, 0)};
  // Both residents lose 20%; the gang loses it on 2 GPUs' worth of progress.
  predictor_.SetPair("N", "G", 0.9, 0.8);  // gain 0.9 - 2 * 0.2 = 0.5
  predictor_.SetPair("N", "X", 0.8, 0.8);  // gain 0.8 - 0.2 = 0.6
  const PlacementDecision d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"b", 0}));
}

TEST_F(InterferencePlacementTest, TheNewJobSuffersEveryCoRunner) {
  options_.max_jobs_per_gpu = 0;
  ClusterState s = Nodes({"a"}, 2);
  s.jobs[{"a", 0}] = {Job("x", "X"), Job("y", "Y")};
  s.jobs[{"a", 1}] = {Job("z", "Z")};
  predictor_.fallback = 1.0;  // residents unharmed, by each other or by the new job
  predictor_.Set("N", "X", 0.9);
  predictor_.Set("N", "Y", 0.9);  // 0.9 * 0.9 = 0.81 next to both
  predictor_.Set("N", "Z", 0.85);
  EXPECT_EQ(Place(Request("n", "N"), s).gpu, (GpuId{"a", 1}));
  predictor_.Set("N", "Z", 0.8);
  EXPECT_EQ(Place(Request("n", "N"), s).gpu, (GpuId{"a", 0}));
}

TEST_F(InterferencePlacementTest, AResidentLosesFromWhatItRunsAtNow) {
  options_.max_jobs_per_gpu = 0;
  ClusterState s = Nodes({"a"}, 2);
  // x already runs at half speed next to y; z runs alone.
  s.jobs[{"a", 0}] = {Job("x", "X"), Job("y", "Y")};
  s.jobs[{"a", 1}] = {Job("z", "Z")};
  predictor_.fallback = 1.0;
  predictor_.Set("X", "Y", 0.5);
  predictor_.Set("X", "N", 0.7);  // x: 0.5 -> 0.35, a loss of 0.15
  predictor_.Set("Z", "N", 0.8);  // z: 1 -> 0.8, a loss of 0.2
  const PlacementDecision d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 0}));
}

TEST_F(InterferencePlacementTest, QueuesWhenSharingWouldNotPay) {
  ClusterState s = Nodes({"a"}, 2);
  s.jobs[{"a", 0}] = {Job("x", "X")};
  s.jobs[{"a", 1}] = {Job("y", "Y")};
  predictor_.SetPair("N", "X", 0.5, 0.52);  // gain 0.02
  predictor_.SetPair("N", "Y", 0.5, 0.54);  // gain 0.04: the best, still < 0.05
  PlacementDecision d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("a:1"), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find("0.040"), std::string::npos) << d.reason;

  options_.min_gain = 0.03;
  d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 1}));
}

TEST_F(InterferencePlacementTest, UncertaintyCountsAgainstSharing) {
  ClusterState s = Nodes({"a"}, 2);
  s.jobs[{"a", 0}] = {Job("x", "X")};
  s.jobs[{"a", 1}] = {Job("y", "Y")};
  predictor_.Set("N", "X", 0.9, 0.3);
  predictor_.Set("X", "N", 0.9, 0.3);  // gain 0.8, uncertainty 0.6
  predictor_.Set("N", "Y", 0.7, 0.05);
  predictor_.Set("Y", "N", 0.9, 0.05);  // gain 0.6, uncertainty 0.1
  EXPECT_EQ(Place(Request("n", "N"), s).gpu, (GpuId{"a", 0}));
  options_.uncertainty_weight = 1;  // 0.2 vs 0.5
  EXPECT_EQ(Place(Request("n", "N"), s).gpu, (GpuId{"a", 1}));
  options_.uncertainty_weight = 8;  // both below min_gain
  EXPECT_EQ(Place(Request("n", "N"), s).outcome, Outcome::kQueued);
}

TEST_F(InterferencePlacementTest, ExplorationTriesAnUncertainPairButNotAKnownBadOne) {
  ClusterState s = Nodes({"a"}, 1);
  s.jobs[{"a", 0}] = {Job("x", "X")};
  options_.min_gain = 0;
  // Predicted gain 0.45 + 0.45 - 1 = -0.1: not worth it on the mean...
  predictor_.Set("N", "X", 0.45, 0.2);
  predictor_.Set("X", "N", 0.45, 0.2);  // ...but uncertain: 0.4 summed
  EXPECT_EQ(Place(Request("n", "N"), s).outcome, Outcome::kQueued);
  options_.exploration = 1;  // -0.1 + 0.4 >= 0: tried
  EXPECT_EQ(Place(Request("n", "N"), s).outcome, Outcome::kPlaced);
  // Once observed often its uncertainty is small: no longer tried.
  predictor_.Set("N", "X", 0.45, 0.02);
  predictor_.Set("X", "N", 0.45, 0.02);  // -0.1 + 0.04 < 0
  EXPECT_EQ(Place(Request("n", "N"), s).outcome, Outcome::kQueued);
}

TEST_F(InterferencePlacementTest, RespectsTheShareRule) {
  ClusterState s = Nodes({"a"}, 2);
  s.jobs[{"a", 0}] = {Job("x", "X")};
  s.jobs[{"a", 1}] = {Job("y", "Y")};
  predictor_.SetPair("N", "X", 0.9, 0.9);
  predictor_.SetPair("N", "Y", 0.7, 0.7);
  DenyRule rule;
  rule.Deny("N", "X");
  PlacementDecision d = Place(Request("n", "N"), s, &rule);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 1}));
  rule.Deny("N", "Y");
  d = Place(Request("n", "N"), s, &rule);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("may not share"), std::string::npos) << d.reason;
}

TEST_F(InterferencePlacementTest, RespectsMemory) {
  ClusterState s = Nodes({"a"}, 2);
  s.jobs[{"a", 0}] = {Job("x", "X", kO, 14 * kGiB)};
  s.jobs[{"a", 1}] = {Job("y", "Y", kO, 8 * kGiB)};
  predictor_.SetPair("N", "X", 0.9, 0.9);
  predictor_.SetPair("N", "Y", 0.7, 0.7);
  // 4 GiB fits only beside y.
  PlacementDecision d = Place(Request("n", "N", kO, 4 * kGiB), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 1}));
  d = Place(Request("n", "N", kO, 10 * kGiB), s);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("free"), std::string::npos) << d.reason;
  // It names the job it waits for (one whose process never started, say).
  EXPECT_NE(d.reason.find("held by job x"), std::string::npos) << d.reason;
  d = Place(Request("n", "N", kO, 0), s);  // the whole GPU: none is empty
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("runs job x;"), std::string::npos) << d.reason;
  d = Place(Request("n", "N", kO, 64 * kGiB), s);  // never
  EXPECT_EQ(d.outcome, Outcome::kRejected);
}

TEST_F(InterferencePlacementTest, RespectsMaxJobsPerGpu) {
  ClusterState s = Nodes({"a"}, 2);
  s.jobs[{"a", 0}] = {Job("x", "X"), Job("z", "Z")};
  s.jobs[{"a", 1}] = {Job("y", "Y")};
  predictor_.fallback = 1.0;
  predictor_.SetPair("N", "Y", 0.6, 0.6);
  // a:0 would cost no one anything, but already runs two jobs.
  PlacementDecision d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.gpu, (GpuId{"a", 1}));
  options_.max_jobs_per_gpu = 0;
  d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.gpu, (GpuId{"a", 0}));
  options_.max_jobs_per_gpu = 1;
  d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("max_jobs_per_gpu"), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find("already runs jobs x, z"), std::string::npos) << d.reason;
}

TEST_F(InterferencePlacementTest, NeverPairsTwoGuaranteedJobs) {
  ClusterState s = Nodes({"a"}, 2);
  s.jobs[{"a", 0}] = {Job("g", "X", kG)};
  s.jobs[{"a", 1}] = {Job("o", "Y", kO)};
  predictor_.SetPair("N", "X", 1.0, 1.0);
  predictor_.SetPair("N", "Y", 0.95, 0.7);
  EXPECT_EQ(Place(Request("n", "N", kG), s).gpu, (GpuId{"a", 1}));
  EXPECT_EQ(Place(Request("n", "N", kO), s).gpu, (GpuId{"a", 0}));
  s.jobs[{"a", 1}] = {Job("g2", "Y", kG)};
  const PlacementDecision d = Place(Request("n", "N", kG), s);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("guaranteed"), std::string::npos) << d.reason;
}

// Without throttling in the prediction, a GPU where a guaranteed job would be
// predicted past its target is no candidate at all.
TEST_F(InterferencePlacementTest, DefendsGuaranteedSlowdownTargetsWithoutThrottling) {
  options_.protect_by_throttling = false;
  ClusterState s = Nodes({"a"}, 2);
  s.jobs[{"a", 0}] = {Job("g", "G", kG)};  // target 0.10: throughput at least 1/1.1
  s.jobs[{"a", 1}] = {Job("o", "O", kO)};
  predictor_.SetPair("N", "G", 1.0, 0.88);  // gain 0.88, but g past its target
  predictor_.SetPair("N", "O", 0.8, 0.8);   // gain 0.6
  PlacementDecision d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.gpu, (GpuId{"a", 1}));
  // A guaranteed resident with a looser target takes it.
  s.jobs[{"a", 0}].front().slowdown_target = 0.2;
  d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.gpu, (GpuId{"a", 0}));

  // A guaranteed newcomer's own target: 0.8 < 1/1.1 beside either.
  s.jobs[{"a", 0}] = {Job("p", "O", kO)};
  d = Place(Request("n", "N", kG), s);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("slowdown target"), std::string::npos) << d.reason;
  PlacementRequest loose = Request("n", "N", kG);
  loose.slowdown_target = 0.3;
  d = Place(loose, s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 0}));
}

TEST_F(InterferencePlacementTest, AGangRunsAloneOnTheFullestNodeThatFits) {
  ClusterState s = Nodes({"a", "b", "c"}, 4);
  s.jobs[{"a", 0}] = {Job("x", "X")};  // a: 3 empty
  s.jobs[{"b", 1}] = {Job("y", "Y")};
  s.jobs[{"b", 2}] = {Job("z", "Z")};  // b: 2 empty; c: 4 empty
  PlacementDecision d = Place(Request("g", "G", kO, 4 * kGiB, 2), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"b", 0}, {"b", 3}}));
  // Record it: c stays whole for a gang of 4.
  for (const GpuId& g : d.gpus) s.jobs[g] = {Job("g", "G", kO, 4 * kGiB, 2)};
  d = Place(Request("h", "H", kO, 4 * kGiB, 4), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"c", 0}, {"c", 1}, {"c", 2}, {"c", 3}}));
  // A gang of 3 fits a's three empty GPUs.
  d = Place(Request("k", "K", kO, 4 * kGiB, 3), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"a", 1}, {"a", 2}, {"a", 3}}));
}

TEST_F(InterferencePlacementTest, AGangIsNeverSplitAcrossNodes) {
  ClusterState s = Nodes({"a", "b"}, 2);
  s.jobs[{"a", 0}] = {Job("x", "X")};
  s.jobs[{"b", 0}] = {Job("y", "Y")};
  // One empty GPU on each node; sharing pays on neither.
  predictor_.fallback = 0.3;
  PlacementDecision d = Place(Request("g", "G", kO, 4 * kGiB, 2), s);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  // Sharing pays on b: b:0 shared and b:1 empty, never a:1 + b:1.
  predictor_.SetPair("G", "Y", 0.9, 0.9);
  d = Place(Request("g", "G", kO, 4 * kGiB, 2), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"b", 0}, {"b", 1}}));
  EXPECT_TRUE(OneNode(d.gpus));
}

TEST_F(InterferencePlacementTest, AGangRunsAtItsSlowestGpu) {
  ClusterState s = Nodes({"a", "b"}, 2);
  s.jobs[{"a", 0}] = {Job("x", "X")};
  s.jobs[{"a", 1}] = {Job("y", "Y")};
  s.jobs[{"b", 0}] = {Job("z", "Z")};
  s.jobs[{"b", 1}] = {Job("w", "W")};
  predictor_.fallback = 1.0;  // residents unharmed
  predictor_.Set("G", "X", 0.95);
  predictor_.Set("G", "Y", 0.5);  // a: 2 * 0.5 = 1.0
  predictor_.Set("G", "Z", 0.7);
  predictor_.Set("G", "W", 0.7);  // b: 2 * 0.7 = 1.4
  const PlacementDecision d = Place(Request("g", "G", kO, 4 * kGiB, 2), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"b", 0}, {"b", 1}}));
}

TEST_F(InterferencePlacementTest, AResidentGangSharingTwoChosenGpusLosesOnce) {
  ClusterState s = Nodes({"a", "b"}, 2);
  s.jobs[{"a", 0}] = {Job("r", "R", kO, 4 * kGiB, 2)};
  s.jobs[{"a", 1}] = {Job("r", "R", kO, 4 * kGiB, 2)};
  s.jobs[{"b", 0}] = {Job("x", "X")};
  s.jobs[{"b", 1}] = {Job("y", "X")};
  // a: 2 * 0.8 - 2 * 0.1 = 1.4 (r loses 10% once, on 2 GPUs' worth);
  // counting it per GPU would make a 1.2, behind b: 2 * 0.75 - 2 * 0.1 = 1.3.
  predictor_.SetPair("G", "R", 0.8, 0.9);
  predictor_.SetPair("G", "X", 0.75, 0.9);
  const PlacementDecision d = Place(Request("g", "G", kO, 4 * kGiB, 2), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"a", 0}, {"a", 1}}));
}

TEST_F(InterferencePlacementTest, GangsThatCanNeverRunAreRejected) {
  ClusterState s = Nodes({"a", "b"}, 2);
  s.cluster.gpus.push_back(Gpu("b", 2, 8 * kGiB));
  PlacementDecision d = Place(Request("g", "G", kO, 4 * kGiB, 3), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);  // b has 3
  d = Place(Request("g", "G", kO, 12 * kGiB, 3), s);
  EXPECT_EQ(d.outcome, Outcome::kRejected);  // b:2 too small
  d = Place(Request("g", "G", kO, 4 * kGiB, 4), s);
  EXPECT_EQ(d.outcome, Outcome::kRejected);
  PlacementRequest pinned = Request("g", "G", kO, 4 * kGiB, 2);
  pinned.gpu = GpuId{"a", 0};
  EXPECT_EQ(Place(pinned, s).outcome, Outcome::kRejected);
  EXPECT_EQ(Place(Request("g", "G", kO, 4 * kGiB, 0), s).outcome, Outcome::kRejected);
  PlacementRequest on_a = Request("g", "G", kO, 4 * kGiB, 3);
  on_a.host = "a";
  EXPECT_EQ(Place(on_a, s).outcome, Outcome::kRejected);
}

TEST_F(InterferencePlacementTest, TiesGoInGpuIdOrder) {
  ClusterState s = Nodes({"b", "a"}, 2);  // listed out of order
  std::reverse(s.cluster.gpus.begin(), s.cluster.gpus.end());
  for (const GpuInfo& g : s.cluster.gpus) s.jobs[g.id] = {Job(GpuName(g.id), "X")};
  predictor_.SetPair("N", "X", 0.8, 0.9);
  PlacementDecision d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.gpu, (GpuId{"a", 0}));
  d = Place(Request("g", "N", kO, 4 * kGiB, 2), s);
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"a", 0}, {"a", 1}}));
  // Exclusive ties: equal nodes, equal GPUs.
  s.jobs.clear();
  EXPECT_EQ(Place(Request("n", "N"), s).gpu, (GpuId{"a", 0}));
  EXPECT_EQ(Place(Request("g", "N", kO, 4 * kGiB, 2), s).gpus,
            (std::vector<GpuId>{{"a", 0}, {"a", 1}}));
}

TEST_F(InterferencePlacementTest, AnAlreadyPlacedJobGetsItsGpusAgain) {
  ClusterState s = Nodes({"a", "b"}, 2);
  s.jobs[{"b", 1}] = {Job("j", "J", kG)};
  PlacementDecision d = Place(Request("j", "J", kG), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"b", 1}));
  s.jobs[{"a", 0}] = {Job("g", "G", kO, 4 * kGiB, 2)};
  s.jobs[{"a", 1}] = {Job("g", "G", kO, 4 * kGiB, 2)};
  d = Place(Request("g", "G", kO, 4 * kGiB, 2), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"a", 0}, {"a", 1}}));
}

TEST_F(InterferencePlacementTest, HonoursTheRequestedGpu) {
  ClusterState s = Nodes({"a"}, 2);
  s.jobs[{"a", 0}] = {Job("x", "X")};
  predictor_.SetPair("N", "X", 0.9, 0.9);
  PlacementRequest r = Request("n", "N");
  r.gpu = GpuId{"a", 0};  // shared, though a:1 is empty
  PlacementDecision d = Place(r, s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 0}));
  predictor_.SetPair("N", "X", 0.3, 0.3);  // sharing would not pay: wait for it
  EXPECT_EQ(Place(r, s).outcome, Outcome::kQueued);
  r.gpu = GpuId{"a", 9};
  d = Place(r, s);
  EXPECT_EQ(d.outcome, Outcome::kRejected);
  EXPECT_NE(d.reason.find("a:9"), std::string::npos) << d.reason;
  r.gpu = GpuId{"a", 1};
  r.mem_bytes = 20 * kGiB;
  EXPECT_EQ(Place(r, s).outcome, Outcome::kRejected);
}

TEST_F(InterferencePlacementTest, HonoursTheRequestedHost) {
  ClusterState s = Nodes({"a", "b"}, 1);
  s.jobs[{"b", 0}] = {Job("x", "X")};
  predictor_.SetPair("N", "X", 0.9, 0.9);
  PlacementRequest r = Request("n", "N");
  r.host = "b";  // shared, though a:0 is empty
  PlacementDecision d = Place(r, s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"b", 0}));
  r.host = "nowhere";
  EXPECT_EQ(Place(r, s).outcome, Outcome::kRejected);
  EXPECT_EQ(Place(Request("n", "N"), ClusterState{}).outcome, Outcome::kRejected);
}

TEST_F(InterferencePlacementTest, PredictsOncePerKindOfResident) {
  // Many residents of two kinds: a prediction each way per kind.
  ClusterState s = Nodes({"a", "b", "c", "d"}, 8);
  int n = 0;
  for (const GpuInfo& g : s.cluster.gpus) s.jobs[g.id] = {Job(GpuName(g.id), n++ % 2 ? "X" : "Y")};
  predictor_.SetPair("N", "X", 0.8, 0.9);
  predictor_.SetPair("N", "Y", 0.8, 0.95);
  const PlacementDecision d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 0}));  // the first Y
  EXPECT_EQ(predictor_.calls, 4);
}


// With throttling (the daemon's share controller), the guaranteed job is held
// at its floor 1/(1+target) and the opportunistic newcomer is cut to the share
// that achieves it; the prediction counts both.
TEST_F(InterferencePlacementTest, CountsTheThrottlingThatDefendsAGuaranteedJob) {
  ClusterState s = Nodes({"a"}, 2);
  s.jobs[{"a", 0}] = {Job("g", "G", kG)};  // target 0.10: floor 1/1.1
  s.jobs[{"a", 1}] = {Job("o", "O", kO)};
  // Beside g: g would fall to 0.88, so n is cut to (1 - 1/1.1) / 0.12 = 0.758
  // of its 1.0; g loses 1 - 1/1.1 = 0.091: gain 0.667. Beside o: gain 0.6.
  predictor_.SetPair("N", "G", 1.0, 0.88);
  predictor_.SetPair("N", "O", 0.8, 0.8);
  PlacementDecision d = Place(Request("n", "N"), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 0}));
  // n would cripple g (0.1 unthrottled): holding g at its floor needs a share
  // of (1 - 1/1.1) / 0.9 = 0.101, below a min_share of 0.2: o's GPU instead.
  predictor_.SetPair("N", "G", 1.0, 0.1);
  options_.min_share = 0.2;
  d = Place(Request("n", "N"), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 1}));
  // With o's GPU full, there is nowhere to go: queued, naming the target.
  options_.max_jobs_per_gpu = 1;
  s.jobs[{"a", 0}] = {Job("g", "G", kG)};
  d = Place(Request("n", "N"), s);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
}

// Guaranteed jobs together, opportunistic ones apart from them: node a holds
// a guaranteed job, node b an opportunistic one, each with one empty GPU
// (best fit alone would give both newcomers a:1, the first). A node with a
// guaranteed job throttles whatever shares its GPUs, a gang Slurm gives
// them too, so the opportunistic newcomer takes b:1 and the guaranteed one
// a:1. Where its side has no empty GPU, best fit decides: with a full, the
// guaranteed newcomer takes b's.
TEST_F(InterferencePlacementTest, GuaranteedJobsGoTogetherAndOpportunisticOnesApartFromThem) {
  ClusterState s = Nodes({"a", "b"}, 2);
  s.jobs[{"a", 0}] = {Job("g", "G", kG)};
  s.jobs[{"b", 0}] = {Job("o", "O", kO)};
  PlacementDecision d = Place(Request("n", "N", kO), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  EXPECT_EQ(d.gpu, (GpuId{"b", 1}));
  d = Place(Request("n", "N", kG), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  EXPECT_EQ(d.gpu, (GpuId{"a", 1}));
  // Node a full: the guaranteed newcomer's side has no empty GPU, and best
  // fit among the others takes b's last one, keeping c whole.
  s = Nodes({"a", "b", "c"}, 2);
  s.jobs[{"a", 0}] = {Job("g", "G", kG)};
  s.jobs[{"a", 1}] = {Job("o", "O", kO)};
  s.jobs[{"b", 0}] = {Job("o2", "O", kO)};
  d = Place(Request("n", "N", kG), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  EXPECT_EQ(d.gpu, (GpuId{"b", 1}));
}

// A GPU whose control loop already holds its co-runners at the least share
// to keep its guaranteed job within target takes no one more, whatever the
// model predicts: the measurement says there is no share left to give.
TEST_F(InterferencePlacementTest, AGpuWhoseLoopHoldsItsCoRunnersAtTheFloorTakesNoOneMore) {
  ClusterState s = Nodes({"a", "b"}, 1);
  s.jobs[{"a", 0}] = {Job("g", "G", kG), Job("o", "O", kO)};
  s.jobs[{"b", 0}] = {Job("g2", "G", kG), Job("o2", "O", kO)};
  predictor_.fallback = 0.95;  // the model sees room on both
  options_.max_jobs_per_gpu = 3;
  s.co_runners_at_floor = {{"a", 0}};
  PlacementDecision d = Place(Request("n", "N"), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  EXPECT_EQ(d.gpu, (GpuId{"b", 0}));
  // Both at the floor: queued, saying why.
  s.co_runners_at_floor.insert({"b", 0});
  d = Place(Request("n", "N"), s);
  ASSERT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("a:0 runs jobs g, o, its co-runners held at the least share"),
            std::string::npos)
      << d.reason;
  // A guaranteed job free to join busy GPUs (as a gang given them by its
  // scheduler is) would yield there: it waits instead of joining at the floor.
  PlacementRequest gang = Request("n", "N", kG, /*mem=*/0, /*gpu_count=*/1);
  gang.host = "a";
  gang.join_busy_gpus = true;
  EXPECT_EQ(Place(gang, s).outcome, Outcome::kQueued);
  // A job wider than a node takes no node with such a GPU.
  s = Nodes({"a", "b", "c"}, 2);
  s.jobs[{"a", 0}] = {Job("g", "G", kG), Job("o", "O", kO)};
  s.co_runners_at_floor = {{"a", 0}};
  PlacementRequest wide = Request("w", "N", kO, /*mem=*/0, /*gpu_count=*/4);
  wide.join_busy_gpus = true;
  d = Place(wide, s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"b", 0}, {"b", 1}, {"c", 0}, {"c", 1}}));
}

// The rest of a batch step already running on another node is not held for
// want of room the loop has or a target it cannot keep: the ranks there wait
// for it, and the scheduler keeps its GPUs for it anyway. It starts at the
// least share; a guaranteed one runs beside the guaranteed job there.
// Memory still holds it.
TEST_F(InterferencePlacementTest, TheRestOfAStepRunningElsewhereStartsWhereTheLoopIsAtItsFloor) {
  ClusterState s = Nodes({"a", "b"}, 1);
  s.jobs[{"a", 0}] = {Job("g", "G", kG), Job("o", "O", kO)};
  s.co_runners_at_floor = {{"a", 0}};
  options_.max_jobs_per_gpu = 3;
  for (const Priority priority : {kO, kG}) {
    SCOPED_TRACE(priority == kG ? "guaranteed" : "opportunistic");
    PlacementRequest part = Request("step.node0", "N", priority, /*mem=*/0);
    part.host = "a";
    part.join_busy_gpus = true;
    PlacementDecision d = Place(part, s);
    ASSERT_EQ(d.outcome, Outcome::kQueued);
    EXPECT_NE(d.reason.find(priority == kG ? "already runs guaranteed job g"
                                           : "its co-runners held at the least share"),
              std::string::npos)
        << d.reason;
    part.step_runs_on = "b";
    d = Place(part, s);
    ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
    EXPECT_EQ(d.gpu, (GpuId{"a", 0}));
    EXPECT_EQ(d.beside_guaranteed, priority == kG);
    EXPECT_NE(d.reason.find("the rest of its step runs on b, waiting for it"), std::string::npos)
        << d.reason;
  }
  // Beside a guaranteed job whose target no share could keep (2%, next to a
  // job it keeps 0.5 of its speed beside): placed, at the least share.
  s.co_runners_at_floor.clear();
  s.jobs[{"a", 0}] = {Job("g", "G", kG)};
  s.jobs[{"a", 0}][0].slowdown_target = 0.02;
  predictor_.SetPair("G", "N", 0.5, 0.5);
  PlacementRequest part = Request("step.node0", "N", kO, /*mem=*/0);
  part.host = "a";
  part.join_busy_gpus = true;
  PlacementDecision d = Place(part, s);
  ASSERT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("guaranteed job g on a:0 would run at predicted throughput"),
            std::string::npos)
      << d.reason;
  part.step_runs_on = "b";
  d = Place(part, s);
  EXPECT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  // No memory left: held all the same.
  s.jobs[{"a", 0}] = {Job("g", "G", kG, /*mem=*/16 * kGiB)};
  d = Place(part, s);
  ASSERT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("who leave it no memory"), std::string::npos) << d.reason;
}

// A guaranteed newcomer beside an opportunistic resident: the resident is
// throttled so the newcomer keeps its target, and its loss is counted. The
// resident gives way: no bar on the gain keeps the guaranteed job waiting.
TEST_F(InterferencePlacementTest, AGuaranteedNewcomerThrottlesTheResident) {
  ClusterState s = Nodes({"a", "b"}, 1);
  s.jobs[{"a", 0}] = {Job("o", "O", kO)};
  s.jobs[{"b", 0}] = {Job("o2", "O2", kO)};
  predictor_.SetPair("N", "O", 0.8, 0.9);  // n unthrottled 0.8 < 1/1.1
  // share = 0.0909 / 0.2 = 0.4545: o runs at 0.9 * 0.4545 = 0.409, losing
  // 0.591; n runs at 0.909: gain 0.318. Beside o2, n is held at its floor
  // by cutting o2 to 0.0909 / 0.9 = 0.101: o2 loses 0.899, gain 0.010.
  predictor_.SetPair("N", "O2", 0.1, 1.0);
  PlacementDecision d = Place(Request("n", "N", kG), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 0})) << d.reason;
  // Whatever the bar: the least loss still chooses, and nothing waits.
  options_.min_gain = 0.4;
  d = Place(Request("n", "N", kG), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"a", 0})) << d.reason;
  s.jobs.erase({"a", 0});
  s.jobs[{"a", 0}] = {Job("o3", "O2", kO)};
  d = Place(Request("n", "N", kG), s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  EXPECT_LT(d.reason.find("predicted gain 0.010"), d.reason.size()) << d.reason;
  // An opportunistic job predicted the same waits at that bar.
  predictor_.SetPair("P", "O2", 0.5, 0.5);
  EXPECT_EQ(Place(Request("p", "P"), s).outcome, Outcome::kQueued);
}

// The whole GPUs a batch system gave a gang, one busy (Slurm 22.05's gpu:k
// beside shards): it starts beside the resident, whatever min_gain says,
// unless a rule forbids that GPU.
TEST_F(InterferencePlacementTest, AGangOnItsSchedulersBusyGpusStartsBesideTheirResidents) {
  ClusterState s = Nodes({"a"}, 2);
  s.jobs[{"a", 1}] = {Job("o", "O", kO)};
  predictor_.SetPair("N", "O", 0.3, 0.3);
  PlacementRequest r = Request("n", "N", kO, /*mem=*/0, /*gpu_count=*/2);
  // The coordinator's own choice: whole GPUs, so it waits.
  EXPECT_EQ(Place(r, s).outcome, Outcome::kQueued);
  r.join_busy_gpus = true;
  options_.min_gain = 5;  // no sharing would pay by this bar
  PlacementDecision d = Place(r, s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"a", 0}, {"a", 1}}));
  EXPECT_NE(d.reason.find("the scheduler's GPUs a:0, a:1, beside o"), std::string::npos)
      << d.reason;
  EXPECT_NE(d.reason.find("the job at 0.30"), std::string::npos) << d.reason;
  EXPECT_FALSE(d.beside_guaranteed);
  // A guaranteed gang joins a guaranteed job (two targets cannot both be
  // defended: neither is held for the other), its GPUs chosen as an
  // opportunistic gang's would be.
  s.jobs[{"a", 1}] = {Job("g", "G", kG)};
  predictor_.SetPair("N", "G", 0.5, 0.95);
  r.priority = kG;
  d = Place(r, s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  EXPECT_TRUE(d.beside_guaranteed);
  EXPECT_NE(d.reason.find("beside guaranteed g: neither held for the other, so its target may "
                          "not hold until it ends"),
            std::string::npos)
      << d.reason;
  // A GPU held whole leaves no memory; a GPU past max_jobs_per_gpu takes no one.
  s.jobs[{"a", 1}] = {Job("w", "O", kO, /*mem=*/0)};
  d = Place(r, s);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("who leave it no memory"), std::string::npos) << d.reason;
  s.jobs[{"a", 1}] = {Job("o", "O", kO)};
  options_.max_jobs_per_gpu = 1;
  EXPECT_EQ(Place(r, s).outcome, Outcome::kQueued);
}

// A job wider than a node takes whole nodes (Slurm's srun -N k/g
// --gres=gpu:g): those that leave it most of its speed, as it runs at its
// slowest rank's pace; never a node another gang holds part of.
TEST_F(InterferencePlacementTest, AJobWiderThanANodeTakesTheWholeNodesThatSlowItLeast) {
  ClusterState s = Nodes({"a", "b", "c"}, 2);
  s.jobs[{"a", 0}] = {Job("g", "G", kG)};
  s.jobs[{"b", 1}] = {Job("o", "O", kO)};
  predictor_.SetPair("N", "G", 0.5, 0.6);  // g would be held to its target: n cut far
  predictor_.SetPair("N", "O", 0.8, 0.8);
  PlacementRequest r = Request("n", "N", kO, /*mem=*/0, /*gpu_count=*/4);
  // Whole GPUs only: one empty node, not two.
  PlacementDecision d = Place(r, s);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("no 2 whole nodes on the cluster"), std::string::npos) << d.reason;
  r.join_busy_gpus = true;
  d = Place(r, s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"b", 0}, {"b", 1}, {"c", 0}, {"c", 1}}));
  EXPECT_NE(d.reason.find("whole nodes b, c: the job at 0.80"), std::string::npos) << d.reason;
  EXPECT_FALSE(d.beside_guaranteed);
  // A node where another gang runs is not given to it.
  s.jobs[{"c", 1}] = {Job("h", "O", kO, /*mem=*/0, /*gpu_count=*/2)};
  d = Place(r, s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"a", 0}, {"a", 1}, {"b", 0}, {"b", 1}}));
  // Guaranteed, with a guaranteed job on one of the only nodes left: beside it.
  r.priority = kG;
  d = Place(r, s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  EXPECT_TRUE(d.beside_guaranteed);
  EXPECT_NE(d.reason.find("beside guaranteed g: neither held for the other, so its target may "
                          "not hold until it ends"),
            std::string::npos)
      << d.reason;
  // Gangs on two of the nodes: no two whole nodes now, but it names those
  // it would take once they end (a scheduler's preference): b and c, not a.
  r.priority = kO;
  s.jobs[{"a", 1}] = {Job("h2", "O", kO, /*mem=*/0, /*gpu_count=*/2)};
  s.jobs[{"b", 0}] = {Job("h3", "O", kO, /*mem=*/0, /*gpu_count=*/2)};
  d = Place(r, s);
  ASSERT_EQ(d.outcome, Outcome::kQueued) << d.reason;
  EXPECT_EQ(d.preferred, (std::vector<GpuId>{{"b", 0}, {"b", 1}, {"c", 0}, {"c", 1}}));
  EXPECT_NE(d.reason.find("once the gangs there end, whole nodes b, c"), std::string::npos)
      << d.reason;
  // Not whole nodes, or more nodes than the cluster has: refused, saying why.
  r.gpu_count = 3;
  d = Place(r, s);
  EXPECT_EQ(d.outcome, Outcome::kRejected);
  EXPECT_NE(d.reason.find("not whole nodes: ask for a multiple of 2"), std::string::npos)
      << d.reason;
  r.gpu_count = 8;
  d = Place(r, s);
  EXPECT_EQ(d.outcome, Outcome::kRejected);
  EXPECT_NE(d.reason.find("needs 4 whole nodes of 2"), std::string::npos) << d.reason;
}

// A job wider than a node queued by a busy GPU says which GPU and whose
// job. The reason is written after the nodes were scored: it once named a
// copy of the GPU's view gone by then (iashim-clustersim crashed on
// 7f04ca's first 40 jobs; ASan reads it as a use after scope).
TEST_F(InterferencePlacementTest, AJobWiderThanANodeQueuedByABusyGpuNamesIt) {
  ClusterState s = Nodes({"a", "b"}, 2);
  s.jobs[{"a", 1}] = {Job("o", "O", kO)};
  DenyRule rule;
  rule.Deny("N", "O");
  PlacementRequest r = Request("n", "N", kO, /*mem=*/0, /*gpu_count=*/4);
  r.join_busy_gpus = true;
  const PlacementDecision d = Place(r, s, &rule);
  ASSERT_EQ(d.outcome, Outcome::kQueued) << d.reason;
  EXPECT_NE(d.reason.find("(e.g. job o on a:1 may not share a GPU with it)"), std::string::npos)
      << d.reason;
}

// A gang that states its memory joins its scheduler's busy GPUs in that
// much of what their residents leave, and waits where less is left.
TEST_F(InterferencePlacementTest, AGangStatingItsMemoryJoinsBusyGpusWhereThatMuchIsLeft) {
  ClusterState s = Nodes({"a"}, 2);  // 16 GiB each
  s.jobs[{"a", 1}] = {Job("o", "O", kO, 9 * kGiB)};
  predictor_.SetPair("N", "O", 0.3, 0.3);
  PlacementRequest r = Request("n", "N", kO, /*mem=*/6 * kGiB, /*gpu_count=*/2);
  r.join_busy_gpus = true;
  options_.min_gain = 5;  // no sharing would pay by this bar
  PlacementDecision d = Place(r, s);
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.reason;
  EXPECT_EQ(d.gpus, (std::vector<GpuId>{{"a", 0}, {"a", 1}}));
  r.mem_bytes = 8 * kGiB;  // a:1 has 7 GiB left
  d = Place(r, s);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("a:1 has 7.0 GiB free of 16.0 GiB"), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find("8.0 GiB asked"), std::string::npos) << d.reason;
}

// Packing: a mix of whole-GPU requests arrives, so a share placed on an
// empty GPU would cost a whole GPU; sharing costs 10% each.
struct PackingCase {
  ClusterState state = Nodes({"a"}, 9);
  TablePredictor predictor;
  RequestMix mix;

  PackingCase() {
    state.cluster.gpus.push_back(Gpu("b", 0));
    state.jobs[{"b", 0}].push_back(Job("resident", "x", kO, 8 * kGiB));
    predictor.fallback = 0.9;
    mix.Observe(1, 0);
  }
};

TEST(InterferenceAwarePlacementPacking, AnEmptyGpuWinsWhileCapacityIsPlentiful) {
  PackingCase c;
  const InterferenceAwarePlacement policy(&c.predictor, nullptr, {}, &c.mix);
  // Pressure (8 GiB held + 4 asked of 10 GPUs) is low: sharing's 0.2 loss
  // of progress outweighs the fragmentation it saves.
  const PlacementDecision d = policy.Place(Request("new", "x"), c.state);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu.host, "a");
}

TEST(InterferenceAwarePlacementPacking, PacksHarderAsTheQueueGrows) {
  PackingCase c;
  const InterferenceAwarePlacement policy(&c.predictor, nullptr, {}, &c.mix);
  c.state.queued_gpus = 6;  // the queue asks most of the free capacity
  const PlacementDecision d = policy.Place(Request("new", "x"), c.state);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"b", 0})) << d.reason;
  EXPECT_NE(d.reason.find("packed rather than alone on a:"), std::string::npos) << d.reason;
  // Without a mix there is no fragmentation term: exclusive first, always.
  const InterferenceAwarePlacement plain(&c.predictor, nullptr, {});
  EXPECT_EQ(plain.Place(Request("new", "x"), c.state).gpu.host, "a");
}

TEST(InterferenceAwarePlacementPacking, WhereSharingCostsNothingFragmentationDecides) {
  PackingCase c;
  c.predictor.fallback = 1.0;  // e.g. compute quotas: each runs at its share
  c.state.cluster.gpus.push_back(Gpu("c", 0));
  c.state.jobs[{"c", 0}].push_back(Job("small", "x", kO, 2 * kGiB));
  c.mix.Observe(1, 6 * kGiB);  // shares of 6 GiB arrive too
  const InterferenceAwarePlacement policy(&c.predictor, nullptr, {}, &c.mix);
  // b0 has 8 GiB free, c0 14: 4 GiB on b0 leaves 4 (too little for a 6),
  // on c0 it leaves 10 (room for a 6): c0 adds less fragmentation.
  const PlacementDecision d = policy.Place(Request("new", "x"), c.state);
  ASSERT_EQ(d.outcome, Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"c", 0})) << d.reason;
}

TEST(InterferenceAwarePlacementPacking, SharingMustStillPayAndWholeGpusStillGoAlone) {
  PackingCase c;
  c.predictor.fallback = 0.3;  // sharing would lose progress outright
  c.state.queued_gpus = 100;
  const InterferenceAwarePlacement policy(&c.predictor, nullptr, {}, &c.mix);
  EXPECT_EQ(policy.Place(Request("new", "x"), c.state).gpu.host, "a");
  // A whole GPU or a gang never shares, packing or not.
  EXPECT_EQ(policy.Place(Request("whole", "x", kO, 0), c.state).gpu.host, "a");
  // No empty GPU and no admissible share: queued, naming the best candidate.
  ClusterState full = c.state;
  for (int i = 0; i < 9; ++i) full.jobs[{"a", i}].push_back(Job("r" + std::to_string(i), "x"));
  const PlacementDecision d = policy.Place(Request("new", "x"), full);
  EXPECT_EQ(d.outcome, Outcome::kQueued);
  EXPECT_NE(d.reason.find("sharing would not pay"), std::string::npos) << d.reason;
}

}  // namespace
}  // namespace iashim::policy
