// A PlaceRequest read and checked before anything of the coordinator's state
// is consulted: every refusal that depends on the request alone, with the
// message the client shows. Pure, so each rule is unit-tested without a
// coordinator; Coordinator::OnPlace then decides (the placement policy) and
// applies (registers the job).
#ifndef IASHIM_COORDINATOR_DAEMON_PLACE_REQUEST_H_
#define IASHIM_COORDINATOR_DAEMON_PLACE_REQUEST_H_

#include <cstdint>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "coordinator/daemon/job.h"
#include "coordinator/policy/priority.h"

namespace iashim::wire {
struct PlaceRequest;
}  // namespace iashim::wire

namespace iashim::daemon {

// A gang's size: GPUs of one node a job may ask for at once.
inline constexpr int kMaxGangGpus = 64;

struct PlaceAsk {
  std::string job;      // the id asked for; empty: the coordinator names the job
  std::string command;  // for display
  std::string kind;     // the model's kind; empty: unknown
  std::string host;     // the client's node, as it names it; empty: none given
  policy::Priority priority = policy::Priority::kGuaranteed;
  uint64_t mem_bytes = 0;       // 0: the whole GPU
  int gpu = -1;                 // a GPU index on host; -1: the coordinator chooses
  int gpus = 1;                 // GPUs used at once; more than 1: a gang on one node
  double slowdown_target = 0;   // 0: the coordinator's default
  std::set<int> allowed_gpus;   // GPU indexes on host the job may use; empty: any
  BatchIds batch;               // system empty: none
  bool dry_run = false;         // where it would go; nothing registered
  // A dry run: Slurm starts no guaranteed job or gang on a node whose
  // guaranteed jobs and gangs would then use more GPUs than it has
  // (job_submit.lua's count-only GRES, policy::AsksGuaranteedGres).
  bool guaranteed_gres = false;
  bool movable = false;  // resumes from a checkpoint when requeued (Job::movable)
};

// The request's values, or InvalidArgument with a message naming what is
// wrong (the PlaceReply's error).
absl::StatusOr<PlaceAsk> ReadPlaceRequest(const wire::PlaceRequest& request);

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_PLACE_REQUEST_H_
