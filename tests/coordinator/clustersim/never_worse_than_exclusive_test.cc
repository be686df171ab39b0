// iashim must never be worse than exclusive by accident (issue 17): with
// sharing disabled it is exclusive, job for job; and a handful of shared
// jobs early on must not cascade into the rest of the queue.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "coordinator/clustersim/baseline_policies.h"
#include "coordinator/clustersim/measured_pair_rule.h"
#include "coordinator/clustersim/oracle_predictor.h"
#include "coordinator/clustersim/replay.h"
#include "coordinator/clustersim/report.h"
#include "coordinator/policy/interference_placement.h"
#include "gtest/gtest.h"
#include "tests/coordinator/clustersim/seed0_data.h"

namespace iashim::clustersim {
namespace {

// Shares like InterferenceAwarePlacement with the oracle until it has made
// `max_shared` co-locations, then places like exclusive: a replay in which
// only a few jobs share. Counting in Place is exact: the simulator starts
// every job it is told to place.
class SharesOnlyAFew : public policy::PlacementPolicy {
 public:
  SharesOnlyAFew(const policy::PlacementPolicy* sharing, int max_shared)
      : sharing_(sharing), max_shared_(max_shared) {}

  policy::PlacementDecision Place(const policy::PlacementRequest& request,
                                  const policy::ClusterState& state) const override {
    if (shared_ >= max_shared_) return exclusive_.Place(request, state);
    policy::PlacementDecision d = sharing_->Place(request, state);
    if (d.outcome == policy::PlacementDecision::Outcome::kPlaced && d.gpus.size() == 1 &&
        !state.JobsOn(d.gpu).empty()) {
      ++shared_;
    }
    return d;
  }

  int shared() const { return shared_; }

 private:
  const policy::PlacementPolicy* sharing_;
  ExclusivePlacement exclusive_;
  int max_shared_;
  mutable int shared_ = 0;
};

// The JCTs of the one-GPU jobs.
std::vector<double> OneGpuJcts(const std::vector<JobRecord>& jobs) {
  std::vector<double> out;
  for (const JobRecord& j : jobs) {
    if (j.type.scale == 1) out.push_back(j.jct_s);
  }
  return out;
}

class NeverWorseThanExclusiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::LoadedReplay loaded;
    const absl::Status status = testing::LoadThreeTracesOn16Gpus(&loaded);
    ASSERT_TRUE(status.ok()) << status;
    truth_ = std::move(loaded.truth);
    options_ = std::move(loaded.options);
    prepared_ = PrepareJobs(loaded.trace, truth_, options_.sim, options_.arrival_scale);
    ASSERT_GT(prepared_.jobs.size(), 100u);
  }

  GavelThroughputs truth_;
  ReplayOptions options_;
  PreparedJobs prepared_;
};

TEST_F(NeverWorseThanExclusiveTest, WithSharingDisabledIashimIsExclusiveJobForJob) {
  // No co-location can add this much progress: iashim never shares.
  options_.min_gain = std::numeric_limits<double>::infinity();
  options_.policies = {"exclusive", "iashim", "oracle"};
  absl::StatusOr<std::vector<PolicyRun>> runs = Replay(prepared_, truth_, options_);
  ASSERT_TRUE(runs.ok()) << runs.status();
  const PolicyRun& exclusive = (*runs)[0];
  for (size_t p = 1; p < runs->size(); ++p) {
    const PolicyRun& run = (*runs)[p];
    EXPECT_EQ(run.summary.shared_jobs, 0) << run.summary.policy;
    EXPECT_EQ(run.summary.later_than_exclusive, 0) << run.summary.policy;
    ASSERT_EQ(run.jobs.size(), exclusive.jobs.size());
    for (size_t j = 0; j < run.jobs.size(); ++j) {
      ASSERT_EQ(run.jobs[j].start_s, exclusive.jobs[j].start_s)
          << run.summary.policy << " " << run.jobs[j].job;
      ASSERT_EQ(run.jobs[j].finish_s, exclusive.jobs[j].finish_s)
          << run.summary.policy << " " << run.jobs[j].job;
    }
  }
}

TEST_F(NeverWorseThanExclusiveTest, AFewEarlySharedJobsDoNotCascadeIntoTheQueue) {
  const MeasuredPairRule rule(&truth_);
  const OraclePredictor oracle(truth_);
  policy::InterferenceAwarePlacement::Options o;
  o.min_gain = 0;  // any co-location that adds progress
  o.max_jobs_per_gpu = 2;
  const policy::InterferenceAwarePlacement sharing(&oracle, &rule, o);
  const SharesOnlyAFew few(&sharing, 3);

  SimConfig exclusive_sim = options_.sim;
  exclusive_sim.policy_may_share = false;
  absl::StatusOr<SimResult> exclusive =
      Simulate(prepared_.jobs, truth_, exclusive_sim, ExclusivePlacement(), nullptr);
  ASSERT_TRUE(exclusive.ok()) << exclusive.status();
  absl::StatusOr<SimResult> shared = Simulate(prepared_.jobs, truth_, options_.sim, few, nullptr);
  ASSERT_TRUE(shared.ok()) << shared.status();
  ASSERT_EQ(few.shared(), 3);
  EXPECT_EQ(shared->pair_starts, 3);

  const double exclusive_median =
      Percentile(OneGpuJcts(MakeJobRecords(prepared_.jobs, *exclusive)), 0.5);
  const double shared_median = Percentile(OneGpuJcts(MakeJobRecords(prepared_.jobs, *shared)), 0.5);
  // Three pairs among hundreds of jobs: the one-GPU jobs' median JCT may
  // move by chance, but only by a few percent.
  EXPECT_LE(shared_median, exclusive_median * 1.05)
      << "one-GPU median JCT " << shared_median << " s vs exclusive " << exclusive_median << " s";
}

}  // namespace
}  // namespace iashim::clustersim
