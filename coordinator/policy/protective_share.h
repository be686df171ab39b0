// How a guaranteed job is protected by throttling its opportunistic
// co-runners, in the share controller's own model: harm proportional to the
// co-runners' pace, the fraction of their unthrottled speed beside it that
// they keep. The placement scores by it, the daemon sets a newcomer's first
// budget by it (BudgetForPace), and iashim-clustersim simulates the
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

// The pace the co-runners may keep so that a guaranteed job that keeps
// `p_guaranteed` of its speed next to them at full pace runs at its floor:
// it loses (1 - p) at pace 1, about s * (1 - p) at pace s, so
// s = (1 - floor) / (1 - p). 1 when p already meets the floor; not bounded
// below (callers apply their smallest share).
inline double ProtectiveShare(double p_guaranteed, double slowdown_target) {
  const double floor = ThroughputFloor(slowdown_target);
  if (p_guaranteed >= floor) return 1.0;
  return (1.0 - floor) / std::max(1e-9, 1.0 - p_guaranteed);
}

// The budget that holds a co-runner to `pace`. A budget is a share of GPU
// time, counted as the co-runner's kernels would take alone (what NVML
// accounts to it, and what the shim's launch gate holds), and at full pace
// beside the guaranteed job the co-runner takes only `full_pace_gpu_time`
// of it: p_o * d_o, the speed it keeps there times how busy it keeps a GPU
// alone. A budget of s would leave it s / (p_o d_o) of its pace: 1.5 times
// what ProtectiveShare meant for a pair that keeps 0.8 each way and a job
// busy 0.85 of the time alone, the 1.4-1.6 times the harm per unit share
// that the loop used to find on simgpu's pairs (policy/budget_memory.h).
inline double BudgetForPace(double pace, double full_pace_gpu_time) {
  return pace * std::clamp(full_pace_gpu_time, 0.0, 1.0);
}

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_PROTECTIVE_SHARE_H_
