#include "bench/gate/bench_context.h"

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
