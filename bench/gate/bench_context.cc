#include "bench/gate/bench_context.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace iashim::gatebench {

JobSpec BenchContext::Job(const std::string& model) const {
  const ModelInfo& info = models.at(model);
  JobSpec spec;
  spec.model = model;
  spec.profile = info.profile;
  spec.kernels_per_iter = info.kernels_per_iter;
  return spec;
}

std::vector<JobSpec> BenchContext::GuaranteedPair(const ModelPair& pair,
                                                  std::optional<double> opportunistic_share) const {
  JobSpec guaranteed = Job(pair.first);
  guaranteed.priority = "guaranteed";
  JobSpec opportunistic = Job(pair.second);
  opportunistic.priority = "opportunistic";
  if (opportunistic_share) {
    guaranteed.share = 1.0;
    opportunistic.share = *opportunistic_share;
  }
  return {guaranteed, opportunistic};
}

absl::StatusOr<std::vector<SoloRun>> RunSolos(const BenchContext& ctx,
                                              const std::vector<ModelPair>& pairs) {
  std::vector<SoloRun> solos;
  for (const ModelPair& pair : pairs) {
    for (const std::string& model : {pair.first, pair.second}) {
      if (std::any_of(solos.begin(), solos.end(),
                      [&](const SoloRun& s) { return s.model == model; })) {
        continue;
      }
      absl::StatusOr<RunResult> r = RunStep(ctx, model + " alone", {ctx.Job(model)});
      if (!r.ok()) return r.status();
      solos.push_back({model, *std::move(r)});
    }
  }
  return solos;
}

absl::StatusOr<RunResult> RunStep(const BenchContext& ctx, const std::string& label,
                                  const std::vector<JobSpec>& specs, const StartBeside& beside) {
  std::fprintf(stderr, "iashim-gate-bench: %s ...", label.c_str());
  std::fflush(stderr);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<RunResult> result = RunJobs(ctx.paths, ctx.timing, specs, ctx.inherited_env, beside);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, " %s (%.1f s)\n", result.ok() ? "done" : "FAILED", took);
  return result;
}

}  // namespace iashim::gatebench
