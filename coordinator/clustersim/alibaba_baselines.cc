#include "coordinator/clustersim/alibaba_baselines.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/clustersim/baseline_policies.h"
#include "coordinator/policy/best_fit.h"
#include "coordinator/policy/cluster_state.h"
#include "coordinator/policy/fragmentation.h"

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

// The cluster's GPUs in GpuId order with their rooms, and where each node's
// run of them starts (plus the end).
struct Rooms {
  std::vector<const GpuInfo*> gpus;
  std::vector<policy::GpuRoom> rooms;
  std::vector<std::span<const policy::PlacedJob>> jobs;  // per GPU
  std::vector<size_t> nodes;

  explicit Rooms(const ClusterState& state) : gpus(GpusInOrder(state)) {
    for (size_t i = 0; i < gpus.size(); ++i) {
      jobs.push_back(state.JobsOn(gpus[i]->id));
      rooms.push_back(policy::RoomOf(*gpus[i], jobs.back(), /*max_jobs_per_gpu=*/0));
      if (i == 0 || gpus[i]->id.host != gpus[i - 1]->id.host) nodes.push_back(i);
    }
    nodes.push_back(gpus.size());
  }

  std::span<const policy::GpuRoom> Node(size_t n) const {
    return {rooms.data() + nodes[n], nodes[n + 1] - nodes[n]};
  }
};

}  // namespace

PlacementDecision AlibabaFgd::Place(const PlacementRequest& r, const ClusterState& state) const {
  const Rooms all(state);
  policy::FragmentationMeter meter(mix_->Classes());
  const bool share = r.mem_bytes > 0 && r.gpu_count == 1;
  std::vector<size_t> best;
  double best_delta = 0;
  std::vector<size_t> chosen;
  std::vector<policy::GpuRoom> after;
  for (size_t n = 0; n + 1 < all.nodes.size(); ++n) {
    const std::span<const policy::GpuRoom> node = all.Node(n);
    if (share) {
      for (size_t i = 0; i < node.size(); ++i) {
        const size_t g = all.nodes[n] + i;
        if (!policy::FitsNow(*all.gpus[g], all.jobs[g], r.mem_bytes)) continue;
        const double delta = meter.Delta(
            node, i,
            policy::RoomAfter(node[i], r.mem_bytes, all.jobs[g].size(), /*max_jobs_per_gpu=*/0));
        if (best.empty() || delta < best_delta) {
          best = {g};
          best_delta = delta;
        }
      }
      continue;
    }
    chosen.clear();
    after.clear();
    for (size_t i = 0; i < node.size() && chosen.size() < static_cast<size_t>(r.gpu_count); ++i) {
      if (!node[i].empty) continue;
      chosen.push_back(i);
      after.push_back(policy::RoomAfter(node[i], 0, 0, /*max_jobs_per_gpu=*/0));
    }
    if (chosen.size() < static_cast<size_t>(r.gpu_count)) continue;
    const double delta = chosen.size() == 1 ? meter.Delta(node, chosen[0], after[0])
                                            : meter.DeltaSet(node, chosen, after);
    if (best.empty() || delta < best_delta) {
      best.clear();
      for (size_t i : chosen) best.push_back(all.nodes[n] + i);
      best_delta = delta;
    }
  }
  if (best.empty()) {
    if (share) return NoGpuWithRoom(r);
    return WholeGpus({}, r.gpu_count);
  }
  if (share) return PlacementDecision::Placed(all.gpus[best[0]]->id, "the least fragmentation");
  std::vector<GpuId> ids;
  for (size_t g : best) ids.push_back(all.gpus[g]->id);
  return PlacedOnEmpty(std::move(ids));
}

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
