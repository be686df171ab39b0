// The robustness harness: every policy replayed on N variants of the traces
// (trace_variants.h), and per policy the median and the worst case across
// them of
//  - mean JCT / the oracle's mean JCT on the same variant,
//  - mean JCT / exclusive's,
//  - the fraction of jobs that finished later than under exclusive,
// with how often it beat firstfit and iadeep on mean JCT and how often it
// was worse than exclusive. One lucky trace cannot hide a bad policy here.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_ROBUSTNESS_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_ROBUSTNESS_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/clustersim/gavel_throughputs.h"
#include "coordinator/clustersim/gavel_trace.h"
#include "coordinator/clustersim/replay.h"
#include "coordinator/clustersim/report.h"

namespace iashim::clustersim {

// One variant's replay: a summary per policy, in kDefaultPolicyNames order.
struct VariantResult {
  int index = 0;
  uint64_t seed = 0;  // the learner's
  int64_t jobs = 0;
  std::vector<PolicySummary> policies;
};

// Replays `variants` variants of `vcs` (one trace file's jobs each) with
// every policy. `options.policies` and `options.seed` are ignored: all five
// run, each variant with its own learner seed.
absl::StatusOr<std::vector<VariantResult>> ReplayVariants(
    std::span<const std::vector<TraceJob>> vcs, const GavelThroughputs& truth,
    const ReplayOptions& options, int variants, uint64_t variant_seed);

struct PolicyRobustness {
  std::string policy;
  int variants = 0;
  double jct_over_oracle_median = 0;
  double jct_over_oracle_worst = 0;
  double jct_over_exclusive_median = 0;
  double jct_over_exclusive_worst = 0;
  double later_fraction_median = 0;  // of jobs, later than under exclusive
  double later_fraction_worst = 0;
  int beats_firstfit = 0;         // variants with a lower mean JCT than firstfit's
  int beats_iadeep = 0;           // likewise iadeep's
  int worse_than_exclusive = 0;   // variants with a higher mean JCT than exclusive's
  int later_than_oracle = 0;      // variants with more later-than-exclusive jobs than the oracle
};

std::vector<PolicyRobustness> SummariseVariants(std::span<const VariantResult> results);

// One row per variant: each policy's mean JCT (hours), iashim's JCT /
// oracle's, its pair starts and the oracle's, and its learner's error, so
// the variants where iashim does worst can be named and looked into.
std::string VariantsTable(std::span<const VariantResult> results);

// A table for people; one JSON object per policy per line for tools.
std::string RobustnessTable(std::span<const PolicyRobustness> rows, int gpus, uint64_t seed);
std::string RobustnessJsonLines(std::span<const PolicyRobustness> rows, int gpus, uint64_t seed);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_ROBUSTNESS_H_
