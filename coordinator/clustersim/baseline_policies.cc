#include "coordinator/clustersim/baseline_policies.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/clustersim/text.h"
#include "coordinator/policy/best_fit.h"

namespace iashim::clustersim {

using policy::ClusterState;
using policy::GpuId;
using policy::PlacementDecision;
using policy::PlacementRequest;

std::vector<const policy::GpuInfo*> GpusInOrder(const ClusterState& state) {
  std::vector<const policy::GpuInfo*> gpus;
  gpus.reserve(state.cluster.gpus.size());
  for (const policy::GpuInfo& g : state.cluster.gpus) gpus.push_back(&g);
  const auto by_id = [](const policy::GpuInfo* a, const policy::GpuInfo* b) {
    return a->id < b->id;
  };
  // The simulators list their clusters in GpuId order already: check, not sort.
  if (!std::is_sorted(gpus.begin(), gpus.end(), by_id)) std::sort(gpus.begin(), gpus.end(), by_id);
  return gpus;
}

std::vector<const policy::GpuInfo*> EmptyGpusInOrder(const ClusterState& state) {
  std::vector<const policy::GpuInfo*> empty = GpusInOrder(state);
  std::erase_if(empty, [&](const policy::GpuInfo* g) { return !state.JobsOn(g->id).empty(); });
  return empty;
}

PlacementDecision PlacedOnEmpty(std::vector<GpuId> gpus) {
  if (gpus.size() == 1) return PlacementDecision::Placed(gpus.front(), "an empty GPU");
  const size_t k = gpus.size();
  return PlacementDecision::PlacedGang(std::move(gpus), Cat(k, " empty GPUs of one node"));
}

std::optional<std::vector<GpuId>> EmptyGpus(const ClusterState& state, int count) {
  const std::vector<const policy::GpuInfo*> chosen =
      policy::BestFitEmptyGpus(EmptyGpusInOrder(state), count);
  if (chosen.empty()) return std::nullopt;
  std::vector<GpuId> ids;
  for (const policy::GpuInfo* g : chosen) ids.push_back(g->id);
  return ids;
}

bool MayJoin(const PlacementRequest& request, const ClusterState& state, const GpuId& gpu,
             const policy::ShareRule& rule) {
  if (request.gpu_count != 1) return false;
  const std::span<const policy::PlacedJob> here = state.JobsOn(gpu);
  return here.size() == 1 && here[0].gpu_count == 1 &&
         rule.MayShare(request.traits, here[0].traits);
}

namespace {

// Gangs and any job that finds empty GPUs: the same for every baseline.
std::optional<PlacementDecision> PlaceOnEmpty(const PlacementRequest& request,
                                              const ClusterState& state) {
  std::optional<std::vector<GpuId>> gpus = EmptyGpus(state, request.gpu_count);
  if (!gpus.has_value()) return std::nullopt;
  return PlacedOnEmpty(*std::move(gpus));
}

PlacementDecision NoRoom(const PlacementRequest& request) {
  return PlacementDecision::Queued(
      Cat("no node has ", request.gpu_count, " empty GPU(s) and no GPU can share"));
}

}  // namespace

PlacementDecision ExclusivePlacement::Place(const PlacementRequest& request,
                                            const ClusterState& state) const {
  if (std::optional<PlacementDecision> d = PlaceOnEmpty(request, state)) return *d;
  return NoRoom(request);
}

PlacementDecision FirstFitPlacement::Place(const PlacementRequest& request,
                                           const ClusterState& state) const {
  if (request.gpu_count != 1) {
    if (std::optional<PlacementDecision> d = PlaceOnEmpty(request, state)) return *d;
    return NoRoom(request);
  }
  const auto whole = [&](policy::Priority p) {
    return guaranteed_take_whole_gpus_ && p == policy::Priority::kGuaranteed;
  };
  for (const policy::GpuInfo& g : state.cluster.gpus) {
    const std::span<const policy::PlacedJob> here = state.JobsOn(g.id);
    if (here.empty()) return PlacementDecision::Placed(g.id, "the first GPU: empty");
    if (whole(request.priority) || whole(here[0].priority)) continue;
    if (MayJoin(request, state, g.id, *rule_)) {
      return PlacementDecision::Placed(g.id, "the first GPU that fits: shared");
    }
  }
  return NoRoom(request);
}

PlacementDecision IadeepPlacement::Place(const PlacementRequest& request,
                                         const ClusterState& state) const {
  if (std::optional<PlacementDecision> d = PlaceOnEmpty(request, state)) return *d;
  if (request.gpu_count != 1) return NoRoom(request);
  const GpuId* best = nullptr;
  double best_sum = 0;
  for (const policy::GpuInfo& g : state.cluster.gpus) {
    if (!MayJoin(request, state, g.id, *rule_)) continue;
    const policy::JobTraits& resident = state.JobsOn(g.id)[0].traits;
    const double sum = predictor_->Predict(request.traits, resident).throughput +
                       predictor_->Predict(resident, request.traits).throughput;
    if (best == nullptr || sum > best_sum) {
      best = &g.id;
      best_sum = sum;
    }
  }
  if (best == nullptr) return NoRoom(request);
  return PlacementDecision::Placed(
      *best, absl::StrFormat("least predicted interference: combined throughput %.2f", best_sum));
}

}  // namespace iashim::clustersim
