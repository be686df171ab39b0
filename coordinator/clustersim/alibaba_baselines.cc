#include "coordinator/clustersim/alibaba_baselines.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/clustersim/baseline_policies.h"
#include "coordinator/policy/best_fit.h"
#include "coordinator/policy/cluster_state.h"

namespace iashim::clustersim {
namespace {

using policy::ClusterState;
using policy::GpuId;
using policy::GpuInfo;
using policy::PlacementDecision;
using policy::PlacementRequest;

PlacementDecision WholeGpus(const std::vector<const GpuInfo*>& chosen, int k) {
  if (chosen.empty()) {
    return PlacementDecision::Queued(absl::StrCat("no node has ", k, " empty GPU(s) now"));
  }
  std::vector<GpuId> ids;
  for (const GpuInfo* g : chosen) ids.push_back(g->id);
  return PlacedOnEmpty(std::move(ids));
}

// The first node, in host order, with k empty GPUs: its first k.
std::vector<const GpuInfo*> FirstNodeWith(std::span<const GpuInfo* const> empty, int k) {
  for (size_t begin = 0; begin < empty.size();) {
    size_t end = begin + 1;
    while (end < empty.size() && empty[end]->id.host == empty[begin]->id.host) ++end;
    if (end - begin >= static_cast<size_t>(k)) {
      return {empty.begin() + begin, empty.begin() + begin + k};
    }
    begin = end;
  }
  return {};
}

// Capacity a share-of-one-GPU request would leave on `g`, or -1 when it does
// not fit there now.
int64_t LeftAfter(const GpuInfo& g, const ClusterState& state, uint64_t share) {
  const std::span<const policy::PlacedJob> jobs = state.JobsOn(g.id);
  if (!policy::FitsNow(g, jobs, share)) return -1;
  return static_cast<int64_t>(policy::FreeBytes(g, jobs)) - static_cast<int64_t>(share);
}

PlacementDecision NoGpuWithRoom(const PlacementRequest& r) {
  return PlacementDecision::Queued(absl::StrCat("no GPU has ", r.mem_bytes, " free now"));
}

}  // namespace

PlacementDecision AlibabaBestFit::Place(const PlacementRequest& r,
                                        const ClusterState& state) const {
  if (r.mem_bytes == 0 || r.gpu_count > 1) {
    return WholeGpus(policy::BestFitEmptyGpus(EmptyGpusInOrder(state), r.gpu_count), r.gpu_count);
  }
  const GpuInfo* best = nullptr;
  int64_t best_left = 0;
  for (const GpuInfo* g : GpusInOrder(state)) {
    const int64_t left = LeftAfter(*g, state, r.mem_bytes);
    if (left < 0) continue;
    if (best == nullptr || left < best_left) {
      best = g;
      best_left = left;
    }
  }
  if (best == nullptr) return NoGpuWithRoom(r);
  return PlacementDecision::Placed(best->id, "the tightest fit");
}

PlacementDecision AlibabaFirstFit::Place(const PlacementRequest& r,
                                         const ClusterState& state) const {
  if (r.mem_bytes == 0 || r.gpu_count > 1) {
    return WholeGpus(FirstNodeWith(EmptyGpusInOrder(state), r.gpu_count), r.gpu_count);
  }
  for (const GpuInfo* g : GpusInOrder(state)) {
    if (LeftAfter(*g, state, r.mem_bytes) >= 0) {
      return PlacementDecision::Placed(g->id, "the first GPU with room");
    }
  }
  return NoGpuWithRoom(r);
}

}  // namespace iashim::clustersim
