#include "coordinator/clustersim/alibaba_baselines.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coordinator/policy/cluster_state.h"

namespace iashim::clustersim {
namespace {

using policy::GpuId;
using Outcome = policy::PlacementDecision::Outcome;

// Two nodes of two GPUs of 1000 milli each, as the Alibaba replay builds them.
policy::ClusterState TwoNodes() {
  policy::ClusterState s;
  for (const char* host : {"a", "b"}) {
    for (int i = 0; i < 2; ++i) {
      policy::GpuInfo g;
      g.id = {host, i};
      g.memory_bytes = 1000;
      s.cluster.gpus.push_back(g);
    }
  }
  return s;
}

void Put(policy::ClusterState* s, GpuId gpu, const std::string& job, uint64_t milli) {
  s->jobs[gpu].push_back({.job = job, .mem_bytes = milli});
}

policy::PlacementRequest Ask(uint64_t milli, int gpus = 1) {
  policy::PlacementRequest r;
  r.job = "new";
  r.mem_bytes = milli;
  r.gpu_count = gpus;
  return r;
}

TEST(AlibabaBestFit, AShareGoesWhereItFitsTightest) {
  policy::ClusterState s = TwoNodes();
  Put(&s, {"a", 0}, "x", 200);  // 800 left
  Put(&s, {"b", 1}, "y", 600);  // 400 left
  const AlibabaBestFit bestfit;
  EXPECT_EQ(bestfit.Place(Ask(300), s).gpu, (GpuId{"b", 1}));  // leaves 100
  EXPECT_EQ(bestfit.Place(Ask(500), s).gpu,
            (GpuId{"a", 0}));  // only a0 or empty ones: a0 leaves 300
  EXPECT_EQ(bestfit.Place(Ask(900), s).gpu, (GpuId{"a", 1}));  // an empty GPU, the first
}

TEST(AlibabaBestFit, WholeGpusKeepWholeNodesFree) {
  policy::ClusterState s = TwoNodes();
  Put(&s, {"a", 0}, "x", 200);
  const AlibabaBestFit bestfit;
  // One whole GPU: node a has one empty GPU left, so it goes there.
  EXPECT_EQ(bestfit.Place(Ask(0), s).gpu, (GpuId{"a", 1}));
  const policy::PlacementDecision gang = bestfit.Place(Ask(0, 2), s);
  ASSERT_EQ(gang.outcome, Outcome::kPlaced);
  EXPECT_EQ(gang.gpus, (std::vector<GpuId>{{"b", 0}, {"b", 1}}));
  Put(&s, {"b", 0}, "y", 100);
  EXPECT_EQ(bestfit.Place(Ask(0, 2), s).outcome, Outcome::kQueued);
}

TEST(AlibabaFirstFit, TheFirstGpuWithRoom) {
  policy::ClusterState s = TwoNodes();
  Put(&s, {"a", 0}, "x", 800);
  Put(&s, {"a", 1}, "y", 0);  // the whole GPU
  const AlibabaFirstFit firstfit;
  EXPECT_EQ(firstfit.Place(Ask(100), s).gpu, (GpuId{"a", 0}));
  EXPECT_EQ(firstfit.Place(Ask(300), s).gpu, (GpuId{"b", 0}));
  EXPECT_EQ(firstfit.Place(Ask(0), s).gpu, (GpuId{"b", 0}));
  const policy::PlacementDecision gang = firstfit.Place(Ask(0, 2), s);
  EXPECT_EQ(gang.gpus, (std::vector<GpuId>{{"b", 0}, {"b", 1}}));
  Put(&s, {"b", 0}, "z", 950);
  Put(&s, {"b", 1}, "w", 950);
  EXPECT_EQ(firstfit.Place(Ask(300), s).outcome, Outcome::kQueued);
}

TEST(AlibabaFgd, LeavesFreeCapacityInTheShapesThatArrive) {
  policy::ClusterState s = TwoNodes();
  Put(&s, {"a", 0}, "x", 500);  // 500 left
  Put(&s, {"a", 1}, "x2", 1000);
  Put(&s, {"b", 0}, "y", 700);  // 300 left
  Put(&s, {"b", 1}, "y2", 1000);
  policy::RequestMix mix;
  mix.Observe(1, 250);
  const AlibabaFgd fgd(&mix);
  // Best fit takes b0 (50 left, which no 250 can use); FGD takes a0: the 250
  // left there still fits the next one.
  EXPECT_EQ(AlibabaBestFit().Place(Ask(250), s).gpu, (GpuId{"b", 0}));
  EXPECT_EQ(fgd.Place(Ask(250), s).gpu, (GpuId{"a", 0}));
  // A 300 fits b0 exactly: nothing left to fragment.
  EXPECT_EQ(fgd.Place(Ask(300), s).gpu, (GpuId{"b", 0}));
}

TEST(AlibabaFgd, WholeGpusGoWhereTheyBreakNoGang) {
  policy::ClusterState s = TwoNodes();
  Put(&s, {"a", 0}, "x", 300);
  policy::RequestMix mix;
  mix.Observe(2, 0);  // gangs of two arrive
  mix.Observe(1, 0);
  const AlibabaFgd fgd(&mix);
  // Node b can still take a gang; a cannot, so a's empty GPU is the one to use.
  EXPECT_EQ(fgd.Place(Ask(0), s).gpu, (GpuId{"a", 1}));
  const policy::PlacementDecision gang = fgd.Place(Ask(0, 2), s);
  ASSERT_EQ(gang.outcome, Outcome::kPlaced);
  EXPECT_EQ(gang.gpus, (std::vector<GpuId>{{"b", 0}, {"b", 1}}));
  Put(&s, {"b", 0}, "y", 100);
  EXPECT_EQ(fgd.Place(Ask(0, 2), s).outcome, Outcome::kQueued);
  Put(&s, {"a", 1}, "z", 950);
  Put(&s, {"b", 1}, "w", 950);
  EXPECT_EQ(fgd.Place(Ask(950), s).outcome, Outcome::kQueued);
}

}  // namespace
}  // namespace iashim::clustersim
