// iashim-fakejob: a training job without a framework. It replays a model
// profile's per-iteration kernel sequence through the CUDA driver API and
// prints its throughput as JSON lines. See bench/data/models/README.md.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bench/fakejob/driver_api.h"
#include "bench/fakejob/model_profile.h"
#include "bench/fakejob/module_image.h"
#include "bench/fakejob/options.h"
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

  absl::StatusOr<std::string> path = ResolveModelPath(opt->model, dirs);
  // An unknown model is a bad --model value.
  if (!path.ok()) return Fail(absl::InvalidArgumentError(path.status().message()));
  absl::StatusOr<ModelProfile> profile = LoadModelProfile(*path);
  if (!profile.ok()) return Fail(absl::InternalError(profile.status().message()));
  if (opt->host_gap_us) profile->host_gap_us = *opt->host_gap_us;
  const ModuleImage image = BuildModuleImage(*profile);

  absl::StatusOr<DriverApi> api = LoadDriverApi(opt->library, opt->per_thread_stream);
  if (!api.ok()) return Fail(absl::InternalError(api.status().message()));

  LoopConfig config;
  config.device = opt->device;
  config.per_thread_stream = opt->per_thread_stream;
  config.sync = opt->sync;
  absl::StatusOr<std::unique_ptr<TrainingLoop>> loop =
      TrainingLoop::Create(*api, *profile, image, config);
  if (!loop.ok()) return Fail(loop.status());

  // SIGINT/SIGTERM end the run after the current iteration, with a summary.
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);

  using Clock = std::chrono::steady_clock;
  const double limit_s = opt->seconds.value_or(kDefaultSeconds);
  ThroughputMeter meter;
  double gpu_ms_sum = 0;
  const Clock::time_point start = Clock::now();
  double elapsed_s = 0;
  while (!g_stop) {
    const Clock::time_point iter_start = Clock::now();
    absl::StatusOr<double> gpu_ms = (*loop)->RunIteration();
    if (!gpu_ms.ok()) return Fail(gpu_ms.status());
    const Clock::time_point iter_end = Clock::now();
    gpu_ms_sum += *gpu_ms;
    elapsed_s = std::chrono::duration<double>(iter_end - start).count();
    const double iter_s = std::chrono::duration<double>(iter_end - iter_start).count();
    for (const SecondReport& r : meter.AddIteration(elapsed_s, iter_s)) {
      if (!opt->quiet) PrintLine(SecondReportJson(r));
    }
    if (opt->iterations ? meter.total_iters() >= *opt->iterations : elapsed_s >= limit_s) {
      break;
    }
  }
  Summary summary;
  summary.model = profile->name;
  summary.iters = meter.total_iters();
  summary.seconds = elapsed_s;
  summary.launches = summary.iters * static_cast<int64_t>(profile->launches.size());
  summary.gpu_ms_mean = summary.iters > 0 ? gpu_ms_sum / static_cast<double>(summary.iters) : 0.0;
  PrintLine(SummaryJson(summary));
  return 0;
}

}  // namespace
}  // namespace iashim::fakejob

int main(int argc, char** argv) { return iashim::fakejob::Run(argc, argv); }
