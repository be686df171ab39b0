#include "coordinator/policy/placement.h"

#include <algorithm>
#include <utility>

namespace iashim::policy {

PlacementDecision PlacementDecision::Placed(GpuId gpu, std::string reason) {
  std::vector<GpuId> gpus{gpu};
  return {Outcome::kPlaced, std::move(gpu), std::move(gpus), std::move(reason)};
}

PlacementDecision PlacementDecision::PlacedGang(std::vector<GpuId> gpus, std::string reason) {
  GpuId first = gpus.empty() ? GpuId{} : gpus.front();
  return {Outcome::kPlaced, std::move(first), std::move(gpus), std::move(reason)};
}

PlacementDecision PlacementDecision::Queued(std::string reason) {
  return {Outcome::kQueued, GpuId{}, {}, std::move(reason)};
}

PlacementDecision PlacementDecision::Rejected(std::string reason) {
  return {Outcome::kRejected, GpuId{}, {}, std::move(reason)};
}

double GpusAsked(const PlacementRequest& r, uint64_t largest_memory_bytes) {
  const double share =
      r.mem_bytes == 0 || largest_memory_bytes == 0
          ? 1.0
          : std::min(1.0, static_cast<double>(r.mem_bytes) /
                              static_cast<double>(largest_memory_bytes));
  return std::max(1, r.gpu_count) * share;
}

std::string_view OutcomeName(PlacementDecision::Outcome outcome) {
  switch (outcome) {
    case PlacementDecision::Outcome::kPlaced:
      return "placed";
    case PlacementDecision::Outcome::kQueued:
      return "queued";
    case PlacementDecision::Outcome::kRejected:
      return "rejected";
  }
  return "unknown";
}

}  // namespace iashim::policy
