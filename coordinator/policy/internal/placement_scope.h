// Private to InterferenceAwarePlacement (interference_placement.cc): the GPUs
// one request may use, grouped by node, each with the jobs already on it.
// Built once per Place() call by one pass over the cluster and one over its
// jobs; every step of the placement (whole GPUs, sharing, whole nodes) reads
// the same Scope.
#ifndef IASHIM_POLICY_INTERNAL_PLACEMENT_SCOPE_H_
#define IASHIM_POLICY_INTERNAL_PLACEMENT_SCOPE_H_

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "coordinator/policy/cluster_state.h"
#include "coordinator/policy/placement.h"

namespace iashim::policy::placement_internal {

// A GPU the request may use, with the jobs already on it.
struct GpuView {
  const GpuInfo* gpu = nullptr;
  std::span<const PlacedJob> jobs;
  bool fits_ever = false;  // CanEverFit: the request's memory, were the GPU empty
  bool at_floor = false;   // ClusterState::co_runners_at_floor
};

// The GPUs a request may use, grouped by node, each with its jobs.
struct Scope {
  std::vector<GpuView> views;    // in GpuId order
  std::vector<size_t> nodes;     // views [nodes[i], nodes[i + 1]) are one node's
  std::vector<GpuId> placed_at;  // GPUs the job already holds (a retry)
};

// Fills `scope` (empty on entry) with the GPUs `r` may use in `state`: its
// GPU, its host or the cluster. The views point into `state`, which must
// outlive the scope.
void CollectScope(const PlacementRequest& r, const ClusterState& state, Scope* scope);

// Where the request may go, as its reasons name it: "a:0", "host a", "the
// cluster".
std::string ScopeName(const PlacementRequest& r);

// The most GPUs one node of the scope has.
size_t LargestNode(const Scope& scope);

// The job placed on views[chosen] (one GPU, or a gang on all of them).
PlacementDecision PlacedOn(std::span<const GpuView> views, std::span<const size_t> chosen,
                           std::string reason);

// The guaranteed jobs on `gpus` (of `views`): those a guaranteed job placed
// there runs beside (PlacementDecision::beside_guaranteed).
std::vector<std::string> GuaranteedOn(std::span<const GpuView> views,
                                      const std::vector<GpuId>& gpus);

inline bool JoinsBusyGpus(const PlacementRequest& r) { return r.join_busy_gpus; }

}  // namespace iashim::policy::placement_internal

#endif  // IASHIM_POLICY_INTERNAL_PLACEMENT_SCOPE_H_
