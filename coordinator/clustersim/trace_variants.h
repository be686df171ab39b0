// Variants of a set of Gavel traces, for judging a policy on data it was
// never tuned on (`iashim-clustersim --variants N`). Each input trace file is
// one virtual cluster (VC) of the Philly-derived set. A variant:
//  - keeps each VC with probability kVcKeep (at least one): the cluster
//    sees a different load and mix, as another week of the same cluster
//    would;
//  - replaces each job by a job drawn from the kept jobs of the same GPU
//    count (type and length together): the trace's own mix of models and
//    durations, in another order;
//  - moves each arrival by a normal offset of sd kArrivalJitterS (never
//    before 0), so bursts fall differently;
//  - and, in the replay, seeds the learner with the variant's seed.
// The constants are properties of the harness, stated here and in the
// README, not fitted: a variant should be another plausible trace of the
// same cluster, not a different cluster.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_TRACE_VARIANTS_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_TRACE_VARIANTS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "coordinator/clustersim/gavel_trace.h"

namespace iashim::clustersim {

inline constexpr double kVcKeep = 0.75;
inline constexpr double kArrivalJitterS = 3600;

// Variant `index` of the VCs `vcs` (one trace file's jobs each) under
// `seed`: the same (seed, index) always gives the same jobs, in arrival
// order, with ids "<original id>/v<index>".
std::vector<TraceJob> MakeVariant(std::span<const std::vector<TraceJob>> vcs, uint64_t seed,
                                  int index);

// The seed a variant's learner gets: distinct per variant, fixed by (seed, index).
uint64_t VariantSeed(uint64_t seed, int index);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_TRACE_VARIANTS_H_
