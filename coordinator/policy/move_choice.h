// Which running job to move to a GPU that has emptied while nothing waits
// for it: the one-GPU opportunistic job that keeps the least of its solo
// speed where it runs (beside a guaranteed job whose loop throttles it, or
// sharing with another), checkpointed and requeued onto the empty GPU by the
// batch system. The daemon asks it with the kept fractions it measures
// (coordinator_move.cc), iashim-clustersim's what-if with the simulated ones
// (SimConfig::migration_cost_s), so both move the same job.
//
// Chosen by how slow a job runs, not by what it has left to do, which
// neither the coordinator nor the batch system knows (jobs state no length);
// a job that would soon have ended pays the move's cost for little. Only a
// job slowed at all moves: one that keeps all of its speed gains nothing.
#ifndef IASHIM_POLICY_MOVE_CHOICE_H_
#define IASHIM_POLICY_MOVE_CHOICE_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace iashim::policy {

struct MoveCandidate {
  std::string job;
  double kept = 1;  // the fraction of its solo speed it runs at where it is
};

// The index of the candidate that keeps the least, when that is under 1
// (ties: the first); nullopt for none.
std::optional<size_t> SlowestToMove(std::span<const MoveCandidate> candidates);

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_MOVE_CHOICE_H_
