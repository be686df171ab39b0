// How much of the CPUs it may use the process kept busy itself, and so whose
// a thread's wait for a CPU was.
//
// A thread waits in the run queue behind other processes (the host's load,
// which the coordinator takes out of a solo baseline: policy/solo_baseline.h)
// or behind its own process's threads, when the process runs more threads
// than the CPUs it may use (data loaders, an intra-op pool, on the cores a
// Slurm cgroup gives it). The second kind is the job's speed alone: it waits
// so on an idle host too, and taken out, its baseline would read fast and its
// co-runners be cut for a slowdown that is not there. What tells them apart is
// what the job got: one that ran for most of the CPU time its CPUs offered
// in a window was not kept off them by others, whatever its threads waited
// for; one that got less while a thread waited was. The job is the process,
// or the cgroup made for it where there is one (CpuAllowance).
#ifndef IASHIM_OWN_CPU_USE_H_
#define IASHIM_OWN_CPU_USE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace iashim {

// From this fraction of its CPUs busy, a window's wait counts as the
// process's own. Not fitted: a process with more runnable threads than CPUs
// keeps them busy but for its wake-ups and the shim's own reading, and one
// that others keep off its CPUs gets visibly less; a tenth is left for the
// first.
inline constexpr double kOwnCpusBusy = 0.9;

// The wait the host caused: `wait_ns`, unless the process kept at least
// kOwnCpusBusy of its CPUs busy in the window (`busy_fraction`), then 0.
// Unknown use (nullopt) leaves the wait as it is.
uint64_t WaitOthersCaused(uint64_t wait_ns, std::optional<double> busy_fraction);

// CPUs per second a cgroup v2 `cpu.max` line allows ("200000 100000": 2.0);
// nullopt for no limit ("max 100000") or a line that is not one.
std::optional<double> ParseCpuMax(std::string_view text);

// The CPUs in a cpuset list ("0-3,8,10-11\n": 7); nullopt for text that is
// not one.
std::optional<int> ParseCpuList(std::string_view text);

// The `usage_usec` of a cgroup v2 `cpu.stat` text; nullopt without one.
std::optional<uint64_t> ParseUsageUsec(std::string_view text);

// The CPUs a job may use, and whose use of them counts as its own.
struct CpuAllowance {
  // Its affinity mask's CPUs, or fewer where its cgroup v2 (or an
  // ancestor's) `cpu.max` allows less.
  double cpus = 1;
  // The process's own cgroup v2 directory when that cgroup is confined (a
  // `cpu.max` quota on it or above it, or a `cpuset.cpus.effective` with fewer
  // CPUs than the machine has online): such a cgroup was made for the job
  // (Slurm's ConstrainCores, a container's limit), and its usage counts the
  // job's data loaders and other processes too, which crowd its CPUs as
  // surely as its own threads. Empty otherwise: the process alone counts (a
  // login session's cgroup holds other people's work).
  std::string job_cgroup;
};

// `proc_cgroup`: the process's /proc/PID/cgroup; `cgroup_root`: where the v2
// hierarchy is mounted; `online_cpus`: the machine's (a test's own for all
// three). Unreadable files mean no quota and no cgroup of the job's own.
CpuAllowance FindCpuAllowance(const std::string& proc_cgroup = "/proc/self/cgroup",
                              const std::string& cgroup_root = "/sys/fs/cgroup",
                              int online_cpus = 0);

class OwnCpuUse {
 public:
  // The process's own: FindCpuAllowance() on the first call, then its job
  // cgroup's usage where it has one, else CLOCK_PROCESS_CPUTIME_ID.
  OwnCpuUse();
  // `allowed_cpus` (> 0) and `cpu_time_ns` (the job's CPU time so far): a
  // test's own.
  OwnCpuUse(double allowed_cpus, std::function<uint64_t()> cpu_time_ns);

  // The fraction of its CPUs' time the job used since the previous call
  // (`now_ns`: MonotonicNs(), or a test's clock); nullopt on the first call
  // or when no time has passed.
  std::optional<double> TakeBusyFraction(uint64_t now_ns);

  double allowed_cpus() const { return allowed_cpus_; }
  // The cgroup whose usage counts, or "" (the process alone).
  const std::string& job_cgroup() const { return job_cgroup_; }

 private:
  double allowed_cpus_;
  std::function<uint64_t()> cpu_time_ns_;
  std::string job_cgroup_;
  std::optional<uint64_t> last_now_ns_;
  uint64_t last_cpu_ns_ = 0;
};

}  // namespace iashim

#endif  // IASHIM_OWN_CPU_USE_H_
