// The bytes of a snapshot: a SnapshotHeader record, then one record per job,
// baseline, observation (oldest first) and key/value entry, and the budget
// sequence number, each in its own frame. Replaying these records into an
// empty State gives `state` back.
#ifndef IASHIM_COORDINATOR_STATE_SNAPSHOT_H_
#define IASHIM_COORDINATOR_STATE_SNAPSHOT_H_

#include <cstdint>
#include <string>

#include "coordinator/state/records.h"

namespace iashim::state {

// `last_seq`: the last journal record `state` includes.
std::string SerializeSnapshot(const State& state, uint64_t last_seq);

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_SNAPSHOT_H_
