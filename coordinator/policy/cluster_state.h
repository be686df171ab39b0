// The cluster as a placement policy sees it at one moment: every GPU
// (Cluster) and the jobs already placed on each.
#ifndef IASHIM_POLICY_CLUSTER_STATE_H_
#define IASHIM_POLICY_CLUSTER_STATE_H_

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "coordinator/policy/cluster.h"
#include "coordinator/policy/interference_model.h"
#include "coordinator/policy/priority.h"

namespace iashim::policy {

struct PlacedJob {
  std::string job;
  Priority priority = Priority::kGuaranteed;
  uint64_t mem_bytes = 0;         // memory reserved for it; 0 = the whole GPU
  double busy = 0;                // its GPU busy fraction (JobProfile::busy()), 0 when unknown
  JobTraits traits;               // what the interference model knows it as
  int gpu_count = 1;              // GPUs the job holds in all (it is listed on each)
  double slowdown_target = 0.10;  // guaranteed jobs: allowed slowdown (placement defends it)
};

struct ClusterState {
  Cluster cluster;
  // Jobs on each GPU; a GPU that is not a key has none. An ordered map, so
  // that every policy walks GPUs in the same order and decides the same way
  // in the daemon and in iashim-clustersim.
  std::map<GpuId, std::vector<PlacedJob>> jobs;
  // GPUs' worth of capacity asked by requests waiting in the queue (not the
  // one being placed): how scarce capacity is beyond what `jobs` shows.
  double queued_gpus = 0;
  // GPUs whose control loop holds every opportunistic job at its least share
  // to defend a guaranteed job there (measured, not predicted): a newcomer
  // would get no share that the guaranteed job does not pay for, whatever
  // the interference model says. Empty where no loop runs (the simulator).
  std::set<GpuId> co_runners_at_floor;

  // nullptr when the cluster has no such GPU.
  const GpuInfo* FindGpu(const GpuId& id) const;
  // Jobs on `id` (empty when none or no such GPU).
  std::span<const PlacedJob> JobsOn(const GpuId& id) const;
  // Where `job` is placed, or nullptr.
  const GpuId* FindJob(const std::string& job) const;
  // Every GPU `job` is placed on, in GpuId order (a gang is listed on each).
  std::vector<GpuId> FindJobGpus(const std::string& job) const;
  // Per host, how many of its guaranteed GRES are in use: one per GPU there
  // of each job that asks for it (AsksGuaranteedGres), as Slurm counts them.
  // A host where none is in use is not a key.
  std::map<std::string, int> GuaranteedGresUsed() const;
};

// Whether a job asks Slurm for a node's count-only guaranteed GRES, one per
// GPU it uses there (job_submit.lua's IASHIM_GUARANTEED_GRES; a node has as
// many as GPUs): a guaranteed job, and a gang, which Slurm gives whole GPUs,
// opportunistic or not. So a job that asks starts only on a node with that
// many GPUs free of guaranteed jobs and gangs: a gang is never given a
// guaranteed job's GPU for want of others (gangs hold them), nor a guaranteed
// job a gang's.
bool AsksGuaranteedGres(Priority priority, int gpu_count);

// "host:index", for reasons and logs.
std::string GpuName(const GpuId& id);

// Memory the jobs on `gpu` have reserved; a job that reserved the whole GPU
// counts as all of it. Saturates instead of overflowing.
uint64_t ReservedBytes(const GpuInfo& gpu, std::span<const PlacedJob> jobs);

// Memory still free for reservation on `gpu` (0 when over-reserved).
uint64_t FreeBytes(const GpuInfo& gpu, std::span<const PlacedJob> jobs);

// Whether a reservation of `mem_bytes` (0 = the whole GPU) fits on `gpu` now,
// next to `jobs`. A whole-GPU reservation needs a GPU without jobs and leaves
// room for none. A GPU whose memory_bytes is 0 (not known) fits any sized
// reservation: the shim's quota still enforces what was asked for.
bool FitsNow(const GpuInfo& gpu, std::span<const PlacedJob> jobs, uint64_t mem_bytes);

// Whether the reservation could fit on `gpu` if it were empty.
bool CanEverFit(const GpuInfo& gpu, uint64_t mem_bytes);

// Sum of the jobs' busy fractions (may exceed 1: they contend); non-finite
// or negative values count as 0.
double TotalBusy(std::span<const PlacedJob> jobs);

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_CLUSTER_STATE_H_
