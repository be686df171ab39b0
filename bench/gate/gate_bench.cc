// iashim-gate-bench: measures libiashim's launch gate with real
// iashim-fakejob processes sharing one simulated GPU. What it measures and
// how to read it: bench/README.md.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bench/fakejob/model_profile.h"
#include "bench/fakejob/options.h"
#include "bench/gate/bench_context.h"
#include "bench/gate/bench_options.h"
#include "bench/gate/harvest_mode.h"
#include "bench/gate/interrupt.h"
#include "bench/gate/job_runner.h"
#include "bench/gate/protect_mode.h"
#include "bench/gate/split_mode.h"

#ifndef IASHIM_SOURCE_DIR
#define IASHIM_SOURCE_DIR ""
#endif

extern char** environ;

namespace iashim::gatebench {
namespace {

std::string ExecutablePath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "iashim-gate-bench: %s\n", std::string(s.message()).c_str());
  if (s.code() == absl::StatusCode::kInvalidArgument) return 2;
  if (s.code() == absl::StatusCode::kCancelled) return 130;
  return 1;
}

// The pieces this build made; a missing one is named with the target to build.
absl::Status CheckPaths(const Paths& p) {
  namespace fs = std::filesystem;
  struct Need {
    std::string path, target;
  };
  for (const Need& n : {Need{p.fakejob, "iashim-fakejob"}, Need{p.shim, "iashim"},
                        Need{p.simgpu_dir + "/libcuda.so.1", "simgpu_cuda"},
                        Need{p.coordinator, "iashim-coordinator"}}) {
    std::error_code ec;
    if (!fs::exists(n.path, ec)) {
      return absl::FailedPreconditionError(n.path + " is missing: cmake --build build --target " +
                                           n.target);
    }
  }
  return absl::OkStatus();
}

// Resolves every model the pairs name, as iashim-fakejob would, and counts
// its launches per iteration.
absl::Status LoadModels(const std::vector<ModelPair>& pairs, BenchContext& ctx) {
  const std::vector<std::string> dirs = fakejob::ModelDirCandidates(
      "", std::getenv("IASHIM_MODELS_DIR"), ExecutablePath(), IASHIM_SOURCE_DIR);
  for (const ModelPair& pair : pairs) {
    for (const std::string& model : {pair.first, pair.second}) {
      if (ctx.models.count(model) != 0) continue;
      absl::StatusOr<std::string> path = fakejob::ResolveModelPath(model, dirs);
      if (!path.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("--models: no ", model, ".model in ",
                                                       absl::StrJoin(dirs, ", "),
                                                       " (iashim-fakejob --list-models)"));
      }
      absl::StatusOr<fakejob::ModelProfile> profile = fakejob::LoadModelProfile(*path);
      if (!profile.ok()) return absl::InternalError(profile.status().message());
      ctx.models[model] = ModelInfo{*path, static_cast<double>(profile->launches.size())};
    }
  }
  return absl::OkStatus();
}

int Run(int argc, char** argv) {
  absl::StatusOr<BenchOptions> opt =
      ParseBenchOptions(std::vector<std::string>(argv + 1, argv + argc));
  if (!opt.ok()) return Fail(opt.status());
  if (opt->help) {
    std::fputs(BenchUsageText().c_str(), stdout);
    return 0;
  }
  BenchContext ctx;
  ctx.paths =
      Paths{GATE_BENCH_FAKEJOB, GATE_BENCH_SHIM, GATE_BENCH_SIMGPU_DIR, GATE_BENCH_COORDINATOR};
  ctx.timing.warmup_s = opt->warmup_s;
  ctx.timing.window_s = opt->window_s;
  for (char** e = environ; *e != nullptr; ++e) ctx.inherited_env.emplace_back(*e);
  if (absl::Status s = LoadModels(opt->pairs, ctx); !s.ok()) return Fail(s);
  if (absl::Status s = CheckPaths(ctx.paths); !s.ok()) return Fail(s);

  InstallInterruptHandlers();
  RemoveOrphanedDeviceFiles();
  std::printf("iashim-gate-bench: warm-up %g s, window %g s; simgpu figures are simulated\n\n",
              ctx.timing.warmup_s, ctx.timing.window_s);
  std::fflush(stdout);
  if (opt->mode == Mode::kSplit || opt->mode == Mode::kAll) {
    absl::StatusOr<std::string> tables = RunSplitMode(ctx, opt->pairs.front());
    if (!tables.ok()) return Fail(tables.status());
    std::printf("%s\n", tables->c_str());
    std::fflush(stdout);
  }
  if (opt->mode == Mode::kProtect || opt->mode == Mode::kAll) {
    absl::StatusOr<std::string> tables = RunProtectMode(ctx, opt->pairs);
    if (!tables.ok()) return Fail(tables.status());
    std::printf("%s\n", tables->c_str());
    std::fflush(stdout);
  }
  if (opt->mode == Mode::kHarvest || opt->mode == Mode::kAll) {
    absl::StatusOr<std::string> tables =
        RunHarvestMode(ctx, opt->pairs, HarvestTiming{opt->settle_s, opt->loop_window_s});
    if (!tables.ok()) return Fail(tables.status());
    std::printf("%s\n", tables->c_str());
  }
  return 0;
}

}  // namespace
}  // namespace iashim::gatebench

int main(int argc, char** argv) { return iashim::gatebench::Run(argc, argv); }
