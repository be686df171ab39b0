// One measured run: starts a set of iashim-fakejob processes on a fresh
// simulated GPU, waits for the warm-up, snapshots simgpu's per-process
// accounting at both ends of the window, stops the jobs with SIGINT and reads
// each one's summary. The jobs are killed and the device files removed
// whatever happens.
#ifndef IASHIM_BENCH_GATE_JOB_RUNNER_H_
#define IASHIM_BENCH_GATE_JOB_RUNNER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/gate/child_process.h"
#include "bench/gate/device_probe.h"
#include "bench/gate/job_command.h"

namespace iashim::gatebench {

struct Timing {
  double warmup_s = 1.5;
  double window_s = 4.0;
  double start_timeout_s = 30;  // driver + shim load, module load, allocation
  // SIGINT ends a job after its current iteration, which a low share can
  // stretch to seconds.
  double stop_timeout_s = 60;
};

struct JobResult {
  ProcessCounters window;          // counter increase over the window
  double iters_per_s = 0;          // in the window: completed kernels / kernels per iteration
  double summary_iters_per_s = 0;  // the job's own summary, over its whole run
};

struct RunResult {
  double window_s = 0;          // device clock between the snapshots
  double busy_fraction = 0;     // of the window, with any kernel running
  std::vector<JobResult> jobs;  // in the order of the specs
};

// Starts a process that runs beside the jobs in the run's simgpu namespace
// (harvest mode's coordinator): before the jobs, stopped after them.
using StartBeside =
    std::function<absl::StatusOr<std::unique_ptr<ChildProcess>>(const std::string& simgpu_namespace)>;

// Errors name the job and carry the end of its stderr. `inherited_env` is
// passed to JobEnv. A process `beside` that exits during the run fails it.
absl::StatusOr<RunResult> RunJobs(const Paths& paths, const Timing& timing,
                                  const std::vector<JobSpec>& specs,
                                  const std::vector<std::string>& inherited_env,
                                  const StartBeside& beside = nullptr);

// Removes the device files of runs whose benchmark died without cleaning up
// (SIGKILL): /dev/shm/iashim-gate-<pid>-* of pids that no longer exist.
void RemoveOrphanedDeviceFiles();

// The "iters_per_s" of the last summary line in a job's stdout.
absl::StatusOr<double> SummaryItersPerS(const std::string& stdout_text);

}  // namespace iashim::gatebench

#endif  // IASHIM_BENCH_GATE_JOB_RUNNER_H_
