#include "coordinator/clustersim/replay.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/clustersim/measured_pairs.h"
#include "coordinator/clustersim/oracle_predictor.h"
#include "gtest/gtest.h"
#include "tests/coordinator/clustersim/seed0_data.h"

namespace iashim::clustersim {
namespace {

class ReplayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::LoadedReplay loaded;
    const absl::Status status = testing::LoadThreeTracesOn16Gpus(&loaded);
    ASSERT_TRUE(status.ok()) << status;
    truth_ = std::move(loaded.truth);
    trace_ = std::move(loaded.trace);
    options_ = std::move(loaded.options);
    options_.policies.assign(std::begin(kPolicyNames), std::end(kPolicyNames));
  }

  GavelThroughputs truth_;
  std::vector<TraceJob> trace_;
  ReplayOptions options_;
};

TEST_F(ReplayTest, PrepareCountsSkippedAndScalesArrivals) {
  const PreparedJobs p = PrepareJobs(trace_, truth_, options_.sim, 2);
  EXPECT_EQ(p.jobs.size() + p.skipped + p.unplaceable(), trace_.size());
  EXPECT_GT(p.skipped, 0);  // e.g. scale factors Gavel did not measure
  for (const SimJob& j : p.jobs) EXPECT_TRUE(truth_.Solo(j.type).has_value());
  const PreparedJobs unscaled = PrepareJobs(trace_, truth_, options_.sim, 1);
  EXPECT_DOUBLE_EQ(p.jobs.back().arrival_s * 2, unscaled.jobs.back().arrival_s);
  SimConfig small = options_.sim;
  small.gpus = 2;
  EXPECT_GT(PrepareJobs(trace_, truth_, small, 1).wider_than_cluster, 0);
}

// Jobs wider than a node run on whole nodes (Simulate); the replay leaves
// out, and counts by rule, those that are not whole nodes and those wider than
// the cluster. 10 GPUs in nodes of 4 (node002 has 2): 8 and 4 GPUs are kept;
// 6 is not whole nodes; 12 needs three whole nodes of two; 2 GPUs of an
// unmeasured type are skipped first.
TEST(PrepareJobs, CountsJobsLeftOutByEachRule) {
  GavelThroughputs truth;
  for (int k : {1, 4, 6, 8, 12}) truth.SetSolo({"M", k}, 10);
  const std::vector<TraceJob> trace = {{"t:1", {"M", 8}, 100, 0},  {"t:2", {"M", 6}, 100, 1},
                                       {"t:3", {"M", 12}, 100, 2}, {"t:4", {"M", 4}, 100, 3},
                                       {"t:5", {"X", 2}, 100, 4},  {"t:6", {"M", 1}, 100, 5}};
  SimConfig sim;
  sim.gpus = 10;
  sim.gpus_per_node = 4;
  const PreparedJobs p = PrepareJobs(trace, truth, sim, 1);
  ASSERT_EQ(p.jobs.size(), 3u);
  EXPECT_EQ(p.jobs[0].id, "t:1");
  EXPECT_EQ(p.jobs[1].id, "t:4");
  EXPECT_EQ(p.jobs[2].id, "t:6");
  EXPECT_EQ(p.skipped, 1);
  EXPECT_EQ(p.not_whole_nodes, 1);
  EXPECT_EQ(p.wider_than_cluster, 1);
  EXPECT_EQ(p.unplaceable(), 2);
  // On 12 GPUs the 12-GPU job is three whole nodes: kept, and it runs there
  // alone at its solo speed (the simulator accepts what the replay keeps).
  sim.gpus = 12;
  const PreparedJobs wide = PrepareJobs(trace, truth, sim, 1);
  EXPECT_EQ(wide.jobs.size(), 4u);
  EXPECT_EQ(wide.wider_than_cluster, 0);
  EXPECT_EQ(wide.not_whole_nodes, 1);
  // Within a node, the largest node bounds it: 4 GPUs on a 3-GPU cluster.
  sim.gpus = 3;
  EXPECT_EQ(PrepareJobs(trace, truth, sim, 1).wider_than_cluster, 3);  // 8, 12 and 4
  ReplayOptions options;
  options.sim = sim;
  options.sim.gpus = 12;
  options.policies.assign(std::begin(kPolicyNames), std::end(kPolicyNames));
  absl::StatusOr<std::vector<PolicyRun>> runs = Replay(wide, truth, options);
  ASSERT_TRUE(runs.ok()) << runs.status();
  for (const PolicyRun& run : *runs) {
    EXPECT_EQ(run.summary.not_whole_nodes, 1) << run.summary.policy;
    EXPECT_EQ(run.summary.skipped, 1) << run.summary.policy;
  }
}

TEST_F(ReplayTest, EveryMthJobIsGuaranteed) {
  const PreparedJobs none = PrepareJobs(trace_, truth_, options_.sim, 1);
  for (const SimJob& j : none.jobs) EXPECT_EQ(j.priority, policy::Priority::kOpportunistic);
  const PreparedJobs p = PrepareJobs(trace_, truth_, options_.sim, 1, 3);
  ASSERT_GT(p.jobs.size(), 6u);
  for (size_t i = 0; i < p.jobs.size(); ++i) {
    EXPECT_EQ(p.jobs[i].priority,
              i % 3 == 0 ? policy::Priority::kGuaranteed : policy::Priority::kOpportunistic)
        << i;
  }
}

