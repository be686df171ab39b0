// --mode protect: whether a guaranteed job keeps its speed next to an
// opportunistic job as the opportunistic job's share shrinks.
#ifndef IASHIM_BENCH_GATE_PROTECT_MODE_H_
#define IASHIM_BENCH_GATE_PROTECT_MODE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/gate/bench_context.h"
#include "bench/gate/bench_options.h"

namespace iashim::gatebench {

// Runs each model alone, then every pair (guaranteed = first) at each
// opportunistic share, and returns the tables.
absl::StatusOr<std::string> RunProtectMode(const BenchContext& ctx,
                                           const std::vector<ModelPair>& pairs);

}  // namespace iashim::gatebench

#endif  // IASHIM_BENCH_GATE_PROTECT_MODE_H_
