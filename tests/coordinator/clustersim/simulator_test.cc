#include "coordinator/clustersim/simulator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "coordinator/clustersim/baseline_policies.h"
#include "coordinator/clustersim/measured_pair_rule.h"
#include "coordinator/clustersim/oracle_predictor.h"
#include "coordinator/policy/interference_placement.h"
#include "coordinator/policy/protective_share.h"
#include "gtest/gtest.h"

namespace iashim::clustersim {
namespace {

// A: 10 steps/s alone; B: 5. Together A runs at 5 (0.5 of solo), B at 4
// (0.8). G: a 2-GPU gang at 20 steps/s.
GavelThroughputs Truth() {
  GavelThroughputs t;
  t.SetSolo({"A", 1}, 10);
  t.SetSolo({"B", 1}, 5);
  t.SetSolo({"G", 2}, 20);
  t.SetPair({"A", 1}, {"B", 1}, 5, 4);
  return t;
}

SimJob Job(std::string id, JobType type, double steps, double arrival) {
  return {std::move(id), std::move(type), steps, arrival};
}

SimConfig Config(int gpus, int per_node) {
  SimConfig c;
  c.gpus = gpus;
  c.gpus_per_node = per_node;
  return c;
}

struct Observation {
  std::string a, b;
  double a_norm, b_norm;
};

class Recorder : public CoLocationObserver {
 public:
  void Observe(const policy::JobTraits& a, const policy::JobTraits& b, double a_norm,
               double b_norm) override {
    seen.push_back({a.kind, b.kind, a_norm, b_norm});
  }
  std::vector<Observation> seen;
};

TEST(Simulate, JobAloneTakesStepsOverSoloThroughput) {
  const GavelThroughputs truth = Truth();
  const std::vector<SimJob> jobs = {Job("a", {"A", 1}, 100, 3)};
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, Config(1, 8), ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[0].start_s, 3);
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 13);
  EXPECT_DOUBLE_EQ(r->jobs[0].solo_s, 10);
  EXPECT_DOUBLE_EQ(r->busy_gpu_seconds, 10);
  EXPECT_DOUBLE_EQ(r->occupied_gpu_seconds, 10);  // alone: full occupancy
  EXPECT_DOUBLE_EQ(r->makespan_s, 10);
}

TEST(Simulate, AJobsStartUpLengthensItsRunAtItsPace) {
  // A: 100 steps at 10/s; G, a 2-GPU gang: 100 at 20/s. Half a second of
  // start-up for a one-GPU job, two for a gang: A runs 10.5 s, G 7 s; their
  // solo times stay their iterations'.
  const GavelThroughputs truth = Truth();
  const std::vector<SimJob> jobs = {Job("g", {"G", 2}, 100, 0), Job("a", {"A", 1}, 100, 3)};
  SimConfig config = Config(4, 8);
  config.start_up = {.one_gpu_s = 0.5, .gang_s = 2};
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, config, ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 7);
  EXPECT_DOUBLE_EQ(r->jobs[0].solo_s, 5);
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 13.5);
  EXPECT_DOUBLE_EQ(r->jobs[1].solo_s, 10);

  // Under share control a guaranteed job's start-up is held as its
  // iterations are, and the loop reads the whole run at its aim: no repaying
  // (ShareControlHoldsTheGuaranteedJobAtItsFloor, one second longer: A's 110
  // steps at 10/1.09 a second end at 11.99 s).
  const MeasuredPairRule rule(&truth);
  std::vector<SimJob> pair = {Job("a", {"A", 1}, 100, 0), Job("b", {"B", 1}, 40, 0)};
  pair[0].priority = policy::Priority::kGuaranteed;
  config = Config(1, 8);
  config.share_control = true;
  config.start_up = {.one_gpu_s = 1, .gang_s = 1};
  r = Simulate(pair, truth, config, FirstFitPlacement(&rule), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->jobs[0].finish_s, 11.99, 1e-9);

  config.start_up.gang_s = -1;
  EXPECT_FALSE(Simulate(pair, truth, config, FirstFitPlacement(&rule), nullptr).ok());
}

TEST(Simulate, PairRunsAtMeasuredPairThroughputs) {
  // FirstFit shares the one GPU. B: 40 steps at 4/s ends at t=10; A has done
  // 5*10 = 50 of 100 steps, the other 50 alone at 10/s take 5 s: t=15.
  const GavelThroughputs truth = Truth();
  const MeasuredPairRule rule(&truth);
  const std::vector<SimJob> jobs = {Job("a", {"A", 1}, 100, 0), Job("b", {"B", 1}, 40, 0)};
  Recorder recorder;
  absl::StatusOr<SimResult> r =
      Simulate(jobs, truth, Config(1, 8), FirstFitPlacement(&rule), &recorder);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 15);
  EXPECT_TRUE(r->jobs[0].shared);
  EXPECT_EQ(r->pair_starts, 1);
  EXPECT_DOUBLE_EQ(r->busy_gpu_seconds, 15);
  // Paired for 10 s at 0.5 + 0.8, capped at 1; then A alone for 5 s.
  EXPECT_DOUBLE_EQ(r->occupied_gpu_seconds, 15);
  // The learner hears of the pair it made, normalised: new job first.
  ASSERT_EQ(recorder.seen.size(), 1u);
  EXPECT_EQ(recorder.seen[0].a, "B");
  EXPECT_EQ(recorder.seen[0].b, "A");
  EXPECT_DOUBLE_EQ(recorder.seen[0].a_norm, 0.8);
  EXPECT_DOUBLE_EQ(recorder.seen[0].b_norm, 0.5);
}

TEST(Simulate, ShareControlHoldsTheGuaranteedJobAtItsFloor) {
  // A (guaranteed) would keep 0.5 next to B: under share control A is held
  // at the loop's aim, 0.9 of its 10% target (its floor 1/1.09), so B's
  // share is cut to (1 - 1/1.09) / (1 - 0.5) = 18/109, A runs at 1/1.09 of
  // 10 steps/s and B at 4 * 18/109. A's 100 steps end at t = 10.9; B has
  // done 7.2 of its 40 steps and does the other 32.8 alone at 5/s: t = 17.46.
  const GavelThroughputs truth = Truth();
  const MeasuredPairRule rule(&truth);
  std::vector<SimJob> jobs = {Job("a", {"A", 1}, 100, 0), Job("b", {"B", 1}, 40, 0)};
  jobs[0].priority = policy::Priority::kGuaranteed;
  SimConfig config = Config(1, 8);
  config.share_control = true;
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, config, FirstFitPlacement(&rule), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->jobs[0].finish_s, 10.9, 1e-9);
  EXPECT_NEAR(r->jobs[1].finish_s, 17.46, 1e-9);

  // The share never goes below min_share: at 0.5, A keeps 1 - 0.5 * 0.5 of
  // its speed (7.5/s, done at 13.33 s) and B runs at 2/s, then alone.
  config.min_share = 0.5;
  r = Simulate(jobs, truth, config, FirstFitPlacement(&rule), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->jobs[0].finish_s, 100.0 / 7.5, 1e-9);
  EXPECT_NEAR(r->jobs[1].finish_s, 100.0 / 7.5 + (40 - 2 * 100.0 / 7.5) / 5, 1e-9);

  // Without share control, or with no guaranteed job, the measured pair rates.
  config.share_control = false;
  r = Simulate(jobs, truth, config, FirstFitPlacement(&rule), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 10);
  config.share_control = true;
  jobs[0].priority = policy::Priority::kOpportunistic;
  r = Simulate(jobs, truth, config, FirstFitPlacement(&rule), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 15);
}

