// The command line and environment of one iashim-fakejob process in a run:
// which driver and namespace it joins, whether the shim is preloaded, and the
// budget it asks the shim for. Pure, so tests can check what a job gets.
#ifndef IASHIM_BENCH_GATE_JOB_COMMAND_H_
#define IASHIM_BENCH_GATE_JOB_COMMAND_H_

#include <optional>
#include <string>
#include <vector>

namespace iashim::gatebench {

// Where the pieces of this build are.
struct Paths {
  std::string fakejob;     // build/bench/iashim-fakejob
  std::string shim;        // build/libiashim/libiashim.so
  std::string simgpu_dir;  // build/simgpu (holds libcuda.so.1)
  std::string coordinator;  // build/coordinator/daemon/iashim-coordinator (harvest mode)
};

struct JobSpec {
  std::string model;                    // name, for tables and messages
  std::string profile;                  // its .model file, passed to --model as a path
  double kernels_per_iter = 1;          // from the profile: turns kernels into iterations
  bool shim = true;                     // LD_PRELOAD libiashim.so
  std::optional<double> share;          // IASHIM_SHARE
  std::optional<std::string> priority;  // IASHIM_PRIORITY
  bool sync_kernel = false;             // --sync kernel
  std::optional<double> host_gap_us;    // --host-gap-us
  std::vector<std::string> shim_env;    // more "NAME=value" for the shim (IASHIM_COORDINATOR...)
};

// argv (argv[0] included). The job runs until it is sent SIGINT.
std::vector<std::string> JobArgv(const Paths& paths, const JobSpec& spec);

// `inherited` ("NAME=value" entries, as environ) without anything that would
// change what the job measures (LD_PRELOAD, LD_LIBRARY_PATH, SIMGPU_*,
// IASHIM_*, CUDA_VISIBLE_DEVICES), plus the job's own settings.
std::vector<std::string> CleanEnv(const std::vector<std::string>& inherited, const Paths& paths,
                                  const std::string& simgpu_namespace);
// CleanEnv plus the shim and its settings.
std::vector<std::string> JobEnv(const std::vector<std::string>& inherited, const Paths& paths,
                                const JobSpec& spec, const std::string& simgpu_namespace);

// "guaranteed" / "opportunistic" label for tables; "-" without the shim.
std::string Describe(const JobSpec& spec);

}  // namespace iashim::gatebench

#endif  // IASHIM_BENCH_GATE_JOB_COMMAND_H_
