#include "coordinator/state/recovery.h"

#include <algorithm>
#include <optional>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "coordinator/state/apply.h"
#include "coordinator/state/frame.h"
#include "coordinator/state/record_codec.h"

namespace iashim::state {
namespace {

constexpr absl::string_view kSnapshot = "snapshot.bin";
constexpr absl::string_view kJournal = "journal.log";

void Problem(LoadReport* report, absl::string_view file, size_t offset, absl::string_view what) {
  report->problems.push_back(absl::StrCat(file, " offset ", offset, ": ", what));
}

void AddScanProblems(const FrameScan& scan, absl::string_view file, LoadReport* report) {
  for (const std::string& p : scan.problems) report->problems.push_back(absl::StrCat(file, " ", p));
  report->records_dropped += scan.skipped_frames;
}

// Loads the snapshot into `out`; returns its header when the first frame is one.
std::optional<SnapshotHeader> LoadSnapshot(std::string_view data, size_t max_observations,
                                           Recovered* out) {
  LoadReport& report = out->report;
  std::optional<SnapshotHeader> header;
  size_t body_frames = 0;  // frames after the header, good or not
  FrameScan scan = ScanFrames(data, [&](std::string_view payload, size_t offset) {
    absl::StatusOr<Record> record = DecodeRecord(payload);
    if (offset == 0 && record.ok() && std::holds_alternative<SnapshotHeader>(record->body)) {
      header = std::get<SnapshotHeader>(record->body);
      return;
    }
    ++body_frames;
    if (!record.ok()) {
      Problem(&report, kSnapshot, offset, record.status().message());
      ++report.records_dropped;
    } else if (!std::holds_alternative<Mutation>(record->body) || record->seq != 0) {
      Problem(&report, kSnapshot, offset, "not a snapshot record, dropped");
      ++report.records_dropped;
    } else {
      Apply(std::get<Mutation>(record->body), max_observations, &out->state);
      ++report.snapshot_records;
    }
  });
  AddScanProblems(scan, kSnapshot, &report);
  body_frames += scan.skipped_frames;
  report.snapshot_bytes_dropped = scan.dropped_bytes(data.size());

  if (data.empty()) return std::nullopt;
  if (!header) {
    report.problems.push_back(
        absl::StrCat(kSnapshot,
                     ": no readable header; the journal is replayed in full, so observations "
                     "in both files may be counted twice"));
    return std::nullopt;
  }
  const uint64_t expected = header->records;
  if (body_frames < expected) {
    report.records_dropped += expected - body_frames;
    report.problems.push_back(absl::StrCat(kSnapshot, ": ", expected - body_frames, " of ",
                                           expected, " records missing"));
  }
  return header;
}

void ReplayJournal(std::string_view data, uint64_t snapshot_seq, size_t max_observations,
                   Recovered* out) {
  LoadReport& report = out->report;
  uint64_t previous = 0;
  FrameScan scan = ScanFrames(data, [&](std::string_view payload, size_t offset) {
    absl::StatusOr<Record> record = DecodeRecord(payload);
    if (!record.ok()) {
      Problem(&report, kJournal, offset, record.status().message());
      ++report.records_dropped;
      return;
    }
    if (!std::holds_alternative<Mutation>(record->body) || record->seq <= previous) {
      Problem(&report, kJournal, offset,
              absl::StrCat("not a journal record or out of order (seq ", record->seq, " after ",
                           previous, "), dropped"));
      ++report.records_dropped;
      return;
    }
    previous = record->seq;
    out->last_seq = std::max(out->last_seq, record->seq);
    if (record->seq <= snapshot_seq) {
      ++report.journal_records_stale;
      return;
    }
    Apply(std::get<Mutation>(record->body), max_observations, &out->state);
    ++report.journal_records;
  });
  AddScanProblems(scan, kJournal, &report);
  report.journal_bytes_dropped = scan.dropped_bytes(data.size());
  out->journal_valid_end = scan.valid_end;
}

}  // namespace

Recovered Recover(std::string_view snapshot, std::string_view journal, size_t max_observations) {
  Recovered out;
  std::optional<SnapshotHeader> header = LoadSnapshot(snapshot, max_observations, &out);
  const uint64_t snapshot_seq = header ? header->last_seq : 0;
  out.last_seq = snapshot_seq;
  ReplayJournal(journal, snapshot_seq, max_observations, &out);
  return out;
}

}  // namespace iashim::state
