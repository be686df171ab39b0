// Recovery on bytes in memory: what is kept and what is reported for each
// kind of damage the files can suffer.
#include "coordinator/state/recovery.h"

#include <string>
#include <vector>

#include "coordinator/state/frame.h"
#include "coordinator/state/record_codec.h"
#include "coordinator/state/snapshot.h"
#include "gtest/gtest.h"
#include "tests/coordinator/state/test_util.h"

namespace iashim::state {
namespace {

using testing::ExpectedAfter;
using testing::ExpectedFrom;
using testing::MixedMutation;
using testing::SampleObservation;

constexpr size_t kMaxObs = 1000;

// Journal bytes for MixedMutation(first .. first+n-1) with seqs first+1 ...
std::string Journal(int first, int n) {
  std::string out;
  for (int i = first; i < first + n; ++i) {
    AppendFrame(EncodeRecord(static_cast<uint64_t>(i) + 1, MixedMutation(i)), &out);
  }
  return out;
}

TEST(RecoveryTest, NothingGivesAnEmptyCleanState) {
  Recovered r = Recover("", "", kMaxObs);
  EXPECT_EQ(r.state, State());
  EXPECT_EQ(r.last_seq, 0u);
  EXPECT_TRUE(r.report.clean());
}

TEST(RecoveryTest, SnapshotThenNewerJournal) {
  const std::string snapshot = SerializeSnapshot(ExpectedAfter(30, kMaxObs), 30);
  Recovered r = Recover(snapshot, Journal(30, 20), kMaxObs);
  EXPECT_EQ(r.state, ExpectedAfter(50, kMaxObs));
  EXPECT_EQ(r.last_seq, 50u);
  EXPECT_EQ(r.report.journal_records, 20u);
  EXPECT_TRUE(r.report.clean()) << r.report.ToString();
}

// A crash after the snapshot was renamed into place but before the journal
// was emptied: the journal's records are already in the snapshot. Applying
// them again would count their observations twice.
TEST(RecoveryTest, JournalRecordsInTheSnapshotAreStale) {
  const std::string snapshot = SerializeSnapshot(ExpectedAfter(30, kMaxObs), 30);
  Recovered r = Recover(snapshot, Journal(0, 30), kMaxObs);
  EXPECT_EQ(r.state, ExpectedAfter(30, kMaxObs));
  EXPECT_EQ(r.report.journal_records_stale, 30u);
  EXPECT_EQ(r.report.journal_records, 0u);
  EXPECT_EQ(r.last_seq, 30u);
  EXPECT_TRUE(r.report.clean());
}

TEST(RecoveryTest, OutOfOrderJournalRecordIsDropped) {
  std::string journal = Journal(0, 3);
  AppendFrame(EncodeRecord(2, SampleObservation(100)), &journal);  // seq 2 again
  Recovered r = Recover("", journal, kMaxObs);
  EXPECT_EQ(r.state, ExpectedAfter(3, kMaxObs));
  EXPECT_EQ(r.report.records_dropped, 1u);
  EXPECT_FALSE(r.report.clean());
}

TEST(RecoveryTest, RecordsOutOfPlaceAreDropped) {
  std::string journal = Journal(0, 2);
  AppendFrame(EncodeSnapshotHeader({5, 1}), &journal);           // header in the journal
  AppendFrame(EncodeRecord(0, SampleObservation(1)), &journal);  // seq 0 in the journal
  std::string snapshot = SerializeSnapshot(State(), 0);
  AppendFrame(EncodeRecord(9, SampleObservation(2)), &snapshot);  // seq in the snapshot
  Recovered r = Recover(snapshot, journal, kMaxObs);
  EXPECT_EQ(r.state, ExpectedAfter(2, kMaxObs));
  EXPECT_EQ(r.report.records_dropped, 3u);
}

TEST(RecoveryTest, ShortSnapshotCountsTheMissingRecords) {
  const State full = ExpectedAfter(40, kMaxObs);
  const std::string snapshot = SerializeSnapshot(full, 40);
  // Cut right after the header and the next two frames.
  size_t cut = 0;
  int frames = 0;
  ScanFrames(snapshot, [&](std::string_view payload, size_t offset) {
    if (frames++ < 3) cut = offset + kFrameHeaderBytes + payload.size();
  });
  Recovered r = Recover(snapshot.substr(0, cut), "", kMaxObs);
  EXPECT_EQ(r.report.snapshot_records, 2u);
  EXPECT_EQ(r.report.records_dropped, static_cast<size_t>(frames - 3));
  EXPECT_FALSE(r.report.clean());
  EXPECT_EQ(r.last_seq, 40u);  // the header survived
}

TEST(RecoveryTest, SnapshotWithoutHeaderReplaysTheWholeJournal) {
  const std::string with_header = SerializeSnapshot(ExpectedAfter(10, kMaxObs), 10);
  size_t header_end = 0;
  ScanFrames(with_header, [&](std::string_view payload, size_t offset) {
    if (offset == 0) header_end = kFrameHeaderBytes + payload.size();
  });
  Recovered r = Recover(with_header.substr(header_end), Journal(10, 5), kMaxObs);
  EXPECT_EQ(r.state, ExpectedAfter(15, kMaxObs));
  EXPECT_EQ(r.report.journal_records, 5u);
  EXPECT_FALSE(r.report.clean());  // told: stale journal records cannot be recognised
}

TEST(RecoveryTest, ObservationBoundAppliesOnLoad) {
  std::vector<Mutation> mutations;
  std::string journal;
  for (int i = 0; i < 30; ++i) {
    mutations.push_back(SampleObservation(i));
    AppendFrame(EncodeRecord(static_cast<uint64_t>(i) + 1, mutations.back()), &journal);
  }
  Recovered r = Recover("", journal, 7);
  ASSERT_EQ(r.state.observations.size(), 7u);
  EXPECT_EQ(r.state.observations.front(), SampleObservation(23));
  EXPECT_EQ(r.state, ExpectedFrom(mutations, 7));
}

}  // namespace
}  // namespace iashim::state