TEST(Simulate, AThrottledJobMovesToAGpuThatEmptiesPayingTheMovesCost) {
  // a (guaranteed) and b share GPU 0, b held to 4 * 18/109 steps/s (the
  // test above); x runs alone on GPU 1, on the other node (A beside A was
  // never measured), and ends at t = 1. b then moves there, its 72/109 steps kept, and runs 2 s
  // longer at its solo pace: done at 1 + 2 + (40 - 72/109) / 5. a runs
  // alone from t = 1: 10/1.09 steps done, the rest at 10/s.
  const GavelThroughputs truth = Truth();
  const MeasuredPairRule rule(&truth);
  std::vector<SimJob> jobs = {Job("a", {"A", 1}, 100, 0), Job("x", {"A", 1}, 10, 0),
                              Job("b", {"B", 1}, 40, 0)};
  jobs[0].priority = policy::Priority::kGuaranteed;
  SimConfig config = Config(2, 1);
  config.share_control = true;
  config.migration_cost_s = 2;
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, config, FirstFitPlacement(&rule), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->migrations, 1);
  EXPECT_NEAR(r->jobs[2].finish_s, 3 + (40 - 72.0 / 109) / 5, 1e-9);
  EXPECT_NEAR(r->jobs[0].finish_s, 11 - 1 / 1.09, 1e-9);
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 1);

  // Not asked to, it stays, as the coordinator leaves it.
  config.migration_cost_s.reset();
  r = Simulate(jobs, truth, config, FirstFitPlacement(&rule), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->migrations, 0);
  EXPECT_NEAR(r->jobs[2].finish_s, 17.46, 1e-9);

  config.migration_cost_s = -1;
  EXPECT_FALSE(Simulate(jobs, truth, config, FirstFitPlacement(&rule), nullptr).ok());

  // On one node, never: Slurm would not start it there again for minutes.
  config = Config(2, 8);
  config.share_control = true;
  config.migration_cost_s = 2;
  r = Simulate(jobs, truth, config, FirstFitPlacement(&rule), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->migrations, 0);
}

TEST(Simulate, NoJobMovesToAGpuThatAWaitingJobWants) {
  // As above, with a 2-GPU gang waiting for both GPUs from the start (no
  // reservation hides them): GPU 1 empties at t = 1 and stays empty for
  // the gang, b where it is.
  const GavelThroughputs truth = Truth();
  const MeasuredPairRule rule(&truth);
  std::vector<SimJob> jobs = {Job("a", {"A", 1}, 100, 0), Job("x", {"A", 1}, 10, 0),
                              Job("b", {"B", 1}, 40, 0), Job("g", {"G", 2}, 20, 0)};
  jobs[0].priority = policy::Priority::kGuaranteed;
  SimConfig config = Config(2, 2);
  config.queue = QueueModel::kGreedy;
  config.share_control = true;
  config.migration_cost_s = 0;
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, config, FirstFitPlacement(&rule), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->migrations, 0);
  EXPECT_NEAR(r->jobs[2].finish_s, 17.46, 1e-9);
  EXPECT_NEAR(r->jobs[3].start_s, 17.46, 1e-9);
}

TEST(Simulate, UnmeasuredPairNeverShares) {
  const GavelThroughputs truth = Truth();
  const MeasuredPairRule rule(&truth);
  // B with B was never measured: the second B waits for the GPU.
  const std::vector<SimJob> jobs = {Job("b1", {"B", 1}, 50, 0), Job("b2", {"B", 1}, 50, 0)};
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, Config(1, 8), FirstFitPlacement(&rule), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 20);
}

TEST(Simulate, GangTakesGpusOfOneNode) {
  const GavelThroughputs truth = Truth();
  // 3 GPUs as nodes of 2 and 1: one gang fits (node000), the second waits.
  const std::vector<SimJob> jobs = {Job("g1", {"G", 2}, 200, 0), Job("g2", {"G", 2}, 200, 0)};
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, Config(3, 2), ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 20);
  EXPECT_DOUBLE_EQ(r->busy_gpu_seconds, 40);
}

TEST(Simulate, QueueIsServedInArrivalOrder) {
  const GavelThroughputs truth = Truth();
  const std::vector<SimJob> jobs = {Job("1", {"A", 1}, 100, 0), Job("2", {"B", 1}, 10, 1),
                                    Job("3", {"A", 1}, 10, 2)};
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, Config(1, 8), ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 10);  // 2 before 3 although 3 is shorter
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 12);
}

TEST(Simulate, OldestGangReservesANodeAndDoesNotStarve) {
  const GavelThroughputs truth = Truth();
  // Nodes of 2 GPUs. a, b fill node000 (a until 100, b until 50); c, d fill
  // node001 (c until 100, d until 150). The gang arrives at 1 and reserves
  // node000, so e (arriving at 60, when b's GPU is free) may not take that
  // GPU: the gang starts at 100 when a ends, and e then gets c's GPU.
  const std::vector<SimJob> jobs = {
      Job("a", {"A", 1}, 1000, 0), Job("b", {"A", 1}, 500, 0), Job("c", {"A", 1}, 1000, 0),
      Job("d", {"A", 1}, 1500, 0), Job("g", {"G", 2}, 200, 1), Job("e", {"A", 1}, 10000, 60)};
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, Config(4, 2), ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[4].start_s, 100);
  EXPECT_DOUBLE_EQ(r->jobs[5].start_s, 100);
}

TEST(Simulate, WithoutGangReservationsLaterJobsTakeWhatFreesUp) {
  const GavelThroughputs truth = Truth();
  // As above, but no node is reserved: e takes b's GPU at 60, so when a and c
  // end at 100 each node has one free GPU, and the gang waits for d (150).
  const std::vector<SimJob> jobs = {
      Job("a", {"A", 1}, 1000, 0), Job("b", {"A", 1}, 500, 0), Job("c", {"A", 1}, 1000, 0),
      Job("d", {"A", 1}, 1500, 0), Job("g", {"G", 2}, 200, 1), Job("e", {"A", 1}, 10000, 60)};
  SimConfig config = Config(4, 2);
  config.queue = QueueModel::kGreedy;
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, config, ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[5].start_s, 60);
  EXPECT_DOUBLE_EQ(r->jobs[4].start_s, 150);
}

SimConfig SlurmConfig(int gpus, int per_node, double backfill_interval_s) {
  SimConfig c = Config(gpus, per_node);
  c.queue = QueueModel::kSlurmNoTimeLimits;
  c.backfill_interval_s = backfill_interval_s;
  return c;
}

TEST(Simulate, SlurmHoldsJobsBehindABlockedOneUntilTheBackfillPass) {
  const GavelThroughputs truth = Truth();
  // Nodes of 2 GPUs; backfill every 10 s. a (until 100), b and c (until
  // 1000) leave one free GPU on node001. The gang (at 1) cannot start and
  // holds e (at 3) until the pass at 10, which reserves nothing for the gang
  // and starts e on the free GPU. Likewise f (at 101) waits for the pass at
  // 110 though a's GPU is free since 100. The gang starts at 1000.
  const std::vector<SimJob> jobs = {
      Job("a", {"A", 1}, 1000, 0), Job("b", {"A", 1}, 10000, 0), Job("c", {"A", 1}, 10000, 0),
      Job("g", {"G", 2}, 200, 1),  Job("e", {"A", 1}, 100, 3),   Job("f", {"A", 1}, 500, 101)};
  absl::StatusOr<SimResult> r =
      Simulate(jobs, truth, SlurmConfig(4, 2, 10), ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[4].start_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[5].start_s, 110);
  EXPECT_DOUBLE_EQ(r->jobs[3].start_s, 1000);
}

TEST(Simulate, UnderSlurmAGangTakesANodeThatEmptiesBetweenBackfillPasses) {
  const GavelThroughputs truth = Truth();
  // One node of 2 GPUs; s1 ends at 12, s2 at 15. The gang (at 1) is ahead
  // of x (at 2). Greedy: x takes s1's GPU at 12 and the gang waits for it
  // (22). Slurm: x is held behind the gang until a backfill pass (20), the
  // node is empty at 15 and the gang starts then; x follows it at 25.
  const std::vector<SimJob> jobs = {Job("s1", {"A", 1}, 120, 0), Job("s2", {"A", 1}, 150, 0),
                                    Job("g", {"G", 2}, 200, 1), Job("x", {"A", 1}, 100, 2)};
  absl::StatusOr<SimResult> slurm =
      Simulate(jobs, truth, SlurmConfig(2, 2, 10), ExclusivePlacement(), nullptr);
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  EXPECT_DOUBLE_EQ(slurm->jobs[2].start_s, 15);
  EXPECT_DOUBLE_EQ(slurm->jobs[3].start_s, 25);
  SimConfig greedy = Config(2, 2);
  greedy.queue = QueueModel::kGreedy;
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, greedy, ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[3].start_s, 12);
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 22);
}