TEST_F(ReplayTest, EveryPolicyRunsAndExclusiveIsNeverLaterThanItself) {
  const PreparedJobs p = PrepareJobs(trace_, truth_, options_.sim, options_.arrival_scale);
  absl::StatusOr<std::vector<PolicyRun>> runs = Replay(p, truth_, options_);
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), std::size(kPolicyNames));
  for (const PolicyRun& run : *runs) {
    EXPECT_EQ(run.summary.jobs, static_cast<int64_t>(p.jobs.size())) << run.summary.policy;
    EXPECT_EQ(run.summary.skipped, p.skipped);
    EXPECT_GT(run.summary.gpu_util, 0);
    EXPECT_LE(run.summary.gpu_util, 1 + 1e-9);
    for (const JobRecord& j : run.jobs) {
      EXPECT_GE(j.start_s, j.arrival_s);
      EXPECT_GE(j.slowdown, 1 - 1e-9) << run.summary.policy << " " << j.job;
    }
  }
  EXPECT_EQ((*runs)[0].summary.policy, "exclusive");
  EXPECT_EQ((*runs)[0].summary.later_than_exclusive, 0);
  EXPECT_EQ((*runs)[0].summary.shared_jobs, 0);
  const auto run = [&](std::string_view policy) -> const PolicySummary& {
    return std::find_if(runs->begin(), runs->end(),
                        [&](const PolicyRun& r) { return r.summary.policy == policy; })
        ->summary;
  };
  EXPECT_GT(run("firstfit").shared_jobs, 0);                                // firstfit packs
  EXPECT_EQ(run("firstfit-whole").mean_jct_s, run("firstfit").mean_jct_s);  // none guaranteed
  EXPECT_TRUE(std::isfinite(run("iashim").predictor_mae));                  // iashim learns
  EXPECT_TRUE(std::isnan(run("oracle").predictor_mae));                     // the oracle does not
}

TEST_F(ReplayTest, LaterThanExclusiveIsCountedWithoutAskingForExclusive) {
  options_.policies = {"firstfit"};
  const PreparedJobs p = PrepareJobs(trace_, truth_, options_.sim, options_.arrival_scale);
  absl::StatusOr<std::vector<PolicyRun>> alone = Replay(p, truth_, options_);
  options_.policies = {"exclusive", "firstfit"};
  absl::StatusOr<std::vector<PolicyRun>> both = Replay(p, truth_, options_);
  ASSERT_TRUE(alone.ok() && both.ok());
  ASSERT_EQ(alone->size(), 1u);
  EXPECT_EQ((*alone)[0].summary.later_than_exclusive, (*both)[1].summary.later_than_exclusive);
  // Recount by hand.
  int64_t later = 0;
  for (size_t i = 0; i < p.jobs.size(); ++i) {
    if ((*both)[1].jobs[i].jct_s > (*both)[0].jobs[i].jct_s * (1 + 1e-6)) ++later;
  }
  EXPECT_EQ((*alone)[0].summary.later_than_exclusive, later);
}

TEST_F(ReplayTest, SameSeedSameResult) {
  const PreparedJobs p = PrepareJobs(trace_, truth_, options_.sim, options_.arrival_scale);
  absl::StatusOr<std::vector<PolicyRun>> a = Replay(p, truth_, options_);
  absl::StatusOr<std::vector<PolicyRun>> b = Replay(p, truth_, options_);
  ASSERT_TRUE(a.ok() && b.ok());
  for (size_t i = 0; i < a->size(); ++i) {
    const PolicyRun& x = (*a)[i];
    const PolicyRun& y = (*b)[i];
    EXPECT_EQ(x.summary.mean_jct_s, y.summary.mean_jct_s) << x.summary.policy;
    EXPECT_EQ(x.summary.pair_starts, y.summary.pair_starts) << x.summary.policy;
    for (size_t j = 0; j < x.jobs.size(); ++j) {
      ASSERT_EQ(x.jobs[j].finish_s, y.jobs[j].finish_s) << x.summary.policy << " " << x.jobs[j].job;
    }
  }
}

TEST_F(ReplayTest, OracleReadsTheMeasuredPairs) {
  const OraclePredictor oracle(truth_);
  policy::JobTraits a;
  a.kind = "ResNet-18 (batch size 16)";
  policy::JobTraits b;
  b.kind = "ResNet-18 (batch size 64)";
  const double expected = truth_.Pair({a.kind, 1}, {b.kind, 1})->a / *truth_.Solo({a.kind, 1});
  EXPECT_DOUBLE_EQ(oracle.Predict(a, b).throughput, expected);
  EXPECT_EQ(oracle.Predict(a, b).uncertainty, 0);
}

TEST_F(ReplayTest, MeasuredPairsAreUnorderedOneGpuPairs) {
  const std::vector<policy::PairMeasurement> pairs = MeasuredPairs(truth_);
  EXPECT_EQ(pairs.size(), 330u);  // 26 one-GPU types on v100, minus [0, 0] pairs
  for (const policy::PairMeasurement& m : pairs) {
    EXPECT_GT(m.a_norm, 0);
    EXPECT_GT(m.b_norm, 0);
    EXPECT_EQ(m.a.kind.find(" x"), std::string::npos);
  }
}

}  // namespace
}  // namespace iashim::clustersim
