// Private to InterferenceAwarePlacement: a job wider than a node (more GPUs
// than any node of its scope has) gets whole nodes, every GPU of each, as
// Slurm gives a job of several nodes (srun -N k/g --gres=gpu:g).
#ifndef IASHIM_POLICY_INTERNAL_WHOLE_NODE_PLACEMENT_H_
#define IASHIM_POLICY_INTERNAL_WHOLE_NODE_PLACEMENT_H_

#include <string>

#include "coordinator/policy/interference_model.h"
#include "coordinator/policy/interference_placement.h"
#include "coordinator/policy/internal/placement_scope.h"
#include "coordinator/policy/placement.h"

namespace iashim::policy::placement_internal {

// A node qualifies when every GPU of it can take a rank now: empty, or, for
// a job that may join busy GPUs, held by no gang (Slurm gives no gang's GPUs
// to another) and passing the rules a GPU of one node must (Scorer::Score).
// Of those, the k/g nodes that leave the job most of its speed (ties: what
// the residents lose, then node order), whatever min_gain says: the
// scheduler runs it on whole nodes anyway, and this only says which. A
// guaranteed job that finds too few without a guaranteed job goes beside
// one there, as on one node (PlacementDecision::beside_guaranteed). Queued, a job that may join
// busy GPUs is told which whole nodes it would take once the gangs there end (PlacementDecision::
// preferred). `where` is ScopeName(r); `predictor` and `rule` may be null.
PlacementDecision PlaceOnWholeNodes(const PlacementRequest& r, const Scope& scope,
                                    const std::string& where,
                                    const InterferencePredictor* predictor, const ShareRule* rule,
                                    const InterferenceAwarePlacement::Options& options);

}  // namespace iashim::policy::placement_internal

#endif  // IASHIM_POLICY_INTERNAL_WHOLE_NODE_PLACEMENT_H_
