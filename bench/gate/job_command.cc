#include "bench/gate/job_command.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace iashim::gatebench {
namespace {

// The job stops on SIGINT long before this; it only has to outlast any
// warm-up plus window.
constexpr const char* kRunSeconds = "100000";

bool Dropped(const std::string& entry) {
  for (const char* prefix : {"LD_PRELOAD=", "LD_LIBRARY_PATH=", "CUDA_VISIBLE_DEVICES="}) {
    if (absl::StartsWith(entry, prefix)) return true;
  }
  return absl::StartsWith(entry, "SIMGPU_") || absl::StartsWith(entry, "IASHIM_");
}

// 0.3, not 0.300000 (six significant digits are plenty for a share).
std::string Number(double v) { return absl::StrFormat("%g", v); }

}  // namespace

std::vector<std::string> JobArgv(const Paths& paths, const JobSpec& spec) {
  std::vector<std::string> argv = {paths.fakejob, "--model",   spec.profile,
                                   "--seconds",   kRunSeconds, "--quiet"};
  if (spec.sync_kernel) {
    argv.push_back("--sync");
    argv.push_back("kernel");
  }
  if (spec.host_gap_us) {
    argv.push_back("--host-gap-us");
    argv.push_back(Number(*spec.host_gap_us));
  }
  return argv;
}

std::vector<std::string> CleanEnv(const std::vector<std::string>& inherited, const Paths& paths,
                                  const std::string& simgpu_namespace) {
  std::vector<std::string> env;
  for (const std::string& entry : inherited) {
    if (!Dropped(entry)) env.push_back(entry);
  }
  env.push_back("LD_LIBRARY_PATH=" + paths.simgpu_dir);
  env.push_back("SIMGPU_NAMESPACE=" + simgpu_namespace);
  return env;
}

std::vector<std::string> JobEnv(const std::vector<std::string>& inherited, const Paths& paths,
                                const JobSpec& spec, const std::string& simgpu_namespace) {
  std::vector<std::string> env = CleanEnv(inherited, paths, simgpu_namespace);
  if (spec.shim) {
    env.push_back("LD_PRELOAD=" + paths.shim);
    if (spec.share) env.push_back("IASHIM_SHARE=" + Number(*spec.share));
    if (spec.priority) env.push_back("IASHIM_PRIORITY=" + *spec.priority);
    env.insert(env.end(), spec.shim_env.begin(), spec.shim_env.end());
  }
  return env;
}

std::string Describe(const JobSpec& spec) {
  if (!spec.shim) return absl::StrCat(spec.model, " (no shim)");
  std::string text = spec.model;
  if (spec.priority) absl::StrAppend(&text, " ", *spec.priority);
  if (spec.share) absl::StrAppend(&text, " share ", Number(*spec.share));
  if (spec.sync_kernel) absl::StrAppend(&text, " sync=kernel");
  return text;
}

}  // namespace iashim::gatebench
