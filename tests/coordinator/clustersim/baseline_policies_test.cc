#include "coordinator/clustersim/baseline_policies.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "coordinator/clustersim/simulator.h"
#include "gtest/gtest.h"

namespace iashim::clustersim {
namespace {

using policy::ClusterState;
using policy::GpuId;
using policy::PlacedJob;
using policy::PlacementDecision;
using policy::PlacementRequest;

// Any pair may share except with kind "Big".
class NoBig : public policy::ShareRule {
 public:
  bool MayShare(const policy::JobTraits& a, const policy::JobTraits& b) const override {
    return a.kind != "Big" && b.kind != "Big";
  }
};

// Predicts a fixed throughput per (victim, aggressor); 0.5 otherwise.
class FixedPredictor : public policy::InterferencePredictor {
 public:
  absl::flat_hash_map<std::string, double> table;
  policy::InterferencePrediction Predict(const policy::JobTraits& v,
                                         const policy::JobTraits& a) const override {
    auto it = table.find(v.kind + "|" + a.kind);
    return {it == table.end() ? 0.5 : it->second, 0, 0};
  }
};

ClusterState State(int gpus, int per_node) {
  SimConfig c;
  c.gpus = gpus;
  c.gpus_per_node = per_node;
  ClusterState s;
  s.cluster = MakeCluster(c);
  return s;
}

void Put(ClusterState* s, const GpuId& gpu, const std::string& kind, int gpu_count = 1) {
  PlacedJob p;
  p.job = kind + std::to_string(s->jobs[gpu].size());
  p.priority = policy::Priority::kOpportunistic;
  p.mem_bytes = 1;
  p.traits.kind = kind;
  p.gpu_count = gpu_count;
  s->jobs[gpu].push_back(p);
}

PlacementRequest Request(const std::string& kind, int gpu_count = 1) {
  PlacementRequest r;
  r.job = "new";
  r.priority = policy::Priority::kOpportunistic;
  r.mem_bytes = 1;
  r.traits.kind = kind;
  r.gpu_count = gpu_count;
  return r;
}

const GpuId kN0G0{"node000", 0};
const GpuId kN0G1{"node000", 1};
const GpuId kN1G0{"node001", 0};
const GpuId kN1G1{"node001", 1};

TEST(EmptyGpus, PrefersTheFullestNodeThatFits) {
  ClusterState s = State(4, 2);
  Put(&s, kN1G0, "A");
  EXPECT_EQ(EmptyGpus(s, 1), (std::vector<GpuId>{kN1G1}));  // keeps node000 whole
  EXPECT_EQ(EmptyGpus(s, 2), (std::vector<GpuId>{kN0G0, kN0G1}));
  Put(&s, kN0G1, "A");
  EXPECT_FALSE(EmptyGpus(s, 2).has_value());
}

TEST(ExclusivePlacement, OneJobPerGpu) {
  ClusterState s = State(2, 2);
  Put(&s, kN0G0, "A");
  PlacementDecision d = ExclusivePlacement().Place(Request("A"), s);
  ASSERT_EQ(d.outcome, PlacementDecision::Outcome::kPlaced);
  EXPECT_EQ(d.gpu, kN0G1);
  Put(&s, kN0G1, "A");
  EXPECT_EQ(ExclusivePlacement().Place(Request("A"), s).outcome,
            PlacementDecision::Outcome::kQueued);
}

TEST(FirstFitPlacement, SharesTheFirstGpuEvenWithAnEmptyOne) {
  const NoBig rule;
  ClusterState s = State(4, 2);
  Put(&s, kN0G1, "A");
  PlacementDecision d = FirstFitPlacement(&rule).Place(Request("B"), s);
  ASSERT_EQ(d.outcome, PlacementDecision::Outcome::kPlaced);
  EXPECT_EQ(d.gpu, kN0G0);  // node000:0 is empty and first
  Put(&s, kN0G0, "Big");
  d = FirstFitPlacement(&rule).Place(Request("B"), s);
  EXPECT_EQ(d.gpu, kN0G1);  // joins A although node001 is empty
  d = FirstFitPlacement(&rule).Place(Request("Big"), s);
  EXPECT_EQ(d.gpu, kN1G0);  // Big may share with no one
  Put(&s, kN0G1, "B");      // node000:1 now holds two jobs
  d = FirstFitPlacement(&rule).Place(Request("B"), s);
  EXPECT_EQ(d.gpu, kN1G0);
}

TEST(FirstFitPlacement, GangsTakeEmptyGpusOnly) {
  const NoBig rule;
  ClusterState s = State(4, 2);
  Put(&s, kN0G0, "A");
  Put(&s, kN1G0, "A");
  EXPECT_EQ(FirstFitPlacement(&rule).Place(Request("A x2", 2), s).outcome,
            PlacementDecision::Outcome::kQueued);
}

// Plain Slurm giving guaranteed jobs --gres=gpu:1: a guaranteed job takes
// the first empty GPU, not the first it could share, and no job joins it.
TEST(FirstFitPlacement, WithGuaranteedJobsOnWholeGpusNoOneSharesTheirs) {
  const NoBig rule;
  const FirstFitPlacement whole(&rule, /*guaranteed_take_whole_gpus=*/true);
  ClusterState s = State(4, 2);
  Put(&s, kN0G0, "A");
  PlacementRequest guaranteed = Request("B");
  guaranteed.priority = policy::Priority::kGuaranteed;
  EXPECT_EQ(FirstFitPlacement(&rule).Place(guaranteed, s).gpu, kN0G0);  // shards: shares
  PlacementDecision d = whole.Place(guaranteed, s);
  ASSERT_EQ(d.outcome, PlacementDecision::Outcome::kPlaced);
  EXPECT_EQ(d.gpu, kN0G1);
  Put(&s, kN0G1, "B");
  s.jobs[kN0G1][0].priority = policy::Priority::kGuaranteed;
  d = whole.Place(Request("B"), s);  // an opportunistic job passes it by
  EXPECT_EQ(d.gpu, kN0G0);
  Put(&s, kN0G0, "B");
  EXPECT_EQ(whole.Place(Request("B"), s).gpu, kN1G0);
  Put(&s, kN1G0, "A");
  Put(&s, kN1G1, "A");
  EXPECT_EQ(whole.Place(guaranteed, s).outcome, PlacementDecision::Outcome::kQueued);
}

TEST(IadeepPlacement, IdleGpuFirst) {
  const NoBig rule;
  FixedPredictor predictor;
  predictor.table["B|A"] = 1.0;
  predictor.table["A|B"] = 1.0;
  ClusterState s = State(2, 2);
  Put(&s, kN0G0, "A");
  PlacementDecision d = IadeepPlacement(&predictor, &rule).Place(Request("B"), s);
  ASSERT_EQ(d.outcome, PlacementDecision::Outcome::kPlaced);
  EXPECT_EQ(d.gpu, kN0G1);  // empty, although sharing with A is predicted free
}

TEST(IadeepPlacement, LowestPredictedInterferenceAndNeverRefuses) {
  const NoBig rule;
  FixedPredictor predictor;
  predictor.table["X|A"] = 0.9;
  predictor.table["A|X"] = 0.9;  // sum 1.8
  predictor.table["X|C"] = 0.2;
  predictor.table["C|X"] = 0.1;  // sum 0.3
  ClusterState s = State(3, 8);
  Put(&s, {"node000", 0}, "C");
  Put(&s, {"node000", 1}, "A");
  Put(&s, {"node000", 2}, "Big");
  PlacementDecision d = IadeepPlacement(&predictor, &rule).Place(Request("X"), s);
  ASSERT_EQ(d.outcome, PlacementDecision::Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"node000", 1}));
  // Only the terrible pair left: IADeep still co-locates.
  s.jobs.erase(GpuId{"node000", 1});
  Put(&s, {"node000", 1}, "Big");
  d = IadeepPlacement(&predictor, &rule).Place(Request("X"), s);
  ASSERT_EQ(d.outcome, PlacementDecision::Outcome::kPlaced);
  EXPECT_EQ(d.gpu, (GpuId{"node000", 0}));
  // Nothing shareable: queued.
  EXPECT_EQ(IadeepPlacement(&predictor, &rule).Place(Request("Big"), s).outcome,
            PlacementDecision::Outcome::kQueued);
}

}  // namespace
}  // namespace iashim::clustersim
