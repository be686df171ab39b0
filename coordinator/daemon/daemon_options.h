// iashim-coordinator's command line.
#ifndef IASHIM_COORDINATOR_DAEMON_DAEMON_OPTIONS_H_
#define IASHIM_COORDINATOR_DAEMON_DAEMON_OPTIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace iashim::daemon {

struct DaemonOptions {
  std::string listen = "tcp://127.0.0.1:5555";  // ROUTER: shims and tools
  std::string pub = "tcp://127.0.0.1:5556";     // PUB: state snapshots
  std::string state_dir;                        // default: $XDG_STATE_HOME/iashim
  std::string cluster_file;                     // empty: this node's GPUs from NVML
  std::string metrics;                          // HOST:PORT for /metrics; empty = off
  // Plain HTTP /metrics beyond loopback is refused unless acknowledged.
  bool metrics_allow_remote = false;
  // CurveZMQ (security/README.md): the coordinator's secret key file; empty
  // = no CURVE, and then --listen and --pub must be loopback.
  std::string curve_secret_key_file;
  std::vector<std::string> admin_key_files;  // public keys whose holders are the admin
  bool control = true;              // run the share control loop
  // Probe a guaranteed job that never ran alone (policy/solo_probe.h): hold
  // its co-runners for a second or two and measure its solo speed.
  bool probe = true;
  // Hold a guaranteed job's run to its target, not only each few seconds of
  // it: a run so far over 0.9 of its target lowers the loop's target until it
  // is back (policy/run_slowdown.h).
  bool run_target = true;
  // Placement: "interference" (learned interference model, may queue a job
  // when sharing would cost more than it gains) or "simple" (least busy GPU).
  std::string placement = "interference";
  double min_gain = 0.05;           // interference placement: progress sharing must add
  // Interference placement packs a share of one GPU by its fragmentation
  // term (policy/interference_placement.h) over the requests seen so far.
  bool packing = true;
  // A whole-GPU job no node has empty GPUs for goes beside the jobs where
  // sharing is predicted to gain most (policy::PlacementRequest::
  // join_busy_gpus), as Slurm 22.05 gives gpu:k GPUs whose shards are in
  // use. Off: it waits for empty GPUs. A job on exactly the GPUs its batch
  // system gave it joins them either way.
  bool join_busy_gpus = false;
  double slowdown_target = 0.10;    // default for guaranteed jobs
  // How a guaranteed gang's GPUs are controlled (gang_slowdown.h):
  // "straggler" (by the gang's iteration rate, each GPU charged what its rank
  // slows the gang), or for comparison "independent" (each GPU by its own
  // rank) or "average" (each GPU by the mean of the ranks').
  std::string gang_budgets = "straggler";
  double heartbeat_timeout_s = 3;   // silent this long: disconnected
  double forget_after_s = 60;       // disconnected (or placed, never seen) this long: removed
  double control_period_s = 1;
  double budget_ttl_s = 10;         // a shim unthrottles this long after the coordinator goes
  // A placed dry run holds its GPUs this long for the job that asked
  // (reservations.h): Slurm's scheduling and task launch take seconds; 0 = off.
  double reservation_ttl_s = 30;
  // Moving jobs (coordinator_move.cc): a GPU left with no job this long
  // (longer than the batch system takes to start what waits: Slurm's
  // bf_interval) takes the one-GPU opportunistic batch job running slowest
  // beside another (policy/move_choice.h), which move_command (run as
  // `COMMAND SLURM_JOB_ID HOST`) asks the batch system to requeue there.
  // Empty: no job is moved.
  std::string move_command;
  double move_after_empty_s = 30;
  double publish_period_s = 0.25;
  bool help = false;
  bool version = false;
};

// Parses argv[1..]. Errors name the option and the value.
absl::StatusOr<DaemonOptions> ParseDaemonOptions(const std::vector<std::string>& args);

// The --help text.
std::string DaemonUsage();

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_DAEMON_OPTIONS_H_
