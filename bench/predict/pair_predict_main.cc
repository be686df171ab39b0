// iashim-pair-predict: what simgpu's device model predicts for processes the
// shim traced on a real GPU, alone and sharing it (trace_job.h).
//
//   iashim-pair-predict --sms N [--mem RULES] A.bin [B.bin]
//
// Prints one JSON line: per trace, the iteration rate the trace measured, the
// rate simgpu gives the rebuilt job alone, and with B (or a copy of A when B is
// not given) beside it, and the kept fraction (paired / alone). scripts/gpu-check.sh
// prints these beside what the GPU measured.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "bench/predict/trace_job.h"
#include "coordinator/cli/json_writer.h"
#include "common/text/text.h"
#include "simgpu/src/config_parse.h"

namespace {

constexpr const char* kUsage =
    "usage: iashim-pair-predict --sms N [--mem NAME=I,...] A.bin [B.bin]\n"
    "  --sms N       the GPU's SM count (the workload prints it as \"sms\")\n"
    "  --mem RULES   memory intensity 0..1 of kernels whose name contains NAME\n"
    "                (first match wins; default 0.5), e.g. gemm=0.2,triad=0.95\n"
    "  A.bin B.bin   IASHIM_TRACE files of the two processes run alone; without B,\n"
    "                A is paired with a copy of itself\n"
    "Prints one JSON line.\n";

int Usage(const std::string& error) {
  std::fprintf(stderr, "iashim-pair-predict: %s\n%s", error.c_str(), kUsage);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  iashim::predict::TraceJobOptions options;
  std::vector<std::string> paths;
  bool sms_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--sms" || a == "--mem") {
      if (i + 1 >= argc) return Usage(a + " needs a value");
      const std::string v = argv[++i];
      if (a == "--sms") {
        const std::optional<int64_t> n = iashim::ParseInt(v, 1, 1024);
        if (!n) return Usage("--sms must be an integer 1..1024 (got '" + v + "')");
        options.sm_count = int(*n);
        sms_given = true;
      } else {
        auto rules = iashim::predict::ParseMemRules(v);
        if (!rules.ok()) return Usage(std::string(rules.status().message()));
        options.mem_rules = *rules;
      }
    } else if (a.rfind("--", 0) == 0) {
      return Usage("unknown option '" + a + "'");
    } else {
      paths.push_back(a);
    }
  }
  if (!sms_given) return Usage("--sms is required: the GPU's SM count");
  if (paths.empty() || paths.size() > 2) return Usage("give one or two trace files");

  std::vector<iashim::predict::TraceJob> jobs;
  for (const std::string& path : paths) {
    iashim::Trace trace;
    std::string error;
    if (!iashim::ReadTrace(path, &trace, &error)) {
      std::fprintf(stderr, "iashim-pair-predict: %s: %s\n", path.c_str(), error.c_str());
      return 1;
    }
    auto job = iashim::predict::JobFromTrace(trace, options);
    if (!job.ok()) {
      std::fprintf(stderr, "iashim-pair-predict: %s: %s\n", path.c_str(),
                   std::string(job.status().message()).c_str());
      return 1;
    }
    jobs.push_back(std::move(*job));
  }
  if (jobs.size() == 1) {
    jobs.push_back(jobs[0]);
    paths.push_back(paths[0]);
  }

  std::vector<simgpu::DeviceSpec> specs;
  std::string error;
  simgpu::ParseDeviceList(absl::StrFormat("traced GPU:1TiB:%d", options.sm_count), "predict",
                          &specs, &error);
  // Long enough for 30 iterations of the slower job (at least 3 s), a tenth as warm-up.
  double seconds = 3;
  for (const auto& j : jobs) {
    if (j.measured_it_per_s > 0) seconds = std::max(seconds, 30 / j.measured_it_per_s);
  }
  seconds = std::min(seconds, 600.0);
  const simgpu::InterferenceParams params;
  const std::vector<double> paired =
      simgpu::CoSimulate({jobs[0].job, jobs[1].job}, specs[0], seconds, seconds / 10, params);
  std::string out = absl::StrFormat("{\"sms\": %d, \"simulated_s\": %.1f, \"jobs\": [",
                                    options.sm_count, seconds);
  for (size_t i = 0; i < 2; ++i) {
    const double solo = simgpu::CoSimulate({jobs[i].job}, specs[0], seconds, seconds / 10, params)[0];
    const auto& j = jobs[i];
    out += absl::StrFormat(
        "%s{\"trace\": %s, \"iterations_used\": %d, \"kernels_per_iteration\": %d, "
        "\"gpu_ms_per_iteration\": %.3f, \"host_ms_per_iteration\": %.3f, "
        "\"unsampled_kernels\": %d, \"measured_it_per_s\": %.3f, \"sim_solo_it_per_s\": %.3f, "
        "\"sim_paired_it_per_s\": %.3f, \"predicted_kept\": %.3f}",
        i ? ", " : "", iashim::cli::JsonQuote(paths[i]), j.iterations_used, j.kernels_per_iteration,
        j.gpu_ms_per_iteration, j.host_ms_per_iteration, j.unsampled_kernels,
        j.measured_it_per_s, solo, paired[i], solo > 0 ? paired[i] / solo : 0.0);
  }
  std::printf("%s]}\n", out.c_str());
  return 0;
}
