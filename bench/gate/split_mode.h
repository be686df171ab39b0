// --mode split: how exactly the gate divides GPU time between two jobs that
// would each keep the GPU busy, and what the unthrottled shim costs them.
#ifndef IASHIM_BENCH_GATE_SPLIT_MODE_H_
#define IASHIM_BENCH_GATE_SPLIT_MODE_H_

#include <string>

#include "absl/status/statusor.h"
#include "bench/gate/bench_context.h"
#include "bench/gate/bench_options.h"

namespace iashim::gatebench {

// Runs the split cases on `pair` (A = first) and returns the tables.
absl::StatusOr<std::string> RunSplitMode(const BenchContext& ctx, const ModelPair& pair);

}  // namespace iashim::gatebench

#endif  // IASHIM_BENCH_GATE_SPLIT_MODE_H_
