// One job as the coordinator tracks it: what it was placed with (persisted as
// a state::JobRecord), its connection, its profile and the budget it was sent.
#ifndef IASHIM_COORDINATOR_DAEMON_JOB_H_
#define IASHIM_COORDINATOR_DAEMON_JOB_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/policy/cluster.h"
#include "coordinator/policy/job_profile.h"
#include "coordinator/policy/priority.h"
#include "coordinator/policy/run_slowdown.h"
#include "coordinator/policy/solo_probe.h"

namespace iashim::daemon {

// The batch system's ids of a job (wire BatchJob), e.g. {"slurm", "1234", "0",
// 0}; `system` empty: no batch system placed it.
struct BatchIds {
  std::string system;
  std::string job;
  std::string step;
  int task = -1;  // the local task id; -1 = none
};

// One process of a gang job, by its rank (Hello.rank, or the order in which
// the job's processes said Hello). Ranks' telemetry windows interleave, so
// each rank folds its own profile; the gang runs at its slowest rank's speed.
struct RankProcess {
  std::string identity;  // ROUTER routing id; empty while not connected
  int pid = 0;
  std::string host;
  bool connected = false;
  int64_t last_seen_ns = 0;  // coordinator's CLOCK_MONOTONIC
  uint64_t mem_used_bytes = 0;  // on its GPU, at its latest window
  policy::JobProfile profile;
};

struct Job {
  std::string id;
  policy::Priority priority = policy::Priority::kGuaranteed;
  uint64_t mem_bytes = 0;              // reserved (the quota); 0 = whole GPU
  std::optional<policy::GpuId> gpu;    // nullopt: unplaced (a shim no one placed, on a
                                       // node with several GPUs)
  // A gang's GPUs, in rank order (gang_gpus[0] == *gpu; CUDA_VISIBLE_DEVICES
  // lists them in this order); empty for a one-GPU job.
  std::vector<policy::GpuId> gang_gpus;
  double slowdown_target = 0.10;
  int64_t registered_unix_ns = 0;
  std::string command;
  std::string kind;  // the model as the interference model knows it (iashim run --kind); may be empty
  // What a shim's Hello must present to be this job's process (job_token.h).
  // Empty only for a job restored from a state written before tokens.
  std::string token;
  BatchIds batch;  // from PlaceRequest.batch; persisted, shown in status
  // It resumes from a checkpoint when requeued (PlaceRequest.movable): the
  // coordinator may move it (coordinator_move.cc). Not persisted: after a
  // restart no job is moved that is not placed again.
  bool movable = false;

  // The process, once its shim said Hello. A gang's processes are its ranks;
  // these fields are then its lead's (the lowest connected rank), whose
  // windows feed `profile`, and `connected` says whether any rank is.
  std::map<int, RankProcess> ranks;  // gangs only
  std::string identity;  // ROUTER routing id; empty while not connected
  int pid = 0;
  std::string host;
  bool connected = false;
  // Fell silent without a Goodbye (its process, or its node, died or was cut
  // off); until a process of it says Hello again or it is forgotten.
  bool lost = false;
  int64_t last_seen_ns = 0;     // coordinator's CLOCK_MONOTONIC
  int64_t created_ns = 0;       // placed (or restored) at

  // Telemetry.
  policy::JobProfile profile;
  uint64_t telemetry_batches = 0;
  double held_per_s = 0;
  uint64_t mem_used_bytes = 0;
  uint64_t mem_limit_bytes = 0;
  double telemetry_s = 0;        // accepted windows' length, summed
  double window_s = 0;           // the latest window's length
  bool baseline_seeded = false;
  double baseline_saved_ns = 0;  // last baseline written to the state store

  // Budget.
  double share = 1.0;            // in force (as the shim reports it, or as sent)
  double sent_share = 1.0;
  int64_t budget_sent_ns = 0;    // 0 = never sent
  int64_t share_changed_ns = 0;  // when a budget last changed the share sent
  // An opportunistic job held under a full share by a control loop: the GPU
  // of the loop that set it (a gang's least) and the guaranteed jobs that
  // loop defends there; set at each control tick, for status (not stored).
  struct ShareSource {
    policy::GpuId gpu;
    std::vector<std::string> defends;
  };
  std::optional<ShareSource> share_set_by;
  // The guaranteed jobs this (opportunistic) job's share was already capped
  // for: it is capped at Coordinator::ProtectiveShare once per guaranteed job
  // it meets, when they first share a GPU, and the control loop takes it from
  // there (coordinator_control.cc). Not persisted: after a restart the cap is
  // applied once more.
  std::set<std::string> capped_for;

  // As a guaranteed job: its run's slowdown so far, from the control loop's
  // samples (a gang's time beside guaranteed jobs included); its loop target is lowered
  // while the run is over its aim (policy/run_slowdown.h). Not persisted: a
  // restart starts it afresh.
  policy::RunSlowdown run;

  // Solo probe (coordinator_probe.cc): as the guaranteed job probed, and its
  // iteration time when the hold began (beside its co-runners as they were)...
  policy::SoloProbe probe;
  std::optional<double> iteration_before_probe_ns;
  // ...and as a co-runner held for it: the share to give back, and the factor
  // the probed job's speed before the hold takes it down by (never persisted,
  // so a restart mid-probe cannot leave it held).
  bool held = false;
  double share_before_hold = 1.0;
  double release_factor = 1.0;

  bool is_gang() const { return gang_gpus.size() > 1; }
};

// A profile as the daemon folds windows into it (every job's and rank's).
policy::JobProfile NewJobProfile();

// Every GPU `job` holds, in rank order: a gang's, its one GPU, or none.
std::vector<policy::GpuId> GpusOf(const Job& job);

// "node1:0" for a one-GPU job, "node1:0,1,2,3" for a gang (its GPUs are on
// one node), "unplaced" for none: /metrics' gpu label (one series per job
// either way) and the event log's.
std::string GpusName(const Job& job);

// The GPU of a gang's rank (nullopt when the rank is past its GPUs).
std::optional<policy::GpuId> RankGpu(const Job& job, int rank);

// The job's recent iteration time: a gang runs at its slowest connected
// rank's speed; a one-process job (or a gang whose ranks know none yet), its
// profile's. nullopt when unknown.
std::optional<double> IterationNs(const Job& job);

// Forgets the job's speed, its profile's and every rank's
// (JobProfile::ForgetSpeed): its slowdown is unknown until it has run again.
void ForgetSpeed(Job& job);

// Iteration time / solo baseline - 1, as the control loop and status see it:
// a gang's worst connected rank's (each rank measures against its own
// baseline), else the profile's. nullopt when unknown.
std::optional<double> Slowdown(const Job& job);

// What Slowdown(job) would read were the job iterating in `iteration_ns`: a
// gang's every rank iterates at the gang's pace, so its worst is the rank with
// the least connected baseline; else the profile's baseline. nullopt without
// a baseline.
std::optional<double> SlowdownAt(const Job& job, double iteration_ns);

// The slowdown the job ran at beside its co-runners when its probe's hold
// began (SlowdownAt its iteration then); nullopt before a probe, or without
// a baseline.
std::optional<double> SlowdownBeforeProbe(const Job& job);

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_JOB_H_
