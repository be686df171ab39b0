// Each job's share of its GPU's energy. Shims report their GPU's energy
// counter (NVML's total energy, the whole board's); at each attribution the
// ledger splits what each GPU drew since the previous one among the jobs on
// it, in proportion to their GPU time (their busy fractions then), evenly
// when none ran a kernel: a GPU's idle power is spent on the jobs holding it.
//
// Per iteration is the job's recent power (smoothed over about kPowerTauS)
// times its recent iteration time: counting iterations against joules would
// divide spans that do not match, as iterations arrive with each telemetry
// window and the energy with readings up to a second older.
//
// Readings arrive from several processes, each up to a second stale, so a
// GPU's counter is the highest reading seen; a lower one is stale. The
// counter restarts only when the driver does (a real driver reload, a fresh
// simgpu device), which happens with no process on the GPU, so a GPU with no
// connected job is forgotten and its next reading is a new starting point.
#ifndef IASHIM_COORDINATOR_DAEMON_ENERGY_LEDGER_H_
#define IASHIM_COORDINATOR_DAEMON_ENERGY_LEDGER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/policy/cluster.h"

namespace iashim::daemon {

class EnergyLedger {
 public:
  struct GpuTime {
    std::string job;
    double busy = 0;  // fraction of time the job's kernels ran, recently
  };

  static constexpr double kPowerTauS = 5.0;

  // A reading of `gpu`'s energy counter, in joules.
  void Reading(const policy::GpuId& gpu, double counter_j);
  // Splits what each GPU drew since the last call among the connected jobs on
  // it; `now_s` is any monotonic clock, for the GPU's power.
  void Attribute(const std::map<policy::GpuId, std::vector<GpuTime>>& jobs_by_gpu, double now_s);
  // The job is gone.
  void Forget(const std::string& job);

  // Joules attributed to `job`; nullopt before its first attribution.
  std::optional<double> Joules(const std::string& job) const;
  // Its recent power times `iteration_s`; nullopt before a first interval or
  // without an iteration time.
  std::optional<double> JoulesPerIteration(const std::string& job, double iteration_s) const;
  // `gpu`'s recent power (smoothed over about kPowerTauS); nullopt if unknown.
  std::optional<double> PowerWatts(const policy::GpuId& gpu) const;

 private:
  struct Gpu {
    double latest_j = 0;                 // highest reading
    std::optional<double> attributed_j;  // counter at the last attribution
    std::optional<double> attributed_s;
    std::optional<double> power_w;
  };
  struct JobEnergy {
    double joules = 0;
    std::optional<double> power_w;  // smoothed
  };
  std::map<policy::GpuId, Gpu> gpus_;
  std::map<std::string, JobEnergy> jobs_;  // jobs whose energy is being attributed
};

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_ENERGY_LEDGER_H_
