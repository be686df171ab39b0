// How a guaranteed job is protected by throttling its opportunistic
// co-runners, in the share controller's own model: harm proportional to the
// co-runners' share of GPU time. The placement scores by it, the daemon sets a
// newcomer's first budget by it, and iashim-clustersim simulates the
// controller by it.
#ifndef IASHIM_POLICY_PROTECTIVE_SHARE_H_
#define IASHIM_POLICY_PROTECTIVE_SHARE_H_

#include <algorithm>

namespace iashim::policy {

// The lowest normalised throughput a guaranteed job with `slowdown_target`
// may have: 1 / (1 + target).
inline double ThroughputFloor(double slowdown_target) {
  return 1.0 / (1.0 + std::max(0.0, slowdown_target));
}

// The share of GPU time the co-runners may hold so that a guaranteed job that
// keeps `p_guaranteed` of its speed next to them at full share runs at its
// floor: it loses (1 - p) at share 1, about s * (1 - p) at share s, so
// s = (1 - floor) / (1 - p). 1 when p already meets the floor; not bounded
// below (callers apply their smallest share).
inline double ProtectiveShare(double p_guaranteed, double slowdown_target) {
  const double floor = ThroughputFloor(slowdown_target);
  if (p_guaranteed >= floor) return 1.0;
  return (1.0 - floor) / std::max(1e-9, 1.0 - p_guaranteed);
}

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_PROTECTIVE_SHARE_H_
