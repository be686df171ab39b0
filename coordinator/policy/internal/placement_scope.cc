#include "coordinator/policy/internal/placement_scope.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace iashim::policy::placement_internal {
namespace {

// Finds the node runs in `views`; returns whether `views` is in GpuId order.
// One string comparison per GPU (hosts), and an ordering one per node.
bool FindNodes(const std::vector<GpuView>& views, std::vector<size_t>* nodes) {
  nodes->clear();
  bool sorted = true;
  for (size_t i = 0; i < views.size(); ++i) {
    const GpuId& id = views[i].gpu->id;
    if (i > 0 && id.host == views[i - 1].gpu->id.host) {
      sorted = sorted && views[i - 1].gpu->id.index < id.index;
      continue;
    }
    if (i > 0) sorted = sorted && views[i - 1].gpu->id.host < id.host;
    nodes->push_back(i);
  }
  nodes->push_back(views.size());
  return sorted;
}

}  // namespace

// One pass over the cluster and one over the jobs (a merge of two sequences
// in GpuId order, comparing hosts once per GPU that has jobs), so no map
// lookup per GPU.
void CollectScope(const PlacementRequest& r, const ClusterState& state, Scope* scope) {
  std::vector<GpuView>& views = scope->views;
  for (const GpuInfo& g : state.cluster.gpus) {
    const bool in_scope =
        r.gpu.has_value() ? g.id == *r.gpu : (r.host.empty() || g.id.host == r.host);
    if (in_scope) views.push_back({&g, {}, CanEverFit(g, r.mem_bytes)});
  }
  if (!FindNodes(views, &scope->nodes)) {
    std::sort(views.begin(), views.end(),
              [](const GpuView& a, const GpuView& b) { return a.gpu->id < b.gpu->id; });
    FindNodes(views, &scope->nodes);
  }
  const std::vector<size_t>& nodes = scope->nodes;
  size_t node = 0;  // the node of the previous entry, or the next one
  size_t at = 0;    // within it, the first view not yet passed
  for (const auto& [id, jobs] : state.jobs) {
    if (!r.job.empty()) {
      for (const PlacedJob& j : jobs) {
        // Ids differ mostly at the end ("pod-0123"): compared from there,
        // most mismatches cost a character or two and no call.
        if (j.job.size() == r.job.size() &&
            std::equal(j.job.rbegin(), j.job.rend(), r.job.rbegin())) {
          scope->placed_at.push_back(id);
          break;
        }
      }
    }
    while (node + 1 < nodes.size()) {
      const int c = views[nodes[node]].gpu->id.host.compare(id.host);
      if (c < 0) {
        ++node;
        at = nodes[node];
        continue;
      }
      if (c == 0) {
        while (at < nodes[node + 1] && views[at].gpu->id.index < id.index) ++at;
        if (at < nodes[node + 1] && views[at].gpu->id.index == id.index) views[at].jobs = jobs;
      }
      break;
    }
  }
  for (const GpuId& id : state.co_runners_at_floor) {  // a few GPUs at most
    const auto it =
        std::lower_bound(views.begin(), views.end(), id,
                         [](const GpuView& v, const GpuId& g) { return v.gpu->id < g; });
    if (it != views.end() && it->gpu->id == id) it->at_floor = true;
  }
}

std::string ScopeName(const PlacementRequest& r) {
  if (r.gpu.has_value()) return GpuName(*r.gpu);
  if (r.host.empty()) return "the cluster";
  return absl::StrCat("host ", r.host);
}

size_t LargestNode(const Scope& scope) {
  size_t largest = 0;
  for (size_t n = 0; n + 1 < scope.nodes.size(); ++n) {
    largest = std::max(largest, scope.nodes[n + 1] - scope.nodes[n]);
  }
  return largest;
}

PlacementDecision PlacedOn(std::span<const GpuView> views, std::span<const size_t> chosen,
                           std::string reason) {
  if (chosen.size() == 1) {
    return PlacementDecision::Placed(views[chosen[0]].gpu->id, std::move(reason));
  }
  std::vector<GpuId> gpus;
  for (size_t c : chosen) gpus.push_back(views[c].gpu->id);
  return PlacementDecision::PlacedGang(std::move(gpus), std::move(reason));
}

std::vector<std::string> GuaranteedOn(std::span<const GpuView> views,
                                      const std::vector<GpuId>& gpus) {
  std::vector<std::string> guaranteed;
  for (const GpuView& v : views) {
    if (std::find(gpus.begin(), gpus.end(), v.gpu->id) == gpus.end()) continue;
    for (const PlacedJob& j : v.jobs) {
      if (j.priority == Priority::kGuaranteed) guaranteed.push_back(j.job);
    }
  }
  return guaranteed;
}

}  // namespace iashim::policy::placement_internal
