// The bounds of limits.h applied to a mutation. The store checks before it
// writes and the decoder checks what it reads, with the same function, so a
// record the store wrote is never refused on load.
#ifndef IASHIM_COORDINATOR_STATE_VALIDATE_H_
#define IASHIM_COORDINATOR_STATE_VALIDATE_H_

#include "absl/status/status.h"
#include "coordinator/state/mutation.h"

namespace iashim::state {

// InvalidArgument naming the field and the bound when `m` breaks one, or a
// floating-point field that is NaN or infinite.
absl::Status Validate(const Mutation& m);

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_VALIDATE_H_
