#include "coordinator/clustersim/replay.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "coordinator/clustersim/baseline_policies.h"
#include "coordinator/clustersim/learners.h"
#include "coordinator/clustersim/measured_pair_rule.h"
#include "coordinator/clustersim/oracle_predictor.h"
#include "coordinator/clustersim/power_model.h"
#include "coordinator/clustersim/text.h"
#include "coordinator/policy/interference_model.h"
#include "coordinator/policy/interference_placement.h"
#include "coordinator/policy/pair_table.h"

namespace iashim::clustersim {
namespace {

policy::InterferenceAwarePlacement::Options PlacementOptions(const ReplayOptions& options) {
  policy::InterferenceAwarePlacement::Options o;
  o.min_gain = options.min_gain;
  o.uncertainty_weight = options.uncertainty_weight;
  o.exploration = options.exploration;
  o.max_jobs_per_gpu = 2;  // only pairs were measured
  return o;
}

// The coordinator's own placement for a gang joining busy GPUs
// (--join-busy-gpus; Simulate's busy_gang_policy): memory decides how many
// jobs share a GPU, as in the daemon, and the simulator keeps a rank beside
// jobs at the measured pair or triple, else a fair slice.
policy::InterferenceAwarePlacement::Options BusyGangOptions(const ReplayOptions& options) {
  policy::InterferenceAwarePlacement::Options o = PlacementOptions(options);
  o.max_jobs_per_gpu = 0;
  return o;
}

// The simulator's rules for a policy the coordinator runs (iashim, oracle):
// its share control, and under Slurm's queue Slurm's choice of a one-GPU
// job's node (SimConfig::slurm_chooses_the_node) and, if asked, the
// guaranteed GPUs job_submit.lua asks for (SimConfig::guaranteed_gres).
SimConfig CoordinatorConfig(const ReplayOptions& options) {
  SimConfig sim = options.sim;
  sim.share_control = true;
  sim.slurm_chooses_the_node = sim.queue == QueueModel::kSlurmNoTimeLimits;
  sim.guaranteed_gres = options.guaranteed_gres;
  if (options.managed_start_up) sim.start_up = *options.managed_start_up;
  return sim;
}

// Simulates one policy by name, with its predictor and learner.
absl::StatusOr<PolicyRun> RunPolicy(std::string_view name, const PreparedJobs& prepared,
                                    const GavelThroughputs& truth, const ReplayOptions& options) {
  const MeasuredPairRule rule(&truth);
  std::optional<PrequentialError> error;
  absl::StatusOr<SimResult> result = absl::InternalError("unreachable");
  if (name == "exclusive") {
    SimConfig sim = options.sim;
    sim.policy_may_share = false;
    result = Simulate(prepared.jobs, truth, sim, ExclusivePlacement(), nullptr);
  } else if (name == "firstfit") {
    result = Simulate(prepared.jobs, truth, options.sim, FirstFitPlacement(&rule), nullptr);
  } else if (name == "firstfit-whole") {
    SimConfig sim = options.sim;
    sim.guaranteed_take_whole_gpus = true;
    result = Simulate(prepared.jobs, truth, sim, FirstFitPlacement(&rule, true), nullptr);
  } else if (name == "iadeep") {
    policy::PairTable table;
    Learner<policy::PairTable> learner(&table);
    result = Simulate(prepared.jobs, truth, options.sim, IadeepPlacement(&table, &rule), &learner);
    error = learner.error();
  } else if (name == "iashim") {
    SimConfig sim = CoordinatorConfig(options);
    policy::InterferenceModel::Options model_options;
    model_options.seed = options.seed;
    policy::InterferenceModel model(model_options);
    Learner<policy::InterferenceModel> learner(&model);
    const policy::InterferenceAwarePlacement placement(&model, &rule, PlacementOptions(options));
    const policy::InterferenceAwarePlacement gangs(&model, nullptr, BusyGangOptions(options));
    result = Simulate(prepared.jobs, truth, sim, placement, &learner, &gangs);
    error = learner.error();
  } else if (name == "oracle") {
    SimConfig sim = CoordinatorConfig(options);
    const OraclePredictor oracle(truth);
    const policy::InterferenceAwarePlacement placement(&oracle, &rule, PlacementOptions(options));
    const policy::InterferenceAwarePlacement gangs(&oracle, nullptr, BusyGangOptions(options));
    result = Simulate(prepared.jobs, truth, sim, placement, nullptr, &gangs);
  } else {
    return absl::InvalidArgumentError(Cat("unknown policy \"", name, "\""));
  }
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        Cat("policy ", name, ": ", result.status().message()));
  }
  PolicyRun run;
  run.jobs = MakeJobRecords(prepared.jobs, *result);
  run.summary.policy = std::string(name);
  if (error.has_value()) {
    run.summary.predictor_mae = error->mean();
    run.summary.predictor_predictions = error->predictions;
  }
  // later_than_exclusive is counted by Replay, against the exclusive run.
  Summarise(run.jobs, *result, options.sim.gpus, run.jobs, &run.summary);
  if (const std::optional<GpuPower> power = PowerOf(options.sim.gpu_type)) {
    SummariseEnergy(*result, options.sim.gpus, *power, &run.summary);
  }
  return run;
}

}  // namespace