// The coordinator's placement as the replay runs it for `oracle`: measured
// pairs only, two jobs a GPU at most, perfect predictions.
struct CoordinatorPolicy {
  static policy::InterferenceAwarePlacement::Options TwoAGpu() {
    policy::InterferenceAwarePlacement::Options options;
    options.max_jobs_per_gpu = 2;
    return options;
  }
  explicit CoordinatorPolicy(const GavelThroughputs& truth)
      : rule(&truth), oracle(truth), placement(&oracle, &rule, TwoAGpu()) {}
  const MeasuredPairRule rule;
  const OraclePredictor oracle;
  const policy::InterferenceAwarePlacement placement;
};

// Slurm chooses a one-GPU job's node and the coordinator only its GPU there
// (SimConfig::slurm_chooses_the_node, the live replay's --iashim). Two nodes
// of 2 GPUs, all held by the 4-GPU gang g until 10 s. x1, x2 (A) and y (B)
// arrive at 1: every dry run is queued, so none names a node, and when g
// ends Slurm starts all three on the lowest-numbered node with room (node
// 0: two jobs a GPU), where y must share with an A, while node 1 stands
// empty (found live: seven jobs on one node's four GPUs beside four empty
// ones). A coordinator choosing among all GPUs gives y node 1.
TEST(Simulate, UnderSlurmAJobTheCoordinatorQueuedStartsOnTheNodeSlurmChooses) {
  GavelThroughputs truth = Truth();
  truth.SetSolo({"G", 4}, 20);
  const CoordinatorPolicy coordinator(truth);
  const policy::PlacementPolicy& placement = coordinator.placement;
  const std::vector<SimJob> jobs = {Job("g", {"G", 4}, 200, 0), Job("x1", {"A", 1}, 100, 1),
                                    Job("x2", {"A", 1}, 100, 1), Job("y", {"B", 1}, 50, 1)};
  for (const bool slurm_chooses : {true, false}) {
    SimConfig config = SlurmConfig(4, 2, 5);
    config.slurm_chooses_the_node = slurm_chooses;
    absl::StatusOr<SimResult> r = Simulate(jobs, truth, config, placement, nullptr);
    ASSERT_TRUE(r.ok()) << r.status();
    for (size_t j = 1; j < jobs.size(); ++j) {
      EXPECT_DOUBLE_EQ(r->jobs[j].start_s, 10) << jobs[j].id;
    }
    EXPECT_EQ(r->jobs[3].shared, slurm_chooses) << "Slurm chooses the node: " << slurm_chooses;
  }
}

// The dry runs of a burst see where the earlier ones put their jobs (the
// coordinator's reservations), so they name different GPUs and Slurm spreads
// the jobs: four A jobs and a B at once on two nodes of 2 GPUs start at
// once, the four alone, the B beside one of them (A beside A was never
// measured: they may not share).
TEST(Simulate, UnderSlurmABurstsDryRunsSpreadItOverTheNodes) {
  const GavelThroughputs truth = Truth();
  const CoordinatorPolicy coordinator(truth);
  const policy::PlacementPolicy& placement = coordinator.placement;
  const std::vector<SimJob> jobs = {Job("a1", {"A", 1}, 100, 0), Job("a2", {"A", 1}, 100, 0),
                                    Job("a3", {"A", 1}, 100, 0), Job("a4", {"A", 1}, 100, 0),
                                    Job("b", {"B", 1}, 50, 0)};
  SimConfig config = SlurmConfig(4, 2, 5);
  config.slurm_chooses_the_node = true;
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, config, placement, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  int shared = 0;
  for (size_t j = 0; j < jobs.size(); ++j) {
    EXPECT_DOUBLE_EQ(r->jobs[j].start_s, 0) << jobs[j].id;
    shared += r->jobs[j].shared ? 1 : 0;
  }
  EXPECT_TRUE(r->jobs[4].shared);
  EXPECT_EQ(shared, 2);
}

// Slurm 22.05's shards (SimConfig::gangs_take_busy_gpus). One node of 2
// GPUs: a (A, 10 s alone) on GPU 0 from 0; the gang g (G, 2 GPUs, 10 s
// alone) at 1; x (A, 1 s alone) at 2. A and G's one-GPU model keep half
// their speed together.
class GangsTakeBusyGpus : public ::testing::Test {
 protected:
  GangsTakeBusyGpus() : truth_(Truth()), rule_(&truth_) {
    truth_.SetSolo({"G", 1}, 10);
    truth_.SetPair({"G", 1}, {"A", 1}, 5, 5);
  }
  // With the coordinator's choice of a gang's node (Simulate's
  // busy_gang_policy: the oracle's predictions, the daemon's limits).
  absl::StatusOr<SimResult> RunPredicted(const std::vector<SimJob>& jobs, const SimConfig& config) {
    const OraclePredictor oracle(truth_);
    policy::InterferenceAwarePlacement::Options options;
    options.max_jobs_per_gpu = 0;
    const policy::InterferenceAwarePlacement gangs(&oracle, nullptr, options);
    return Simulate(jobs, truth_, config, FirstFitPlacement(&rule_), nullptr, &gangs);
  }
  absl::StatusOr<SimResult> Run(bool take_busy, bool share_control, int cpus_per_node = 0) {
    SimConfig config = SlurmConfig(2, 2, 5);
    config.gangs_take_busy_gpus = take_busy;
    config.share_control = share_control;
    config.cpus_per_node = cpus_per_node;
    config.throttled_rank_wait_loss = wait_loss_;
    return Simulate(jobs_, truth_, config, FirstFitPlacement(&rule_), nullptr);
  }
  // Slurm's queue (a backfill pass every 5 s) on nodes of `per_node` GPUs,
  // gangs given busy GPUs, under share control.
  static SimConfig ControlledConfig(int gpus, int per_node) {
    SimConfig config = SlurmConfig(gpus, per_node, 5);
    config.gangs_take_busy_gpus = true;
    config.share_control = true;
    return config;
  }
  // Under share control: a and the gang with these priorities.
  absl::StatusOr<SimResult> Controlled(policy::Priority a, policy::Priority gang) {
    jobs_[0].priority = a;
    jobs_[1].priority = gang;
    return Run(true, true);
  }
  GavelThroughputs truth_;
  MeasuredPairRule rule_;
  std::vector<SimJob> jobs_ = {Job("a", {"A", 1}, 100, 0), Job("g", {"G", 2}, 200, 1),
                               Job("x", {"A", 1}, 10, 2)};
  // What a throttled gang's rank loses its neighbours waiting: off where a
  // test works out the shares alone (UnderShareControlAThrottledRank... on).
  double wait_loss_ = 0;
};

TEST_F(GangsTakeBusyGpus, OffTheGangWaitsForEmptyGpusAndABackfillPassRunsX) {
  absl::StatusOr<SimResult> r = Run(false, false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 5);  // the pass at 5, on GPU 1
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 20);
  EXPECT_FALSE(r->jobs[1].shared);
}

TEST_F(GangsTakeBusyGpus, BesideTheGangRunsAtOnceAndItsGpusTakeNoOneGpuJob) {
  // From 1 a keeps half its speed (90 steps at 5/s: ends at 19) and the gang
  // its slowest rank's half (20 steps/s * 0.5); 180 steps by 19, the last 20
  // alone in 1 s. x cannot have a shard of the gang's GPUs until 20.
  absl::StatusOr<SimResult> r = Run(true, false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 1);
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 19);
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 20);
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 20);
  EXPECT_TRUE(r->jobs[0].shared);
  EXPECT_TRUE(r->jobs[1].shared);
  EXPECT_EQ(r->pair_starts, 0);  // no measured pair of one-GPU jobs was made
}

