// What every mode of iashim-gate-bench needs: the build's paths, the timing,
// the resolved model profiles and the environment the jobs inherit, plus one
// helper that runs a step and reports progress on stderr.
#ifndef IASHIM_BENCH_GATE_BENCH_CONTEXT_H_
#define IASHIM_BENCH_GATE_BENCH_CONTEXT_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/gate/bench_options.h"
#include "bench/gate/job_command.h"
#include "bench/gate/job_runner.h"

namespace iashim::gatebench {

struct ModelInfo {
  std::string profile;          // path of its .model file
  double kernels_per_iter = 1;  // launches in one iteration
};

struct BenchContext {
  Paths paths;
  Timing timing;
  std::map<std::string, ModelInfo> models;  // every model the options name
  std::vector<std::string> inherited_env;

  // A job of `model` (which must be in `models`), with the shim and no budget.
  JobSpec Job(const std::string& model) const;
  // The pair as protect and harvest run it: the first model guaranteed, the
  // second opportunistic; with `opportunistic_share`, at fixed shares (1 and
  // that), without, at none (a coordinator's budgets decide).
  std::vector<JobSpec> GuaranteedPair(const ModelPair& pair,
                                      std::optional<double> opportunistic_share) const;
};

struct SoloRun {
  std::string model;
  RunResult run;
};

// Each model of `pairs` alone (shim loaded, unthrottled), in the order they
// first appear: what protect's and harvest's fractions are taken against.
absl::StatusOr<std::vector<SoloRun>> RunSolos(const BenchContext& ctx,
                                              const std::vector<ModelPair>& pairs);

// Runs `specs` (RunJobs) after one progress line on stderr ("label ... 6.8 s").
absl::StatusOr<RunResult> RunStep(const BenchContext& ctx, const std::string& label,
                                  const std::vector<JobSpec>& specs,
                                  const StartBeside& beside = nullptr);

}  // namespace iashim::gatebench

#endif  // IASHIM_BENCH_GATE_BENCH_CONTEXT_H_
