// harvest: how much of the GPU the coordinator's control loop hands an
// opportunistic job next to a guaranteed one, against the best fixed share a
// sweep finds for the same slowdown target (the sweep's short windows find the
// neighbourhood; the best is confirmed over the loop's own window length).
// Every slowdown is against the guaranteed job's solo speed measured over that
// window length just before and just after the pair's runs.
#ifndef IASHIM_BENCH_GATE_HARVEST_MODE_H_
#define IASHIM_BENCH_GATE_HARVEST_MODE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/gate/bench_context.h"
#include "bench/gate/bench_options.h"

namespace iashim::gatebench {

// The guaranteed job's slowdown target, passed to the coordinator.
inline constexpr double kHarvestTarget = 0.10;

// The controlled run: the loop settles for `settle_s` from the jobs' start
// (the coordinator probes the guaranteed job's solo speed, cuts, then climbs
// back), then is measured for `window_s`.
struct HarvestTiming {
  double settle_s = 60;
  double window_s = 20;
};

// Tables: per pair, the fixed-share sweep, then the best fixed share beside
// the control loop's result. `ctx.timing` is used for the sweep's runs.
absl::StatusOr<std::string> RunHarvestMode(const BenchContext& ctx,
                                           const std::vector<ModelPair>& pairs,
                                           const HarvestTiming& controlled);

}  // namespace iashim::gatebench

#endif  // IASHIM_BENCH_GATE_HARVEST_MODE_H_