// Under share control (the coordinator) a GPU with one guaranteed job is
// held as a pair is: the others cut to the share that keeps it at the
// loop's aim, 0.9 of its 10% target (its floor 1/1.09). A and G keep half
// their speed together, so that share is (1 - 1/1.09) / 0.5 = 18/109.
TEST_F(GangsTakeBusyGpus, UnderShareControlTheGuaranteedSideKeepsItsFloor) {
  // a guaranteed: from 1 it runs at 10/1.09 steps/s, its last 90 steps take
  // 9.81 s (ends 10.81); the gang's rank beside it at 0.5 * 18/109, the gang
  // at 180/109 steps/s: 16.2 steps by 10.81, its other 183.8 alone by 20.
  absl::StatusOr<SimResult> r =
      Controlled(policy::Priority::kGuaranteed, policy::Priority::kOpportunistic);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 1);
  EXPECT_NEAR(r->jobs[0].finish_s, 10.81, 1e-9);
  EXPECT_NEAR(r->jobs[1].finish_s, 20, 1e-9);
  // The gang guaranteed, a opportunistic: the gang at 1 - 0.5 * 18/109 =
  // 100/109 of 20 steps/s takes 10.9 s (ends 11.9); a at 5 * 18/109 steps/s
  // meanwhile (9 steps), its last 81 alone by 20.
  r = Controlled(policy::Priority::kOpportunistic, policy::Priority::kGuaranteed);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 1);
  EXPECT_NEAR(r->jobs[1].finish_s, 11.9, 1e-9);
  EXPECT_NEAR(r->jobs[0].finish_s, 20, 1e-9);
  // Both opportunistic: as plain Slurm runs them.
  r = Controlled(policy::Priority::kOpportunistic, policy::Priority::kOpportunistic);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 19);
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 20);
}

// A throttled opportunistic gang's rank also waits in its collectives,
// which costs the guaranteed job beside it a fixed loss w whatever the
// share (SimConfig::throttled_rank_wait_loss), so the share that holds a at
// the loop's aim is (1 - 1/1.09 - w) / 0.5. A guaranteed gang, unthrottled,
// costs an opportunistic job nothing of the sort.
TEST_F(GangsTakeBusyGpus, UnderShareControlAThrottledRankCostsItsNeighbourItsWaiting) {
  wait_loss_ = SimConfig{}.throttled_rank_wait_loss;
  absl::StatusOr<SimResult> r =
      Controlled(policy::Priority::kGuaranteed, policy::Priority::kOpportunistic);
  ASSERT_TRUE(r.ok()) << r.status();
  // a still at 10/1.09 (its last 90 steps by 10.81); the gang at 20 * 0.5 * s
  // until then, its other steps alone at 20/s.
  const double share = (1 - 1 / 1.09 - wait_loss_) / 0.5;
  EXPECT_NEAR(r->jobs[0].finish_s, 10.81, 1e-9);
  EXPECT_NEAR(r->jobs[1].finish_s, 10.81 + (200 - 9.81 * 10 * share) / 20, 1e-9);
  EXPECT_GT(r->jobs[1].finish_s, 20.1);  // against 20 without the waiting
  r = Controlled(policy::Priority::kOpportunistic, policy::Priority::kGuaranteed);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->jobs[1].finish_s, 11.9, 1e-9);
  EXPECT_NEAR(r->jobs[0].finish_s, 20, 1e-9);
}

// Plain Slurm keeping a guaranteed job at its speed with --gres=gpu:1: its
// GPU takes neither the gang (which waits for a to end at 10 and then runs
// alone: 200 steps at 20/s) nor x, a B that could share with it, which the
// backfill pass at 5 starts on GPU 1, empty: 10 steps at 5/s.
TEST_F(GangsTakeBusyGpus, AGuaranteedJobOnAWholeGpuSharesItWithNoOne) {
  jobs_[0].priority = policy::Priority::kGuaranteed;
  jobs_[2] = Job("x", {"B", 1}, 10, 2);
  SimConfig config = SlurmConfig(2, 2, 5);
  config.gangs_take_busy_gpus = true;
  config.guaranteed_take_whole_gpus = true;
  absl::StatusOr<SimResult> r =
      Simulate(jobs_, truth_, config, FirstFitPlacement(&rule_, true), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 10);
  EXPECT_FALSE(r->jobs[0].shared);
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 20);
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 5);
  EXPECT_DOUBLE_EQ(r->jobs[2].finish_s, 7);
  // A policy that shares its GPU anyway (x, first fit: GPU 0) is refused.
  r = Simulate(jobs_, truth_, config, FirstFitPlacement(&rule_), nullptr);
  EXPECT_FALSE(r.ok());
}

// Two targets cannot both be defended: a guaranteed gang beside a
// guaranteed job is not held for it, nor it for the gang; they share as
// without share control (a ends at 19, the gang at 20), where the gang
// once yielded, running as an opportunistic one at the least share until
// a ended (a survey of 128 simulated segments found such gangs 2.8-9.2
// times slower than alone).
TEST_F(GangsTakeBusyGpus, UnderShareControlAGuaranteedGangAndAGuaranteedJobHoldNeither) {
  absl::StatusOr<SimResult> r =
      Controlled(policy::Priority::kGuaranteed, policy::Priority::kGuaranteed);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 1);
  EXPECT_NEAR(r->jobs[0].finish_s, 19, 1e-9);
  EXPECT_NEAR(r->jobs[1].finish_s, 20, 1e-9);
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 20);  // GPU 1 is the gang's from 1
  EXPECT_TRUE(r->jobs[0].shared);
}

// With the guaranteed GPUs job_submit.lua asks for (SimConfig::
// guaranteed_gres), the node's two: a uses one, so the guaranteed gang waits
// in Slurm's queue until a ends (x, opportunistic, runs on GPU 1 at the
// backfill pass at 5), then runs alone at its solo speed; neither shares.
// An opportunistic gang asks for them too (policy::AsksGuaranteedGres).
TEST_F(GangsTakeBusyGpus, WithGuaranteedGresAGangWaitsForTheNodesGuaranteedJob) {
  jobs_[0].priority = policy::Priority::kGuaranteed;
  jobs_[1].priority = policy::Priority::kGuaranteed;
  SimConfig config = ControlledConfig(2, 2);
  config.guaranteed_gres = true;
  absl::StatusOr<SimResult> r = Simulate(jobs_, truth_, config, FirstFitPlacement(&rule_), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 10);  // a alone, at its speed
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 20);
  EXPECT_FALSE(r->jobs[0].shared);
  EXPECT_FALSE(r->jobs[1].shared);
  // An opportunistic gang waits as well: it would run at the pace of its
  // rank held beside a.
  jobs_[1].priority = policy::Priority::kOpportunistic;
  r = Simulate(jobs_, truth_, config, FirstFitPlacement(&rule_), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 10);
  EXPECT_FALSE(r->jobs[0].shared);
  // Beside an opportunistic one-GPU job (it asks for none), the gang joins
  // it at once, as without.
  jobs_[0].priority = policy::Priority::kOpportunistic;
  r = Simulate(jobs_, truth_, config, FirstFitPlacement(&rule_), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 1);
  EXPECT_TRUE(r->jobs[0].shared);
  // Only Slurm's queue has it.
  config.queue = QueueModel::kGreedy;
  config.gangs_take_busy_gpus = false;
  EXPECT_FALSE(Simulate(jobs_, truth_, config, FirstFitPlacement(&rule_), nullptr).ok());
}

// Beside both, an opportunistic job is held for both: a (guaranteed) and b
// (opportunistic) share GPU 0, the guaranteed gang g (at 1) takes GPUs 0
// and 1. Each guaranteed job there loses (1 - s) h_other + s h_triple at
// b's pace s (the other guaranteed one at full pace): G beside A alone 0.5,
// beside A and B 0.75, and A beside G 0.5, so no pace holds either at its
// floor and b runs at the least share, 0.05, while g is on GPU 0.
TEST_F(GangsTakeBusyGpus, UnderShareControlTwoGuaranteedJobsHoldTheThirdForBoth) {
  for (const auto& [a, b, c] :
       std::vector<std::array<JobType, 3>>{{JobType{"A", 1}, JobType{"G", 1}, JobType{"B", 1}},
                                           {JobType{"G", 1}, JobType{"A", 1}, JobType{"B", 1}},
                                           {JobType{"B", 1}, JobType{"A", 1}, JobType{"G", 1}}}) {
    const double solo = *truth_.Solo(a);
    truth_.SetTriple(a, b, c, 0.25 * solo);
    truth_.SetTriple(a, c, b, 0.25 * solo);
  }
  jobs_ = {Job("a", {"A", 1}, 1000, 0), Job("b", {"B", 1}, 1000, 0), Job("g", {"G", 2}, 200, 1)};
  jobs_[0].priority = jobs_[2].priority = policy::Priority::kGuaranteed;
  absl::StatusOr<SimResult> r = Run(true, true);
  ASSERT_TRUE(r.ok()) << r.status();
  // g's rank on GPU 0 keeps 1 - (0.95 * 0.5 + 0.05 * 0.75) = 0.4875 (on GPU
  // 1, alone, all): 200 steps at 20 * 0.4875 by 1 + 200 / 9.75. With b not
  // held it would keep 0.25 (by 41); held for g alone, the same here.
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 1);
  EXPECT_NEAR(r->jobs[2].finish_s, 1 + 200 / 9.75, 1e-6);
  EXPECT_TRUE(r->jobs[1].shared);
}

