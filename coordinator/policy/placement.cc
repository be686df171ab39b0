#include "coordinator/policy/placement.h"

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
