#include "coordinator/policy/move_choice.h"

#include <cmath>

namespace iashim::policy {

std::optional<size_t> SlowestToMove(std::span<const MoveCandidate> candidates) {
  std::optional<size_t> slowest;
  double least = 1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const double kept = candidates[i].kept;
    if (std::isfinite(kept) && kept < least) slowest = i, least = kept;
  }
  return slowest;
}

}  // namespace iashim::policy