// What the gang lost beside a guaranteed job is its run's too: once that
// job ends it is held lower until its run is back at the loop's aim
// (policy::RepaidTarget), as the daemon's loop repays. a (guaranteed, 2 s
// alone) on GPU 0 and o (opportunistic, A never shares with A) on GPU 1
// from 0; the gang g at 0.5 beside a, neither held for the other: its rank
// and a at half their speed, 10 steps/s and 5 (a's last 15 steps by 3.5).
// Then beside o, g has run 3 s for 30 steps' worth of 1.5 s alone, far
// over target: the loop's target drops to its floor, half the target, for
// the rest of g's run, and the loop holds it at 0.9 of that.
TEST_F(GangsTakeBusyGpus, UnderShareControlAGangSlowedBesideAGuaranteedJobIsHeldLowerUntilRepaid) {
  std::vector<SimJob> jobs = {Job("a", {"A", 1}, 20, 0), Job("o", {"A", 1}, 10000, 0),
                              Job("g", {"G", 2}, 200, 0.5)};
  jobs[0].priority = jobs[2].priority = policy::Priority::kGuaranteed;
  SimConfig config = ControlledConfig(2, 2);
  config.throttled_rank_wait_loss = 0;
  absl::StatusOr<SimResult> r = Simulate(jobs, truth_, config, FirstFitPlacement(&rule_), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->jobs[0].finish_s, 3.5, 1e-9);
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 0.5);
  const double repaying = policy::ProtectiveShare(0.5, 0.9 * 0.05);  // o's share
  const double unrepaid = policy::ProtectiveShare(0.5, 0.9 * 0.10);  // 18/109
  const double left = 200 - 30;
  EXPECT_NEAR(r->jobs[2].finish_s, 3.5 + left / (20 * (1 - 0.5 * repaying)), 1e-6);
  EXPECT_LT(r->jobs[2].finish_s, 3.5 + left / (20 * (1 - 0.5 * unrepaid)) - 0.3);
}

// Simulate's busy_gang_policy (the coordinator's --join-busy-gpus): the
// gang goes where sharing is predicted to gain most, not where Slurm's
// blind choice would put it. node000 holds two guaranteed A jobs, node001
// two opportunistic C jobs; G's rank keeps 0.8 beside C.
TEST_F(GangsTakeBusyGpus, ByPredictionTheGangAvoidsTheNodeWhereItWouldBeThrottled) {
  truth_.SetSolo({"C", 1}, 10);
  truth_.SetPair({"G", 1}, {"C", 1}, 8, 8);
  std::vector<SimJob> jobs = {Job("a1", {"A", 1}, 1000, 0), Job("a2", {"A", 1}, 1000, 0),
                              Job("c1", {"C", 1}, 1000, 0), Job("c2", {"C", 1}, 1000, 0),
                              Job("g", {"G", 2}, 200, 1)};
  jobs[0].priority = jobs[1].priority = policy::Priority::kGuaranteed;
  SimConfig config = ControlledConfig(4, 2);
  absl::StatusOr<SimResult> r = RunPredicted(jobs, config);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[4].start_s, 1);
  EXPECT_DOUBLE_EQ(r->jobs[4].finish_s, 13.5);  // 200 steps at 20 * 0.8 steps/s
  // Blind, it takes node000 and is cut to hold the A jobs at their floor.
  r = Simulate(jobs, truth_, config, FirstFitPlacement(&rule_), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->jobs[4].finish_s, 50);
}

// The same for a job wider than a node: the coordinator's dry run names the
// whole nodes (job_submit.lua binds the job to them), not Slurm's lowest
// free ones. node000 holds two guaranteed A jobs, node001 and node002 one
// opportunistic C job each; the 4-GPU gang of 2-GPU nodes keeps 0.8 beside C.
TEST_F(GangsTakeBusyGpus, ByPredictionAJobOnSeveralNodesAvoidsTheNodeWhereItWouldBeThrottled) {
  truth_.SetSolo({"C", 1}, 10);
  truth_.SetSolo({"G", 4}, 40);
  truth_.SetPair({"G", 1}, {"C", 1}, 8, 8);
  std::vector<SimJob> jobs = {Job("a1", {"A", 1}, 1000, 0), Job("a2", {"A", 1}, 1000, 0),
                              Job("c1", {"C", 1}, 1000, 0), Job("c2", {"C", 1}, 1000, 0),
                              Job("g", {"G", 4}, 400, 1)};
  jobs[0].priority = jobs[1].priority = policy::Priority::kGuaranteed;
  SimConfig config = ControlledConfig(6, 2);
  absl::StatusOr<SimResult> r = RunPredicted(jobs, config);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[4].start_s, 1);
  EXPECT_DOUBLE_EQ(r->jobs[4].finish_s, 13.5);  // 400 steps at 40 * 0.8 steps/s
  // Slurm's own choice, the lowest free nodes, includes node000: cut there.
  r = Simulate(jobs, truth_, config, FirstFitPlacement(&rule_), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->jobs[4].finish_s, 50);
}

// Submitted while another gang holds the nodes it would choose, a job wider
// than a node is named the nodes it would take once that gang ends (its
// --prefer), and Slurm starts it there then, not on the lowest free ones.
// node000 holds a guaranteed A job for 100 s; h (4 GPUs of 2-GPU nodes) takes
// node001 and node002 at 0.5 for 10 s; w, submitted at 1, waits for them.
TEST_F(GangsTakeBusyGpus, AWaitingJobOnSeveralNodesStartsWhereItWasToldToPreferOnceFree) {
  truth_.SetSolo({"G", 4}, 40);
  std::vector<SimJob> jobs = {Job("a", {"A", 1}, 1000, 0), Job("h", {"G", 4}, 400, 0.5),
                              Job("w", {"G", 4}, 400, 1)};
  jobs[0].priority = policy::Priority::kGuaranteed;
  SimConfig config = ControlledConfig(6, 2);
  absl::StatusOr<SimResult> r = RunPredicted(jobs, config);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 10.5);
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 10.5);
  EXPECT_DOUBLE_EQ(r->jobs[2].finish_s, 20.5);  // alone on node001 and node002
  // Slurm's own choice at 10.5, the lowest free nodes, is node000 and node001:
  // beside the guaranteed job, held to its least share.
  r = Simulate(jobs, truth_, config, FirstFitPlacement(&rule_), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->jobs[2].finish_s, 30);
}

// SimConfig::job_memory_share: under share control a gang starts beside
// one-GPU jobs only in the memory they leave. a and b (FirstFit pairs them)
// fill GPU 0 with half each; the gang (at 1) has nowhere with memory, so
// Slurm's blind choice gives it GPUs 0 and 1 and it waits there until b
// ends (40 steps at 4/s: 10), then runs beside a (both at half: a's last
// 50 steps by 20, the gang's 100 by then, its last 100 alone by 25).
TEST_F(GangsTakeBusyGpus, UnderShareControlAGangWaitsForMemoryOnItsGpus) {
  const std::vector<SimJob> jobs = {Job("a", {"A", 1}, 100, 0), Job("b", {"B", 1}, 40, 0),
                                    Job("g", {"G", 2}, 200, 1)};
  SimConfig config = ControlledConfig(2, 2);
  config.job_memory_share = 0.5;
  absl::StatusOr<SimResult> r = RunPredicted(jobs, config);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 20);
  EXPECT_DOUBLE_EQ(r->jobs[2].finish_s, 25);
  // Memory not modelled: it joins both at once.
  config.job_memory_share = 0;
  r = RunPredicted(jobs, config);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 1);
}

