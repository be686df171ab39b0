// What opening a store recovered and what it could not. A store always opens
// when its files are merely damaged; this report is how the loss is told.
#ifndef IASHIM_COORDINATOR_STATE_LOAD_REPORT_H_
#define IASHIM_COORDINATOR_STATE_LOAD_REPORT_H_

#include <cstddef>
#include <string>
#include <vector>

namespace iashim::state {

struct LoadReport {
  size_t snapshot_records = 0;  // applied from snapshot.bin
  size_t journal_records = 0;   // applied from journal.log
  // Journal records already in the snapshot, ignored: left by a crash between
  // writing a snapshot and emptying the journal. Not a loss.
  size_t journal_records_stale = 0;
  // Records known lost: damaged frames stepped over, records that failed
  // verification, and records missing from a short snapshot. Bytes dropped
  // from the end of a file may have held more.
  size_t records_dropped = 0;
  size_t snapshot_bytes_dropped = 0;
  size_t journal_bytes_dropped = 0;
  // One line per problem, naming the file and offset.
  std::vector<std::string> problems;

  bool clean() const { return problems.empty(); }
  // One line: counts, then the problems separated by "; ".
  std::string ToString() const;
};

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_LOAD_REPORT_H_