PreparedJobs PrepareJobs(std::span<const TraceJob> trace, const GavelThroughputs& truth,
                         const SimConfig& sim, double arrival_scale, int guaranteed_every) {
  PreparedJobs out;
  // A job wider than a node runs on k / gpus_per_node whole nodes (Simulate);
  // a partial last node takes none of it.
  const int per_node = std::max(1, sim.gpus_per_node);
  const int largest_node = std::min(sim.gpus, per_node);
  const int whole_node_gpus = sim.gpus / per_node * per_node;
  for (const TraceJob& t : trace) {
    const int k = t.type.scale;
    if (!truth.Solo(t.type).has_value()) {
      ++out.skipped;
    } else if (k > per_node && k % per_node != 0) {
      ++out.not_whole_nodes;
    } else if (k > (k > per_node ? whole_node_gpus : largest_node)) {
      ++out.wider_than_cluster;
    } else {
      out.jobs.push_back(
          {t.id, t.type, static_cast<double>(t.total_steps), t.arrival_s / arrival_scale});
    }
  }
  // The trace is in arrival order already; stable_sort keeps it so for any input.
  std::stable_sort(out.jobs.begin(), out.jobs.end(),
                   [](const SimJob& a, const SimJob& b) { return a.arrival_s < b.arrival_s; });
  for (size_t i = 0; guaranteed_every > 0 && i < out.jobs.size(); i += guaranteed_every) {
    out.jobs[i].priority = policy::Priority::kGuaranteed;
  }
  return out;
}

absl::StatusOr<std::vector<PolicyRun>> Replay(const PreparedJobs& prepared,
                                              const GavelThroughputs& truth,
                                              const ReplayOptions& options) {
  absl::StatusOr<PolicyRun> exclusive = RunPolicy("exclusive", prepared, truth, options);
  if (!exclusive.ok()) return exclusive.status();
  std::vector<PolicyRun> runs;
  for (const std::string& name : options.policies) {
    absl::StatusOr<PolicyRun> run =
        name == "exclusive" ? *exclusive : RunPolicy(name, prepared, truth, options);
    if (!run.ok()) return run.status();
    run->summary.later_than_exclusive = CountLaterThan(run->jobs, exclusive->jobs);
    run->summary.skipped = prepared.skipped;
    run->summary.not_whole_nodes = prepared.not_whole_nodes;
    run->summary.wider_than_cluster = prepared.wider_than_cluster;
    run->summary.arrival_scale = options.arrival_scale;
    run->summary.seed = options.seed;
    runs.push_back(std::move(*run));
  }
  return runs;
}

}  // namespace iashim::clustersim
