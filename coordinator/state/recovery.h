// Rebuilding the State from the two files' bytes: the snapshot first, then
// the journal records it does not already contain. Pure (no I/O), so every
// kind of damage can be tested on bytes in memory. Recovery never fails: it
// keeps every record that checks out and reports the rest (load_report.h).
//
// Rules, in order:
//  - Frames are read as frame.h says: a damaged frame is stepped over when a
//    good frame follows it, and otherwise ends that file.
//  - A good frame whose record fails verification, is of another schema
//    version, or is out of place is dropped alone.
//  - The snapshot's header gives the last journal sequence number it holds;
//    journal records up to it are stale and ignored (they are in the
//    snapshot). Without a readable header the whole journal is replayed.
//  - Journal records must have increasing sequence numbers; one that does
//    not is dropped, so no record is ever applied twice.
#ifndef IASHIM_COORDINATOR_STATE_RECOVERY_H_
#define IASHIM_COORDINATOR_STATE_RECOVERY_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "coordinator/state/load_report.h"
#include "coordinator/state/records.h"

namespace iashim::state {

struct Recovered {
  State state;
  // The highest journal sequence number seen or covered by the snapshot: the
  // next record written must be above it.
  uint64_t last_seq = 0;
  // The journal's readable length: it is cut here before anything is appended.
  size_t journal_valid_end = 0;
  LoadReport report;
};

Recovered Recover(std::string_view snapshot, std::string_view journal, size_t max_observations);

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_RECOVERY_H_