// Memory by job type (job_memory_share_by_type): a and b holding 0.6 and
// 0.3 of GPU 0 leave the gang some, so it starts at once; 0.6 and 0.4
// leave none, and it waits there for b's end as in the test above.
TEST_F(GangsTakeBusyGpus, UnderShareControlEachJobTypeHoldsItsOwnMemory) {
  const std::vector<SimJob> jobs = {Job("a", {"A", 1}, 100, 0), Job("b", {"B", 1}, 40, 0),
                                    Job("g", {"G", 2}, 200, 1)};
  SimConfig config = ControlledConfig(2, 2);
  config.job_memory_share_by_type = {{"A", 0.6}, {"B", 0.3}};
  absl::StatusOr<SimResult> r = RunPredicted(jobs, config);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 1);
  config.job_memory_share_by_type["B"] = 0.4;
  r = RunPredicted(jobs, config);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 10);
}

TEST_F(GangsTakeBusyGpus, OnlyWhileTheNodeHasACpuForEachOfItsTasks) {
  // a holds one CPU: with 3 the gang's two tasks fit beside it, with 2 the
  // gang waits for a's end as it would for empty GPUs.
  absl::StatusOr<SimResult> r = Run(true, false, 3);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 1);
  r = Run(true, false, 2);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 5);  // x backfilled on GPU 1 meanwhile
}

TEST_F(GangsTakeBusyGpus, BesideTwoJobsARankKeepsTheTriplesFractionElseAThird) {
  // GPU 0 holds a and b (A, B: FirstFit pairs them), the gang arrives at 1
  // and runs beside both; GPU 1 is empty. With no triple for G's one-GPU
  // model beside A and B the rank keeps a third: 20 steps/s * 1/3 until a
  // or b ends. Measured at 0.8 of its speed, it keeps that.
  const std::vector<SimJob> jobs = {Job("a", {"A", 1}, 1000, 0), Job("b", {"B", 1}, 1000, 0),
                                    Job("g", {"G", 2}, 20, 1)};
  SimConfig config = SlurmConfig(2, 2, 5);
  config.gangs_take_busy_gpus = true;
  absl::StatusOr<SimResult> r = Simulate(jobs, truth_, config, FirstFitPlacement(&rule_), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 1);
  EXPECT_DOUBLE_EQ(r->jobs[2].finish_s, 4);  // 20 steps at 20/3 steps/s
  truth_.SetTriple({"G", 1}, {"A", 1}, {"B", 1}, 8);
  r = Simulate(jobs, truth_, config, FirstFitPlacement(&rule_), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[2].finish_s, 2.25);  // 20 steps at 16 steps/s
}

// Under share control, two co-runners beside a guaranteed job are cut to
// the pace at which their harms, adding while they rarely run together,
// hold it at the loop's aim (throttled_loss.h), not to the triple's harm
// scaled by the pace. a (guaranteed) and b on GPU 0, the gang at 1 beside
// both: a keeps 0.5 beside b or G alone and 0.4 beside both, so the pace s
// solves s - 0.4 s^2 = 1 - 1/1.09 (the triple scaled would allow 0.138).
TEST_F(GangsTakeBusyGpus, UnderShareControlTwoCoRunnersHarmAsTheirPairsAddAtLowPace) {
  truth_.SetTriple({"A", 1}, {"B", 1}, {"G", 1}, 4);
  std::vector<SimJob> jobs = {Job("a", {"A", 1}, 100, 0), Job("b", {"B", 1}, 1000, 0),
                              Job("g", {"G", 2}, 20, 1)};
  jobs[0].priority = policy::Priority::kGuaranteed;
  SimConfig config = ControlledConfig(2, 2);
  config.throttled_rank_wait_loss = 0;
  absl::StatusOr<SimResult> r = Simulate(jobs, truth_, config, FirstFitPlacement(&rule_), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_DOUBLE_EQ(r->jobs[2].start_s, 1);
  // a is held at its aim throughout: 100 steps at 10/1.09.
  EXPECT_NEAR(r->jobs[0].finish_s, 10.9, 1e-9);
  const double loss = 1 - 1 / 1.09;
  const double pace = (1 - std::sqrt(1 - 4 * 0.4 * loss)) / (2 * 0.4);
  EXPECT_LT(pace, 0.9 * loss / 0.6);
  // The gang's rank keeps a third beside two jobs (no triple for G), at that
  // pace, until a ends; then it runs alone (GPU 0 holds b, at full pace).
  const double by_a_end = 9.9 * 20.0 / 3 * pace;
  EXPECT_NEAR(r->jobs[2].finish_s, 10.9 + (20 - by_a_end) / (20.0 / 2), 1e-6);
}

TEST_F(GangsTakeBusyGpus, NeedsTheSlurmQueueAndIgnoresExclusiveOneGpuJobs) {
  SimConfig config = SlurmConfig(2, 2, 5);
  config.gangs_take_busy_gpus = true;
  config.queue = QueueModel::kGreedy;
  EXPECT_FALSE(Simulate(jobs_, truth_, config, FirstFitPlacement(&rule_), nullptr).ok());
  // Exclusive one-GPU jobs take whole GPUs (gpu, not shards): the gang waits.
  config.queue = QueueModel::kSlurmNoTimeLimits;
  config.policy_may_share = false;
  absl::StatusOr<SimResult> r = Simulate(jobs_, truth_, config, ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 10);
}

// Gangs wider than a node (k > gpus_per_node, k a multiple of it): Slurm
// runs them on k / g whole nodes, the lowest-numbered free ones, under every
// policy. Nodes of 4 GPUs; W on 8 GPUs does 40 steps/s alone (10 s for
// 400 steps); its one-GPU model keeps half its speed beside A (A half too)
// and 0.8 beside B (B 0.8 too).
class WideGang : public ::testing::Test {
 protected:
  WideGang() : truth_(Truth()), rule_(&truth_) {
    truth_.SetSolo({"W", 8}, 40);
    truth_.SetSolo({"W", 1}, 10);
    truth_.SetPair({"W", 1}, {"A", 1}, 5, 5);
    truth_.SetPair({"W", 1}, {"B", 1}, 8, 4);
  }
  // Slurm 22.05's shards, with one-GPU jobs on empty GPUs (ExclusivePlacement
  // in a cluster that shares: gangs may join them).
  absl::StatusOr<SimResult> Shards(const std::vector<SimJob>& jobs, SimConfig config) {
    config.gangs_take_busy_gpus = true;
    return Simulate(jobs, truth_, config, ExclusivePlacement(), nullptr);
  }
  GavelThroughputs truth_;
  MeasuredPairRule rule_;
};

// Records the GPUs the job "w" holds, as one-GPU jobs after it see them.
class SeesW : public policy::PlacementPolicy {
 public:
  policy::PlacementDecision Place(const policy::PlacementRequest& request,
                                  const policy::ClusterState& state) const override {
    for (const auto& [id, placed] : state.jobs) {
      for (const policy::PlacedJob& p : placed) {
        if (p.job == "w" && std::find(w.begin(), w.end(), id) == w.end()) w.push_back(id);
      }
    }
    return ExclusivePlacement().Place(request, state);
  }
  mutable std::vector<policy::GpuId> w;
};

TEST_F(WideGang, AloneItRunsOnTwoWholeNodesAtItsSoloSpeedUnderEveryPolicyAndQueue) {
  const std::vector<SimJob> jobs = {Job("w", {"W", 8}, 400, 3)};
  const OraclePredictor oracle(truth_);
  const policy::InterferenceAwarePlacement iashim(&oracle, &rule_, {});
  const FirstFitPlacement firstfit(&rule_);
  const ExclusivePlacement exclusive;
  for (const QueueModel queue :
       {QueueModel::kReserveForGangs, QueueModel::kGreedy, QueueModel::kSlurmNoTimeLimits}) {
    for (const policy::PlacementPolicy* policy :
         std::initializer_list<const policy::PlacementPolicy*>{&exclusive, &firstfit, &iashim}) {
      SimConfig config = Config(10, 4);  // node002 has 2 GPUs: never a wide gang's
      config.queue = queue;
      absl::StatusOr<SimResult> r = Simulate(jobs, truth_, config, *policy, nullptr);
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_DOUBLE_EQ(r->jobs[0].start_s, 3);
      EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 13);
      EXPECT_DOUBLE_EQ(r->jobs[0].solo_s, 10);
      EXPECT_DOUBLE_EQ(r->busy_gpu_seconds, 80);
      EXPECT_EQ(r->place_calls, 0);  // Slurm places it; no policy is asked
    }
  }
}

