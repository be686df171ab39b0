// iashim-fakejob: a training job without a framework. It replays a model
// profile's per-iteration kernel sequence through the CUDA driver API and
// prints its throughput as JSON lines. See bench/data/models/README.md.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bench/fakejob/busy_host_threads.h"
#include "bench/fakejob/checkpoint.h"
#include "bench/fakejob/data_parallel.h"
#include "bench/fakejob/driver_api.h"
#include "bench/fakejob/model_profile.h"
#include "bench/fakejob/module_image.h"
#include "bench/fakejob/options.h"
#include "bench/fakejob/rank_launcher.h"
#include "bench/fakejob/stop_agreement.h"
#include "bench/fakejob/throughput_meter.h"
#include "bench/fakejob/training_loop.h"

#ifndef IASHIM_SOURCE_DIR
#define IASHIM_SOURCE_DIR ""
#endif

namespace iashim::fakejob {
namespace {

volatile std::sig_atomic_t g_stop = 0;

extern "C" void OnStopSignal(int) { g_stop = 1; }

std::string ExecutablePath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

void PrintLine(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "iashim-fakejob: %s\n", std::string(s.message()).c_str());
  if (s.code() == absl::StatusCode::kInvalidArgument) return 2;
  if (s.code() == absl::StatusCode::kResourceExhausted) return 3;
  return 1;
}

int ListModels(const std::vector<std::string>& dirs) {
  absl::StatusOr<std::vector<std::string>> paths = ListModelPaths(dirs);
  if (!paths.ok()) return Fail(paths.status());
  int status = 0;
  for (const std::string& path : *paths) {
    absl::StatusOr<ModelProfile> p = LoadModelProfile(path);
    if (!p.ok()) {
      std::fprintf(stderr, "iashim-fakejob: %s\n", std::string(p.status().message()).c_str());
      status = 1;
      continue;
    }
    std::printf("%s\t%.1f ms/iter solo\t%zu kernels/iter\t%.0f MiB\n", p->name.c_str(),
                p->SoloIterationUs() / 1000.0, p->launches.size(),
                static_cast<double>(p->memory_bytes) / 1048576.0);
  }
  return status;
}

int Run(int argc, char** argv) {
  absl::StatusOr<Options> opt = ParseOptions(std::vector<std::string>(argv + 1, argv + argc));
  if (!opt.ok()) return Fail(opt.status());
  if (opt->help) {
    std::fputs(UsageText().c_str(), stdout);
    return 0;
  }
  const std::vector<std::string> dirs = ModelDirCandidates(
      opt->models_dir, std::getenv("IASHIM_MODELS_DIR"), ExecutablePath(), IASHIM_SOURCE_DIR);
  if (opt->list_models) return ListModels(dirs);

  // Under torchrun (or --ranks' own launch) this process is one rank.
  absl::StatusOr<std::optional<RankEnvironment>> rank_env =
      ReadRankEnvironment([](const char* name) { return std::getenv(name); });
  if (!rank_env.ok()) return Fail(rank_env.status());
  if (opt->ranks > 1 && !rank_env->has_value()) {
    return LaunchRanks(opt->ranks, std::vector<std::string>(argv + 1, argv + argc));
  }
  if (rank_env->has_value() && opt->ranks > 1 && opt->ranks != (*rank_env)->world_size) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("--ranks ", opt->ranks, " but WORLD_SIZE is ", (*rank_env)->world_size)));
  }
  if (rank_env->has_value() && opt->devices > 1) {
    return Fail(absl::InvalidArgumentError(
        "--devices drives several GPUs from one process: not as one rank of a torchrun job"));
  }

  absl::StatusOr<std::string> path = ResolveModelPath(opt->model, dirs);
  // An unknown model is a bad --model value.
  if (!path.ok()) return Fail(absl::InvalidArgumentError(path.status().message()));
  absl::StatusOr<ModelProfile> profile = LoadModelProfile(*path);
  if (!profile.ok()) return Fail(absl::InternalError(profile.status().message()));
  if (opt->host_gap_us) profile->host_gap_us = *opt->host_gap_us;
  if (opt->gradient_mib) {
    profile->gradient_bytes = static_cast<uint64_t>(std::llround(*opt->gradient_mib * 1048576.0));
  }
  const bool data_parallel = rank_env->has_value() || opt->devices > 1;
  if (data_parallel && profile->gradient_bytes == 0) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "model ", profile->name, " says nothing of its gradients (gradient_mib): give "
        "--gradient-mib for data-parallel training")));
  }
  const ModuleImage image = BuildModuleImage(*profile, data_parallel);

  absl::StatusOr<DriverApi> api = LoadDriverApi(opt->library, opt->per_thread_stream);
  if (!api.ok()) return Fail(absl::InternalError(api.status().message()));

  // One loop per device this process drives: one, or --devices N (rank i on
  // GPU i, all in a group named after this process).
  std::vector<std::unique_ptr<TrainingLoop>> loops;
  std::optional<int> rank;
  int world_size = 1;
  const std::string own_group =
      GroupForEndpoint("devices", absl::StrCat(getpid(), "-", ::time(nullptr)));
  for (int d = 0; d < opt->devices; ++d) {
    LoopConfig config;
    config.device = opt->device;
    config.per_thread_stream = opt->per_thread_stream;
    config.sync = opt->sync;
    if (rank_env->has_value()) {
      const RankEnvironment& r = **rank_env;
      if (!opt->device_given) config.device = r.local_rank;
      config.all_reduce = AllReduceRank{r.group, r.rank, r.world_size, profile->gradient_bytes};
      rank = r.rank;
      world_size = r.world_size;
    } else if (opt->devices > 1) {
      config.device = d;
      config.all_reduce = AllReduceRank{own_group, d, opt->devices, profile->gradient_bytes};
    }
    absl::StatusOr<std::unique_ptr<TrainingLoop>> loop =
        TrainingLoop::Create(*api, *profile, image, config);
    if (!loop.ok()) return Fail(loop.status());
    loops.push_back(std::move(*loop));
  }

  // Where a checkpoint left off (checkpoint.h); the iterations still to do.
  int64_t resumed = 0;
  if (!opt->checkpoint.empty() && rank_env->has_value()) {
    return Fail(absl::InvalidArgumentError(kCheckpointIsForOneProcess));
  }
  if (!opt->checkpoint.empty()) {
    absl::StatusOr<int64_t> done = ReadCheckpoint(opt->checkpoint);
    if (!done.ok()) return Fail(done.status());
    resumed = std::min(*done, *opt->iterations);
  }
  const bool writes_checkpoint = !opt->checkpoint.empty();
  const double checkpoint_every_s = opt->checkpoint_every_s.value_or(kDefaultCheckpointEveryS);
  double next_checkpoint_s = checkpoint_every_s;

  const BusyHostThreads host_threads(opt->host_threads);
  // SIGINT/SIGTERM end the run after the current iteration, with a summary.
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);

  using Clock = std::chrono::steady_clock;
  const double limit_s = opt->seconds.value_or(kDefaultSeconds);
  // The ranks of a job agree on when to stop (stop_agreement.h).
  StopAgreement stop(rank_env->has_value() ? (*rank_env)->group : std::string());
  ThroughputMeter meter;
  double gpu_ms_sum = 0;
  const Clock::time_point start = Clock::now();
  double elapsed_s = 0;
  for (;;) {
    if (opt->iterations && resumed + meter.total_iters() >= *opt->iterations) break;
    if (stop.ShouldStop(meter.total_iters(), g_stop || (!opt->iterations && elapsed_s >= limit_s))) {
      break;
    }
    const Clock::time_point iter_start = Clock::now();
    double gpu_ms = 0;
    if (loops.size() == 1) {
      absl::StatusOr<double> ms = loops[0]->RunIteration();
      if (!ms.ok()) return Fail(ms.status());
      gpu_ms = *ms;
    } else {
      // One host gap for the process, then every device's work at once.
      SleepMicros(profile->host_gap_us);
      for (auto& loop : loops) {
        if (absl::Status s = loop->Enqueue(); !s.ok()) return Fail(s);
      }
      for (auto& loop : loops) {
        absl::StatusOr<double> ms = loop->Finish();
        if (!ms.ok()) return Fail(ms.status());
        gpu_ms = std::max(gpu_ms, *ms);
      }
    }
    const Clock::time_point iter_end = Clock::now();
    gpu_ms_sum += gpu_ms;
    elapsed_s = std::chrono::duration<double>(iter_end - start).count();
    const double iter_s = std::chrono::duration<double>(iter_end - iter_start).count();
    for (const SecondReport& r : meter.AddIteration(elapsed_s, iter_s)) {
      if (!opt->quiet) PrintLine(SecondReportJson(r, rank));
    }
    if (writes_checkpoint && elapsed_s >= next_checkpoint_s) {
      if (absl::Status s = WriteCheckpoint(opt->checkpoint, resumed + meter.total_iters());
          !s.ok()) {
        return Fail(s);
      }
      next_checkpoint_s = elapsed_s + checkpoint_every_s;
    }
  }
  if (writes_checkpoint) {
    if (absl::Status s = WriteCheckpoint(opt->checkpoint, resumed + meter.total_iters()); !s.ok()) {
      return Fail(s);
    }
  }
  Summary summary;
  summary.model = profile->name;
  summary.iters = meter.total_iters();
  summary.seconds = elapsed_s;
  summary.launches = summary.iters * static_cast<int64_t>(profile->launches.size());
  summary.gpu_ms_mean = summary.iters > 0 ? gpu_ms_sum / static_cast<double>(summary.iters) : 0.0;
  summary.rank = rank;
  summary.world_size = world_size;
  if (!opt->checkpoint.empty()) summary.resumed = resumed;
  PrintLine(SummaryJson(summary));
  return 0;
}

}  // namespace
}  // namespace iashim::fakejob

int main(int argc, char** argv) { return iashim::fakejob::Run(argc, argv); }
