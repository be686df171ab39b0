// Where should an arriving job run? The interface every placement policy
// implements, and what goes in and out of it.
//
// A policy is a pure function of the request and the cluster's state at that
// moment: it keeps no hidden mutable state, reads no clock, does no I/O, so
// the daemon and iashim-clustersim can ask the same policy the same question
// and get the same answer, and a policy can be tested from plain values.
// Whatever a smarter policy needs beyond ClusterState (job profiles by
// fingerprint, a learned interference model) it receives at construction and
// reads during Place(); `Place` is const so one policy object can serve
// concurrent callers.
//
// Outcomes:
//  - kPlaced: run the job on `gpu` now.
//  - kQueued: it could run somewhere in this cluster, but not now (memory is
//    reserved, or the only candidates would break a rule); ask again later.
//  - kRejected: it can never run as asked (no such GPU or host, more memory
//    than any candidate GPU has); asking again will not help.
// `reason` is a sentence for people (`iashim run`, logs), never parsed.
#ifndef IASHIM_POLICY_PLACEMENT_H_
#define IASHIM_POLICY_PLACEMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/policy/cluster.h"
#include "coordinator/policy/cluster_state.h"
#include "coordinator/policy/interference_model.h"
#include "coordinator/policy/priority.h"

namespace iashim::policy {

struct PlacementRequest {
  std::string job;  // job id; the same id already placed yields its GPU again
  Priority priority = Priority::kGuaranteed;
  uint64_t mem_bytes = 0;               // memory quota asked for; 0 = the whole GPU
  std::optional<GpuId> gpu;             // exactly this GPU
  std::string host;                     // without `gpu`: any GPU on this node; empty = anywhere
  std::optional<uint64_t> fingerprint;  // the model (JobProfile::fingerprint()) if known
  double slowdown_target = 0.10;        // guaranteed jobs: allowed slowdown
  JobTraits traits;                     // what the interference model knows it as
  int gpu_count = 1;                    // a gang: this many GPUs of one node, all at once
  // A whole-GPU request (mem_bytes 0), or a gang's, that may start beside
  // the jobs on busy GPUs, in the memory they leave (a gang that states its
  // memory: that much on each GPU): Slurm 22.05 gives a job's gpu:k GPUs
  // whose shards are in use and then starts no shard job on them until it
  // ends, so waiting for them to empty holds them idle. Where the scope is
  // exactly gpu_count GPUs of one node (the batch system gave it them), it
  // starts there unless a rule forbids (two guaranteed jobs, jobs per GPU,
  // the share rule, a target throttling cannot keep). Otherwise, when no
  // node has the empty GPUs, it goes where sharing is predicted to gain
  // most, whatever min_gain says: the batch system starts it somewhere
  // anyway. A guaranteed job blocked only by a guaranteed one there joins
  // it (PlacementDecision::beside_guaranteed). Only
  // InterferenceAwarePlacement reads it.
  bool join_busy_gpus = false;
  // The node where the rest of this job's batch step already runs (empty:
  // nowhere yet): a step on several nodes asks once per node, and the ranks
  // already started wait in their first collective for this part. So on
  // the GPUs the batch system gave it (join_busy_gpus) it is not held for
  // want of room for the control loop or a target throttling cannot keep
  // (it runs at the least share): holding it frees nothing and keeps the
  // whole step's GPUs waiting. Memory, the share rule and max_jobs_per_gpu
  // still hold. Only InterferenceAwarePlacement reads it.
  std::string step_runs_on;
};

struct PlacementDecision {
  enum class Outcome { kPlaced, kQueued, kRejected };

  Outcome outcome = Outcome::kRejected;
  GpuId gpu;  // meaningful when kPlaced: the first (or only) GPU
  std::vector<GpuId> gpus;  // when kPlaced: every GPU of the job, gpus[0] == gpu
  std::string reason;
  // kPlaced: a guaranteed job joining busy GPUs (PlacementRequest::
  // join_busy_gpus) beside a guaranteed job there, rather than hold the GPUs
  // the scheduler gave it idle. Two targets cannot both be defended, so
  // neither is held for the other: the control loop holds only the
  // opportunistic jobs there, for both. (It once yielded, running as an
  // opportunistic job until that job ended: a survey of 128 simulated
  // segments found such gangs 2.8-9.2 times slower than alone.)
  bool beside_guaranteed = false;
  // kQueued, a job wider than a node that may join busy GPUs: the whole
  // nodes it would take once the gangs on them end (their other residents
  // as they are now), for a scheduler to prefer; empty: none.
  std::vector<GpuId> preferred;

  static PlacementDecision Placed(GpuId gpu, std::string reason);
  static PlacementDecision PlacedGang(std::vector<GpuId> gpus, std::string reason);
  static PlacementDecision Queued(std::string reason);
  static PlacementDecision Rejected(std::string reason);
};

std::string_view OutcomeName(PlacementDecision::Outcome outcome);

// GPUs' worth of capacity `r` asks: per GPU the whole of it (mem_bytes 0) or
// its memory's share of `largest_memory_bytes` (the cluster's largest GPU;
// 0, not known: the whole), times gpu_count (at least 1).
double GpusAsked(const PlacementRequest& r, uint64_t largest_memory_bytes);

// Whether two jobs may share a GPU at all, beyond memory (FitsNow). In
// iashim-clustersim it is whether the pair was ever measured together (a
// pair that did not fit in memory was not); every policy there gets the
// same rule, as every policy in the daemon gets the same memory check.
class ShareRule {
 public:
  virtual ~ShareRule() = default;
  virtual bool MayShare(const JobTraits& a, const JobTraits& b) const = 0;
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;

  // Decides for one request against the state at this moment. Does not
  // modify anything: the caller records the placement in its state.
  virtual PlacementDecision Place(const PlacementRequest& request,
                                  const ClusterState& state) const = 0;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_PLACEMENT_H_
