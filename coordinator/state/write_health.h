// Says when the state store starts and stops failing to write (a full or
// read-only disk), once per episode: a coordinator that keeps serving from
// memory must say so without a line per mutation.
#ifndef IASHIM_COORDINATOR_STATE_WRITE_HEALTH_H_
#define IASHIM_COORDINATOR_STATE_WRITE_HEALTH_H_

#include <optional>
#include <string>

#include "coordinator/state/state_store.h"

namespace iashim::state {

class WriteHealth {
 public:
  // Call after the store was used (e.g. every tick, after CatchUp()). Returns
  // a line to log when writing has just started failing ("cannot write state
  // in DIR: ...") or has just recovered; nothing otherwise.
  std::optional<std::string> Update(const StateStore& store);

 private:
  bool failing_ = false;
};

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_WRITE_HEALTH_H_