TEST_F(WideGang, TakesTheLowestNumberedFreeWholeNodes) {
  // 3 nodes; a holds node000 GPU 0, so w gets node001 and node002, all of
  // their GPUs; b (at 5) sees them held and takes node000's next GPU.
  const std::vector<SimJob> jobs = {Job("a", {"A", 1}, 1000, 0), Job("w", {"W", 8}, 400, 1),
                                    Job("b", {"A", 1}, 10, 5)};
  const SeesW policy;
  absl::StatusOr<SimResult> r = Simulate(jobs, truth_, Config(12, 4), policy, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 1);
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 5);
  std::vector<policy::GpuId> want;
  for (const char* host : {"node001", "node002"}) {
    for (int i = 0; i < 4; ++i) want.push_back({host, i});
  }
  std::vector<policy::GpuId> seen = policy.w;
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, want);
}

TEST_F(WideGang, UnderSlurmItWaitsForTwoFreeNodesAndJobsBehindItWaitForABackfillPass) {
  // a holds node000 until 100. w (at 1) cannot start and holds b (at 2)
  // until the pass at 10, which starts b on node000 beside a's GPU (until
  // 20). w starts when a ends (100), on both nodes; c (at 101) waits for it
  // to end (110), every GPU being w's.
  const std::vector<SimJob> jobs = {Job("a", {"A", 1}, 1000, 0), Job("w", {"W", 8}, 400, 1),
                                    Job("b", {"A", 1}, 100, 2), Job("c", {"A", 1}, 50, 101)};
  absl::StatusOr<SimResult> r =
      Simulate(jobs, truth_, SlurmConfig(8, 4, 10), ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 100);
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 110);
  EXPECT_FALSE(r->jobs[1].shared);
  EXPECT_DOUBLE_EQ(r->jobs[3].start_s, 110);
}

TEST_F(WideGang, AsTheOldestWaitingGangItReservesTheEmptiestNodesAndDoesNotStarve) {
  // 3 nodes. a..d fill node000 (until 100, 200, 50, 150), e holds node001
  // GPU 0 until 30. w (at 1) reserves node002 and node001 (4 and 3 empty),
  // so f (at 2) may not take node001's free GPUs: w starts at 30, when e
  // ends, and f after it (40). Greedy: f takes a GPU of node001 at 2 (until
  // 102), and w waits for it.
  const std::vector<SimJob> jobs = {Job("a", {"A", 1}, 1000, 0), Job("b", {"A", 1}, 2000, 0),
                                    Job("c", {"A", 1}, 500, 0),  Job("d", {"A", 1}, 1500, 0),
                                    Job("e", {"A", 1}, 300, 0),  Job("w", {"W", 8}, 400, 1),
                                    Job("f", {"A", 1}, 1000, 2)};
  absl::StatusOr<SimResult> r =
      Simulate(jobs, truth_, Config(12, 4), ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[5].start_s, 30);
  EXPECT_DOUBLE_EQ(r->jobs[5].finish_s, 40);
  EXPECT_DOUBLE_EQ(r->jobs[6].start_s, 40);
  SimConfig greedy = Config(12, 4);
  greedy.queue = QueueModel::kGreedy;
  r = Simulate(jobs, truth_, greedy, ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[6].start_s, 2);
  EXPECT_DOUBLE_EQ(r->jobs[5].start_s, 102);
}

TEST_F(WideGang, WithShardsItTakesBusyNodesAndRunsAtItsSlowestRanksPace) {
  // a1..a4 (A) fill node000, b (B) holds node001 GPU 0. w (at 1) joins them
  // on both nodes: its ranks keep 0.5 beside A, 0.8 beside B, 1 alone, so
  // it runs at 0.5 of 40 steps/s: 400 steps by 21. The A jobs keep half
  // their speed meanwhile: 10 + 100 steps by 21, the other 890 alone by 110.
  const std::vector<SimJob> jobs = {Job("a1", {"A", 1}, 1000, 0), Job("a2", {"A", 1}, 1000, 0),
                                    Job("a3", {"A", 1}, 1000, 0), Job("a4", {"A", 1}, 1000, 0),
                                    Job("b", {"B", 1}, 1000, 0),  Job("w", {"W", 8}, 400, 1)};
  absl::StatusOr<SimResult> r = Shards(jobs, SlurmConfig(8, 4, 5));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[5].start_s, 1);
  EXPECT_DOUBLE_EQ(r->jobs[5].finish_s, 21);
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 110);
  EXPECT_TRUE(r->jobs[5].shared);
  EXPECT_TRUE(r->jobs[4].shared);
  // Without shards it waits for both nodes to empty: b ends at 200.
  r = Simulate(jobs, truth_, SlurmConfig(8, 4, 5), ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[5].start_s, 200);
  EXPECT_DOUBLE_EQ(r->jobs[5].finish_s, 210);
}

TEST_F(WideGang, WithShardsItTakesFourCpusOnEachOfItsNodes) {
  // 5 CPUs a node. node000's four A jobs leave 1 CPU, too few for w's four
  // tasks there, so w (at 1) waits for them (100); node001 (b's 1 CPU) has
  // room. From 100 w's slowest rank is beside b (0.8): 400 steps at 32/s,
  // by 112.5. Then node001 holds b and no task of w: w2 (at 113) starts at
  // once on both nodes, again at b's pace (by 125.5).
  const std::vector<SimJob> jobs = {Job("a1", {"A", 1}, 1000, 0), Job("a2", {"A", 1}, 1000, 0),
                                    Job("a3", {"A", 1}, 1000, 0), Job("a4", {"A", 1}, 1000, 0),
                                    Job("b", {"B", 1}, 10000, 0), Job("w", {"W", 8}, 400, 1),
                                    Job("w2", {"W", 8}, 400, 113)};
  SimConfig config = SlurmConfig(8, 4, 5);
  config.cpus_per_node = 5;
  absl::StatusOr<SimResult> r = Shards(jobs, config);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[5].start_s, 100);
  EXPECT_DOUBLE_EQ(r->jobs[5].finish_s, 112.5);
  EXPECT_DOUBLE_EQ(r->jobs[6].start_s, 113);
  EXPECT_DOUBLE_EQ(r->jobs[6].finish_s, 125.5);
  // 4 CPUs a node: b's CPU leaves node001 too few until b ends (2000).
  config.cpus_per_node = 4;
  r = Shards(jobs, config);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[5].start_s, 2000);
}

