// iashim-clustersim: replays Gavel's cluster traces through the coordinator's
// placement policies with Gavel's measured interference (README.md).
// Exit status: 0 done, 1 an input file could not be read or a replay failed,
// 2 a bad command line.
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "coordinator/clustersim/alibaba_cli.h"
#include "coordinator/clustersim/cli_options.h"
#include "coordinator/clustersim/gavel_throughputs.h"
#include "coordinator/clustersim/gavel_trace.h"
#include "coordinator/clustersim/job_memory_shares.h"
#include "coordinator/clustersim/measured_pairs.h"
#include "coordinator/clustersim/replay.h"
#include "coordinator/clustersim/report_writers.h"
#include "coordinator/clustersim/robustness.h"
#include "coordinator/policy/pair_cross_validation.h"
#include "nlohmann/json.hpp"

namespace iashim::clustersim {
namespace {

int Fail(const absl::Status& status) {
  std::cerr << "iashim-clustersim: " << status.message() << "\n";
  return 1;
}

int RunKfold(const CliOptions& options, const GavelThroughputs& truth) {
  const std::vector<policy::PairMeasurement> pairs = MeasuredPairs(truth);
  if (static_cast<int>(pairs.size()) < options.kfold) {
    std::cerr << "iashim-clustersim: --kfold " << options.kfold << ": only " << pairs.size()
              << " measured pairs on " << options.gpu_type << "\n";
    return 2;
  }
  policy::InterferenceModel::Options model;
  model.seed = options.seed;
  const policy::CrossValidationResult r =
      policy::CrossValidatePairs(pairs, options.kfold, options.seed, model);
  if (r.folds == 0) return Fail(absl::InternalError("cross-validation did not run"));
  if (options.json) {
    nlohmann::json j;
    j["gpu_type"] = options.gpu_type;
    j["folds"] = r.folds;
    j["pairs"] = r.pairs;
    j["predictions"] = r.predictions;
    j["seed"] = options.seed;
    for (const auto& [name, score] : {std::pair{"model", r.model}, std::pair{"median", r.median},
                                      std::pair{"table", r.table}}) {
      j[std::string(name) + "_mae"] = score.mean_abs_error;
      j[std::string(name) + "_p90_abs_error"] = score.p90_abs_error;
    }
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::cout << absl::StrFormat(
      "%d-fold cross-validation over %d measured one-GPU pairs of %s (%d predictions, seed %d)\n"
      "%-8s %8s %8s\n",
      r.folds, r.pairs, options.gpu_type, r.predictions, options.seed, "predictor", "MAE", "p90");
  for (const auto& [name, score] :
       {std::pair{"model", r.model}, std::pair{"median", r.median}, std::pair{"table", r.table}}) {
    std::cout << absl::StrFormat("%-9s %8.4f %8.4f\n", name, score.mean_abs_error,
                                 score.p90_abs_error);
  }
  return 0;
}

// Fails when --job-memory-shares' file cannot be read.
absl::StatusOr<ReplayOptions> ReplayOptionsOf(const CliOptions& options) {
  ReplayOptions replay;
  replay.sim.gpus = options.gpus;
  replay.sim.gpus_per_node = options.gpus_per_node;
  replay.sim.gpu_type = options.gpu_type;
  replay.arrival_scale = options.arrival_scale;
  replay.seed = options.seed;
  replay.policies = options.policies;
  replay.min_gain = options.min_gain;
  replay.uncertainty_weight = options.uncertainty_weight;
  replay.exploration = options.exploration;
  replay.guaranteed_every = options.guaranteed_every;
  replay.guaranteed_gres = options.guaranteed_gres;
  replay.sim.queue = options.queue;
  replay.sim.backfill_interval_s = options.backfill_interval_s;
  replay.sim.gangs_take_busy_gpus = options.gangs_take_busy_gpus;
  replay.sim.cpus_per_node = options.cpus_per_node;
  replay.sim.start_up = options.start_up;
  replay.managed_start_up = options.managed_start_up;
  replay.sim.migration_cost_s = options.migration_cost_s;
  replay.sim.job_memory_share = options.job_memory_share;
  if (!options.job_memory_shares.empty()) {
    absl::StatusOr<std::map<std::string, double>> shares =
        ReadJobMemoryShares(options.job_memory_shares);
    if (!shares.ok()) return shares.status();
    replay.sim.job_memory_share_by_type = *std::move(shares);
  }
  return replay;
}

// --variants: each trace file is one VC; every policy on every variant.
int RunVariants(const CliOptions& options, const GavelThroughputs& truth) {
  std::vector<std::vector<TraceJob>> vcs;
  for (const std::string& path : options.traces) {
    absl::StatusOr<std::vector<TraceJob>> vc = ReadGavelTraceFile(path);
    if (!vc.ok()) return Fail(vc.status());
    vcs.push_back(*std::move(vc));
  }
  absl::StatusOr<ReplayOptions> replay = ReplayOptionsOf(options);
  if (!replay.ok()) return Fail(replay.status());
  absl::StatusOr<std::vector<VariantResult>> results =
      ReplayVariants(vcs, truth, *replay, options.variants, options.variant_seed);
  if (!results.ok()) return Fail(results.status());
  const std::vector<PolicyRobustness> rows = SummariseVariants(*results);
  std::cout << (options.json ? RobustnessJsonLines(rows, options.gpus, options.variant_seed)
                             : RobustnessTable(rows, options.gpus, options.variant_seed) + "\n" +
                                   VariantsTable(*results));
  return 0;
}

int RunReplay(const CliOptions& options, const GavelThroughputs& truth) {
  absl::StatusOr<std::vector<TraceJob>> trace = ReadGavelTraces(options.traces);
  if (!trace.ok()) return Fail(trace.status());
  const absl::StatusOr<ReplayOptions> replay = ReplayOptionsOf(options);
  if (!replay.ok()) return Fail(replay.status());
  const PreparedJobs prepared =
      PrepareJobs(*trace, truth, replay->sim, options.arrival_scale, replay->guaranteed_every);
  absl::StatusOr<std::vector<PolicyRun>> runs = Replay(prepared, truth, *replay);
  if (!runs.ok()) return Fail(runs.status());
  std::cout << (options.json ? SummaryJsonLines(*runs) : SummaryTable(*runs));
  if (!options.out_dir.empty()) {
    if (absl::Status s = WriteOutDir(options.out_dir, *runs); !s.ok()) return Fail(s);
  }
  return 0;
}

int Main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (IsAlibabaCommandLine(args)) return RunAlibabaCli(argc, argv);
  absl::StatusOr<CliOptions> options = ParseCliOptions(args);
  if (!options.ok()) {
    std::cerr << "iashim-clustersim: " << options.status().message() << "\n\n" << Usage();
    return 2;
  }
  if (options->mode == CliOptions::Mode::kHelp) {
    std::cout << Usage();
    return 0;
  }
  absl::StatusOr<GavelThroughputs> truth =
      ReadGavelThroughputsFile(options->throughputs, options->gpu_type);
  if (!truth.ok()) return Fail(truth.status());
  if (options->mode == CliOptions::Mode::kKfold) return RunKfold(*options, *truth);
  if (options->variants > 0) return RunVariants(*options, *truth);
  return RunReplay(*options, *truth);
}

}  // namespace
}  // namespace iashim::clustersim

int main(int argc, char** argv) { return iashim::clustersim::Main(argc, argv); }
