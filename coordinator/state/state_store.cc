#include "coordinator/state/state_store.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "coordinator/state/apply.h"
#include "coordinator/state/frame.h"
#include "coordinator/state/record_codec.h"
#include "coordinator/state/recovery.h"
#include "coordinator/state/snapshot.h"
#include "coordinator/state/validate.h"

namespace iashim::state {
namespace {

constexpr char kJournalName[] = "journal.log";
constexpr char kSnapshotName[] = "snapshot.bin";
constexpr int64_t kCatchUpEveryNs = 1'000'000'000;

int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

absl::StatusOr<std::unique_ptr<StateStore>> StateStore::Open(const std::string& dir,
                                                             const Options& options) {
  absl::StatusOr<LockedDir> locked = OpenStateDir(dir);
  if (!locked.ok()) return locked.status();
  std::unique_ptr<StateStore> store(new StateStore(std::move(*locked), options));

  // Left by a crash mid-compaction; the snapshot it was to replace is intact.
  unlink(store->Path(absl::StrCat(kSnapshotName, ".tmp")).c_str());

  absl::StatusOr<std::string> snapshot = ReadFileOrEmpty(store->Path(kSnapshotName));
  if (!snapshot.ok()) return snapshot.status();
  const std::string journal_path = store->Path(kJournalName);
  absl::StatusOr<std::string> journal = ReadFileOrEmpty(journal_path);
  if (!journal.ok()) return journal.status();

  Recovered recovered = Recover(*snapshot, *journal, options.max_observations);
  store->state_ = std::move(recovered.state);
  store->report_ = std::move(recovered.report);
  store->next_seq_ = recovered.last_seq + 1;

  const bool journal_existed = access(journal_path.c_str(), F_OK) == 0;
  absl::StatusOr<Fd> fd = OpenFile(journal_path, O_WRONLY | O_CREAT | O_APPEND);
  if (!fd.ok()) return fd.status();
  store->journal_ = std::move(*fd);
  // Cut an unreadable tail, so that what is appended next can be read back.
  if (recovered.journal_valid_end < journal->size() &&
      ftruncate(store->journal_.get(), static_cast<off_t>(recovered.journal_valid_end)) != 0) {
    return PathError(errno, "ftruncate", journal_path);
  }
  store->journal_size_ = recovered.journal_valid_end;
  if (!journal_existed) {
    // Its directory entry must be durable before records in it can be.
    if (absl::Status s = SyncDir(store->dir()); !s.ok()) return s;
  }

  // Rewrite what was recovered, so damage is reported once and the files are
  // clean again. Failing to is no reason not to run: the recovered state is
  // in memory and the journal is appendable.
  if (!store->report_.clean()) {
    if (absl::Status s = store->Compact(); !s.ok()) {
      store->report_.problems.push_back(
          absl::StrCat("could not rewrite the recovered state: ", s.message()));
      store->last_compaction_ = s;
    }
  }
  store->next_auto_compaction_ = options.compact_journal_bytes;
  return store;
}

std::string StateStore::Path(absl::string_view name) const {
  return absl::StrCat(dir_.path, "/", name);
}

absl::Status StateStore::PutJob(const JobRecord& job) {
  auto it = state_.jobs.find(job.job);
  if (it != state_.jobs.end() && it->second == job) return absl::OkStatus();
  return Commit(job);
}

absl::Status StateStore::RemoveJob(std::string_view job) {
  if (state_.jobs.find(std::string(job)) == state_.jobs.end()) return absl::OkStatus();
  return Commit(JobRemoval{std::string(job)});
}

absl::Status StateStore::PutBaseline(const BaselineRecord& baseline) {
  auto it = state_.baselines.find(baseline.fingerprint);
  if (it != state_.baselines.end() && it->second == baseline) return absl::OkStatus();
  return Commit(baseline);
}

absl::Status StateStore::AddObservation(const ObservationRecord& observation) {
  return Commit(observation);
}

absl::Status StateStore::SetBudgetSeq(uint64_t seq) {
  if (seq < state_.budget_seq) {
    return absl::InvalidArgumentError(absl::StrCat("budget seq ", seq, " is below the current ",
                                                   state_.budget_seq, "; it must not go back"));
  }
  if (seq == state_.budget_seq) return absl::OkStatus();
  return Commit(BudgetSeqUpdate{seq});
}

absl::Status StateStore::PutKv(std::string_view key, std::string_view value) {
  auto it = state_.kv.find(std::string(key));
  if (it != state_.kv.end() && it->second == value) return absl::OkStatus();
  return Commit(KvPut{std::string(key), std::string(value)});
}

absl::Status StateStore::RemoveKv(std::string_view key) {
  if (state_.kv.find(std::string(key)) == state_.kv.end()) return absl::OkStatus();
  return Commit(KvRemoval{std::string(key)});
}

absl::Status StateStore::Commit(const Mutation& m) {
  if (!broken_.ok()) return broken_;
  if (absl::Status s = Validate(m); !s.ok()) return s;
  std::string frame;
  AppendFrame(EncodeRecord(next_seq_, m), &frame);
  const absl::Status written = Append(frame);
  // Applied even when the disk refused it: the caller goes on with it, and
  // the catch-up snapshot writes it once the disk has room.
  ++next_seq_;
  Apply(m, options_.max_observations, &state_);
  if (!written.ok()) {
    WriteFailed(written);
    return written;
  }
  if (!write_error_.ok()) (void)CatchUp();  // this record fitting: there may be room again
  MaybeCompact();
  return absl::OkStatus();
}

void StateStore::WriteFailed(const absl::Status& status) {
  ++failed_writes_;
  write_error_ = status;
  next_catch_up_ns_ = MonotonicNs() + kCatchUpEveryNs;
}

absl::Status StateStore::CatchUp() {
  if (write_error_.ok() || MonotonicNs() < next_catch_up_ns_) return write_error_;
  // Everything in memory, as one snapshot: the refused records are in it.
  if (absl::Status s = Compact(); !s.ok()) WriteFailed(s);
  return write_error_;
}

absl::Status StateStore::Append(const std::string& frame) {
  const std::string path = Path(kJournalName);
  absl::Status status = WriteAll(journal_.get(), frame, path);
  if (status.ok()) {
    journal_size_ += frame.size();
    return status;
  }
  // A partial frame would hide every later one at the next load: take it back.
  if (ftruncate(journal_.get(), static_cast<off_t>(journal_size_)) != 0) {
    broken_ = absl::DataLossError(absl::StrCat(
        status.message(), "; the partial record could not be removed (",
        PathError(errno, "ftruncate", path).message(), "); reopen the store to recover"));
    return broken_;
  }
  return status;
}

void StateStore::MaybeCompact() {
  if (options_.compact_journal_bytes == 0 || journal_size_ < next_auto_compaction_) return;
  last_compaction_ = Compact();
  // After a failure, wait for the journal to grow by as much again rather
  // than rewriting a large snapshot on every mutation against a full disk.
  next_auto_compaction_ = last_compaction_.ok() ? options_.compact_journal_bytes
                                                : journal_size_ + options_.compact_journal_bytes;
}

absl::Status StateStore::Compact() {
  if (!broken_.ok()) return broken_;
  // Once the snapshot is in place (renamed and the directory synced), the
  // journal's records are all in it; a crash before the journal is emptied
  // leaves them there, and their sequence numbers mark them stale on load.
  const std::string snapshot = SerializeSnapshot(state_, next_seq_ - 1);
  if (absl::Status s = WriteFileAtomically(dir_.path, kSnapshotName, snapshot); !s.ok()) return s;
  if (ftruncate(journal_.get(), 0) != 0) return PathError(errno, "ftruncate", Path(kJournalName));
  journal_size_ = 0;
  write_error_ = absl::OkStatus();  // the whole state is on disk
  return absl::OkStatus();
}

absl::Status StateStore::Sync() {
  if (fdatasync(journal_.get()) != 0) return PathError(errno, "fdatasync", Path(kJournalName));
  return absl::OkStatus();
}

}  // namespace iashim::state