// Under share control a GPU of the wide gang beside a guaranteed one-GPU job
// is held as a single-node gang's is (GangsTakeBusyGpus above): the share
// that keeps A at the loop's aim beside W's rank (0.5) is 18/109.
TEST_F(WideGang, UnderShareControlItsRankBesideAGuaranteedJobIsThrottledOrNeitherIsHeld) {
  std::vector<SimJob> jobs = {Job("a", {"A", 1}, 100, 0), Job("w", {"W", 8}, 400, 1)};
  SimConfig config = SlurmConfig(8, 4, 5);
  config.share_control = true;
  config.throttled_rank_wait_loss = 0;  // the shares alone (a rank's waiting: GangsTakeBusyGpus)
  const auto run = [&](policy::Priority a, policy::Priority w) {
    jobs[0].priority = a;
    jobs[1].priority = w;
    return Shards(jobs, config);
  };
  // a guaranteed: from 1 at 10/1.09 steps/s, its last 90 steps by 10.81. w,
  // opportunistic, at its least share: its rank beside a at 0.5 * 18/109, so
  // 360/109 steps/s: 32.4 steps by 10.81, its other 367.6 alone by 20.
  absl::StatusOr<SimResult> r =
      run(policy::Priority::kGuaranteed, policy::Priority::kOpportunistic);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 1);
  EXPECT_NEAR(r->jobs[0].finish_s, 10.81, 1e-9);
  EXPECT_NEAR(r->jobs[1].finish_s, 20, 1e-9);
  // Both guaranteed: neither is held for the other. From 1 a at 5 steps/s
  // (its last 90 by 19) and w at 20 (360 steps by 19, its last 40 alone).
  r = run(policy::Priority::kGuaranteed, policy::Priority::kGuaranteed);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->jobs[0].finish_s, 19, 1e-9);
  EXPECT_NEAR(r->jobs[1].finish_s, 20, 1e-9);
  // w guaranteed, a not: w at 1 - 0.5 * 18/109 = 100/109 of its speed, 400
  // steps by 11.9; a at 5 * 18/109 meanwhile (9 steps), its last 81 by 20.
  r = run(policy::Priority::kOpportunistic, policy::Priority::kGuaranteed);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->jobs[1].finish_s, 11.9, 1e-9);
  EXPECT_NEAR(r->jobs[0].finish_s, 20, 1e-9);
  // a holding all of its GPU's memory: w waits there, holding both nodes,
  // until a ends (10), then runs alone (by 20).
  config.job_memory_share = 1.0;
  r = run(policy::Priority::kOpportunistic, policy::Priority::kOpportunistic);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[1].finish_s, 20);
}

TEST_F(WideGang, OnlyWholeNodesOfTheClusterAreAccepted) {
  truth_.SetSolo({"W", 6}, 30);
  truth_.SetSolo({"W", 12}, 60);
  const std::vector<SimJob> six = {Job("w", {"W", 6}, 400, 0)};
  absl::StatusOr<SimResult> r = Simulate(six, truth_, Config(8, 4), ExclusivePlacement(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not whole nodes"), std::string::npos) << r.status();
  // 12 GPUs, 3 whole nodes of 4: not on 11 (node002 has 3).
  const std::vector<SimJob> twelve = {Job("w", {"W", 12}, 600, 0)};
  r = Simulate(twelve, truth_, Config(11, 4), ExclusivePlacement(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the cluster has 2"), std::string::npos) << r.status();
  r = Simulate(twelve, truth_, Config(12, 4), ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[0].finish_s, 10);
}

TEST(Simulate, SlurmNeedsAPositiveBackfillInterval) {
  const GavelThroughputs truth = Truth();
  const std::vector<SimJob> jobs = {Job("a", {"A", 1}, 100, 0)};
  for (double interval : {0.0, -1.0, std::numeric_limits<double>::infinity()}) {
    absl::StatusOr<SimResult> r =
        Simulate(jobs, truth, SlurmConfig(1, 1, interval), ExclusivePlacement(), nullptr);
    EXPECT_FALSE(r.ok()) << interval;
  }
}

TEST(Simulate, BackfillsPastAWaitingGang) {
  const GavelThroughputs truth = Truth();
  // Nodes of 2 GPUs. a, c on node000 and d, e on node001; c and e end at 10,
  // leaving one free GPU on each node. The gang (arriving at 11) reserves
  // node000; b (arriving at 12) starts at once on node001's free GPU, past
  // the waiting gang, which starts at 100 when a ends.
  const std::vector<SimJob> jobs = {
      Job("a", {"A", 1}, 1000, 0), Job("c", {"A", 1}, 100, 0), Job("d", {"A", 1}, 1000, 0),
      Job("e", {"A", 1}, 100, 0),  Job("g", {"G", 2}, 200, 11), Job("b", {"A", 1}, 100, 12)};
  absl::StatusOr<SimResult> r = Simulate(jobs, truth, Config(4, 2), ExclusivePlacement(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[5].start_s, 12);
  EXPECT_DOUBLE_EQ(r->jobs[4].start_s, 100);
}

// Breaks the rules on purpose.
class SharesEverything : public policy::PlacementPolicy {
 public:
  policy::PlacementDecision Place(const policy::PlacementRequest& request,
                                  const policy::ClusterState& state) const override {
    std::vector<policy::GpuId> gpus;
    for (int i = 0; i < request.gpu_count; ++i) gpus.push_back(state.cluster.gpus[i].id);
    return policy::PlacementDecision::PlacedGang(gpus, "anywhere");
  }
};

class Straddles : public policy::PlacementPolicy {
 public:
  policy::PlacementDecision Place(const policy::PlacementRequest&,
                                  const policy::ClusterState& state) const override {
    return policy::PlacementDecision::PlacedGang(
        {state.cluster.gpus[1].id, state.cluster.gpus[2].id}, "across");
  }
};

class NeverPlaces : public policy::PlacementPolicy {
 public:
  policy::PlacementDecision Place(const policy::PlacementRequest&,
                                  const policy::ClusterState&) const override {
    return policy::PlacementDecision::Queued("no");
  }
};

TEST(Simulate, RuleBreakingDecisionsAreErrors) {
  const GavelThroughputs truth = Truth();
  const std::vector<SimJob> unmeasured = {Job("b1", {"B", 1}, 50, 0), Job("b2", {"B", 1}, 50, 0)};
  absl::StatusOr<SimResult> r = Simulate(unmeasured, truth, Config(2, 2), SharesEverything(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("never measured together"), std::string::npos)
      << r.status();
  // The gang takes GPUs 0 and 1; a could go to GPU 2 but is put on GPU 0.
  const std::vector<SimJob> gang = {Job("g", {"G", 2}, 50, 0), Job("a", {"A", 1}, 50, 0)};
  r = Simulate(gang, truth, Config(3, 4), SharesEverything(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("gangs never share"), std::string::npos) << r.status();
  // A gang that fits a node, put across two (GPUs 1 and 2 of nodes of 2).
  const std::vector<SimJob> across = {Job("g", {"G", 2}, 50, 0)};
  r = Simulate(across, truth, Config(4, 2), Straddles(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("a gang across nodes"), std::string::npos) << r.status();
  const std::vector<SimJob> one = {Job("a", {"A", 1}, 50, 0)};
  r = Simulate(one, truth, Config(2, 2), NeverPlaces(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("waiting on an idle cluster"), std::string::npos);
}

TEST(Simulate, RejectsBadInput) {
  const GavelThroughputs truth = Truth();
  const std::vector<SimJob> unknown = {Job("x", {"X", 1}, 50, 0)};
  EXPECT_FALSE(Simulate(unknown, truth, Config(1, 1), ExclusivePlacement(), nullptr).ok());
  const std::vector<SimJob> unordered = {Job("a", {"A", 1}, 50, 5), Job("b", {"A", 1}, 50, 1)};
  EXPECT_FALSE(Simulate(unordered, truth, Config(1, 1), ExclusivePlacement(), nullptr).ok());
  // Wider than the cluster (nodes of 2 GPUs, or two nodes of 1: see WideGang).
  const std::vector<SimJob> too_big = {Job("g", {"G", 2}, 50, 0)};
  EXPECT_FALSE(Simulate(too_big, truth, Config(1, 2), ExclusivePlacement(), nullptr).ok());
  EXPECT_FALSE(Simulate(too_big, truth, Config(1, 1), ExclusivePlacement(), nullptr).ok());
  EXPECT_TRUE(Simulate(too_big, truth, Config(2, 1), ExclusivePlacement(), nullptr).ok());
  EXPECT_FALSE(Simulate({}, truth, Config(0, 1), ExclusivePlacement(), nullptr).ok());
}

TEST(MakeCluster, NamesGpusByNodeAndAllowsAPartialLastNode) {
  const policy::Cluster c = MakeCluster(Config(10, 8));
  ASSERT_EQ(c.gpus.size(), 10u);
  EXPECT_EQ(c.gpus[0].id, (policy::GpuId{"node000", 0}));
  EXPECT_EQ(c.gpus[9].id, (policy::GpuId{"node001", 1}));
  EXPECT_EQ(c.gpus[9].type, "v100");
}

}  // namespace
}  // namespace iashim::clustersim
