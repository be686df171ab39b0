// The coordinator's persistent state (--state-dir): its jobs, the models'
// baselines, the interference it observed, its budget sequence number, and
// opaque per-component entries. README.md describes the files and the
// recovery rules.
//
// Durability: every mutation is in the kernel (write(2) on the journal) before
// it returns OK, so kill -9 of the coordinator at any moment loses nothing it
// was told succeeded. Surviving power loss or a kernel crash also needs
// Sync(); the caller decides how often (e.g. on a timer), since fdatasync per
// mutation would put a disk flush on every telemetry-driven update.
//
// Opening never fails because the files are damaged: it recovers every record
// that checks out and tells what was lost in load_report(). It fails only when
// the directory cannot be used (not a directory, not writable, locked by
// another process) or a read fails.
//
// Thread-compatible: the owner serialises calls (the coordinator's loop).
#ifndef IASHIM_COORDINATOR_STATE_STATE_STORE_H_
#define IASHIM_COORDINATOR_STATE_STATE_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "coordinator/state/load_report.h"
#include "coordinator/state/mutation.h"
#include "coordinator/state/posix_file.h"
#include "coordinator/state/records.h"
#include "coordinator/state/state_dir.h"

namespace iashim::state {

class StateStore {
 public:
  struct Options {
    // Observations kept, newest; older ones are forgotten (also on load).
    size_t max_observations = 100'000;
    // Compact when the journal reaches this size; 0 = only on Compact().
    uint64_t compact_journal_bytes = 4 << 20;
  };

  // Opens (creating if needed) the store in `dir`. See the class comment for
  // what fails; every error message names the path and the reason.
  static absl::StatusOr<std::unique_ptr<StateStore>> Open(const std::string& dir,
                                                          const Options& options);
  static absl::StatusOr<std::unique_ptr<StateStore>> Open(const std::string& dir) {
    return Open(dir, Options());
  }

  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  // Everything, as of the last successful mutation.
  const State& state() const { return state_; }
  // What Open() recovered and what it dropped.
  const LoadReport& load_report() const { return report_; }
  const std::string& dir() const { return dir_.path; }

  // Each mutation is checked (limits.h: InvalidArgument; state() is then
  // unchanged), written, and applied to state(). One that would change nothing
  // writes nothing. When the write fails (a full disk) the mutation is still
  // applied to state(), the error is returned, and write_error() says the
  // disk is behind: the whole state is written as a snapshot as soon as the
  // disk takes data again (CatchUp()), so nothing the caller knew is lost
  // unless the process dies before that.
  absl::Status PutJob(const JobRecord& job);
  absl::Status RemoveJob(std::string_view job);
  absl::Status PutBaseline(const BaselineRecord& baseline);
  absl::Status AddObservation(const ObservationRecord& observation);
  // Budget sequence numbers never go back: InvalidArgument below the current.
  absl::Status SetBudgetSeq(uint64_t seq);
  absl::Status PutKv(std::string_view key, std::string_view value);
  absl::Status RemoveKv(std::string_view key);

  // Writes the whole state as a new snapshot and empties the journal. Also
  // done automatically (Options::compact_journal_bytes); an automatic one that
  // fails does not fail the mutation that triggered it (that mutation is
  // written) and is retried once the journal has grown by as much again.
  absl::Status Compact();
  // fdatasync of the journal: what is written survives power loss too.
  absl::Status Sync();

  // While write_error() is not OK, retries writing the whole state (at most
  // once a second, and after any mutation whose own record was written).
  // Returns write_error() afterwards.
  absl::Status CatchUp();
  // OK when everything in state() is on disk; else the error that left it
  // behind (naming the file and the reason), until CatchUp() succeeds.
  const absl::Status& write_error() const { return write_error_; }
  // Writes that failed (records and catch-up snapshots) since Open().
  uint64_t failed_writes() const { return failed_writes_; }

  uint64_t journal_bytes() const { return journal_size_; }
  // The last automatic compaction's result (OK if none failed since).
  const absl::Status& last_compaction_status() const { return last_compaction_; }

 private:
  StateStore(LockedDir dir, const Options& options) : dir_(std::move(dir)), options_(options) {}

  absl::Status Commit(const Mutation& m);
  absl::Status Append(const std::string& frame);
  void MaybeCompact();
  void WriteFailed(const absl::Status& status);
  std::string Path(absl::string_view name) const;

  LockedDir dir_;
  Options options_;
  Fd journal_;
  uint64_t journal_size_ = 0;
  uint64_t next_seq_ = 1;
  uint64_t next_auto_compaction_ = 0;  // journal size that triggers the next one
  State state_;
  LoadReport report_;
  absl::Status last_compaction_;
  // Not OK while state() holds changes the disk refused (see write_error()).
  absl::Status write_error_;
  uint64_t failed_writes_ = 0;
  int64_t next_catch_up_ns_ = 0;  // CLOCK_MONOTONIC; retries are at most once a second
  // Set when a failed write could not be undone: the journal's end is unknown,
  // so nothing more is written (reopening recovers).
  absl::Status broken_;
};

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_STATE_STORE_H_
