// How a mutation changes the State. The one definition used both live and
// when replaying the files, so a reopened store holds exactly what the
// running one held.
//
// Every mutation but an observation is idempotent, and budget_seq only ever
// rises (the larger value wins), so a record applied twice is harmless; the
// journal's sequence numbers keep observations from being applied twice.
#ifndef IASHIM_COORDINATOR_STATE_APPLY_H_
#define IASHIM_COORDINATOR_STATE_APPLY_H_

#include <cstddef>

#include "coordinator/state/mutation.h"
#include "coordinator/state/records.h"

namespace iashim::state {

// Applies `m` to `state`, then drops the oldest observations beyond
// `max_observations`.
void Apply(const Mutation& m, size_t max_observations, State* state);

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_APPLY_H_
