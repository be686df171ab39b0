#include "coordinator/state/state_store.h"

#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <string>

#include "coordinator/state/limits.h"
#include "gtest/gtest.h"
#include "tests/coordinator/state/test_util.h"

namespace iashim::state {
namespace {

using testing::ApplyTo;
using testing::ExpectedAfter;
using testing::MixedMutation;
using testing::ReadBytes;
using testing::SampleBaseline;
using testing::SampleJob;
using testing::SampleObservation;
using testing::TempDir;
using testing::WriteBytes;

StateStore::Options NoAutoCompaction() {
  StateStore::Options o;
  o.compact_journal_bytes = 0;
  return o;
}

std::unique_ptr<StateStore> OpenOrDie(const std::string& dir,
                                      const StateStore::Options& options = {}) {
  absl::StatusOr<std::unique_ptr<StateStore>> store = StateStore::Open(dir, options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

void Mutate(StateStore& store, int first, int n) {
  for (int i = first; i < first + n; ++i) ASSERT_TRUE(ApplyTo(store, MixedMutation(i)).ok()) << i;
}

TEST(StateStoreTest, NewDirectoryOpensEmptyAndClean) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.File("state"));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->state(), State());
  EXPECT_TRUE(store->load_report().clean());
  EXPECT_EQ(store->journal_bytes(), 0u);
}

TEST(StateStoreTest, EveryKindSurvivesReopen) {
  TempDir tmp;
  {
    auto store = OpenOrDie(tmp.path());
    ASSERT_TRUE(store->PutJob(SampleJob(1)).ok());
    ASSERT_TRUE(store->PutJob(SampleJob(2)).ok());
    ASSERT_TRUE(store->RemoveJob("job-1").ok());
    ASSERT_TRUE(store->PutBaseline(SampleBaseline(3)).ok());
    ASSERT_TRUE(store->AddObservation(SampleObservation(4)).ok());
    ASSERT_TRUE(store->SetBudgetSeq(99).ok());
    ASSERT_TRUE(store->PutKv("a", std::string("\0bytes", 6)).ok());
    ASSERT_TRUE(store->PutKv("b", "gone").ok());
    ASSERT_TRUE(store->RemoveKv("b").ok());
  }
  auto store = OpenOrDie(tmp.path());
  const State& s = store->state();
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.jobs.at("job-2"), SampleJob(2));
  ASSERT_EQ(s.baselines.size(), 1u);
  EXPECT_EQ(s.baselines.begin()->second, SampleBaseline(3));
  ASSERT_EQ(s.observations.size(), 1u);
  EXPECT_EQ(s.observations[0], SampleObservation(4));
  EXPECT_EQ(s.budget_seq, 99u);
  ASSERT_EQ(s.kv.size(), 1u);
  EXPECT_EQ(s.kv.at("a"), std::string("\0bytes", 6));
  EXPECT_EQ(store->load_report().journal_records, 9u);
  EXPECT_TRUE(store->load_report().clean());
}

TEST(StateStoreTest, ReopenAfterManyMutationsEqualsTheStateBefore) {
  TempDir tmp;
  State before;
  {
    auto store = OpenOrDie(tmp.path(), NoAutoCompaction());
    Mutate(*store, 0, 2000);
    before = store->state();
    EXPECT_EQ(before, ExpectedAfter(2000, StateStore::Options().max_observations));
  }
  auto store = OpenOrDie(tmp.path(), NoAutoCompaction());
  EXPECT_EQ(store->state(), before);
  EXPECT_TRUE(store->load_report().clean()) << store->load_report().ToString();
}

TEST(StateStoreTest, CompactionPreservesStateAndEmptiesTheJournal) {
  TempDir tmp;
  State before;
  {
    auto store = OpenOrDie(tmp.path(), NoAutoCompaction());
    Mutate(*store, 0, 500);
    ASSERT_TRUE(store->Compact().ok());
    EXPECT_EQ(store->journal_bytes(), 0u);
    EXPECT_EQ(std::filesystem::file_size(tmp.File("journal.log")), 0u);
    Mutate(*store, 500, 100);  // after a compaction, appends continue
    before = store->state();
  }
  auto store = OpenOrDie(tmp.path(), NoAutoCompaction());
  EXPECT_EQ(store->state(), before);
  EXPECT_EQ(store->state(), ExpectedAfter(600, StateStore::Options().max_observations));
  EXPECT_EQ(store->load_report().journal_records, 100u);
  EXPECT_TRUE(store->load_report().clean()) << store->load_report().ToString();
}

TEST(StateStoreTest, AutomaticCompactionBoundsTheJournal) {
  TempDir tmp;
  StateStore::Options options;
  options.compact_journal_bytes = 4096;
  State before;
  {
    auto store = OpenOrDie(tmp.path(), options);
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(ApplyTo(*store, MixedMutation(i)).ok());
      ASSERT_LT(store->journal_bytes(), options.compact_journal_bytes);
    }
    EXPECT_TRUE(store->last_compaction_status().ok());
    before = store->state();
  }
  EXPECT_TRUE(std::filesystem::exists(tmp.File("snapshot.bin")));
  auto store = OpenOrDie(tmp.path(), options);
  EXPECT_EQ(store->state(), before);
  EXPECT_TRUE(store->load_report().clean()) << store->load_report().ToString();
}

TEST(StateStoreTest, MutationsThatChangeNothingWriteNothing) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  ASSERT_TRUE(store->PutJob(SampleJob(1)).ok());
  ASSERT_TRUE(store->PutBaseline(SampleBaseline(1)).ok());
  ASSERT_TRUE(store->PutKv("k", "v").ok());
  ASSERT_TRUE(store->SetBudgetSeq(5).ok());
  const uint64_t bytes = store->journal_bytes();
  ASSERT_TRUE(store->PutJob(SampleJob(1)).ok());
  ASSERT_TRUE(store->PutBaseline(SampleBaseline(1)).ok());
  ASSERT_TRUE(store->PutKv("k", "v").ok());
  ASSERT_TRUE(store->SetBudgetSeq(5).ok());
  ASSERT_TRUE(store->RemoveJob("no-such-job").ok());
  ASSERT_TRUE(store->RemoveKv("no-such-key").ok());
  EXPECT_EQ(store->journal_bytes(), bytes);
}

TEST(StateStoreTest, BudgetSeqNeverGoesBackAcrossRestarts) {
  TempDir tmp;
  {
    auto store = OpenOrDie(tmp.path());
    ASSERT_TRUE(store->SetBudgetSeq(1000).ok());
    absl::Status lower = store->SetBudgetSeq(999);
    EXPECT_TRUE(absl::IsInvalidArgument(lower)) << lower;
    EXPECT_EQ(store->state().budget_seq, 1000u);
    ASSERT_TRUE(store->Compact().ok());
  }
  auto store = OpenOrDie(tmp.path());
  EXPECT_EQ(store->state().budget_seq, 1000u);
  EXPECT_FALSE(store->SetBudgetSeq(1).ok());
  EXPECT_TRUE(store->SetBudgetSeq(1001).ok());
}

TEST(StateStoreTest, ObservationsAreBoundedNewestKept) {
  TempDir tmp;
  StateStore::Options ten;
  ten.max_observations = 10;
  {
    auto store = OpenOrDie(tmp.path(), ten);
    for (int i = 0; i < 25; ++i) ASSERT_TRUE(store->AddObservation(SampleObservation(i)).ok());
    ASSERT_EQ(store->state().observations.size(), 10u);
    EXPECT_EQ(store->state().observations.front(), SampleObservation(15));
    EXPECT_EQ(store->state().observations.back(), SampleObservation(24));
  }
  {
    auto store = OpenOrDie(tmp.path(), ten);
    ASSERT_EQ(store->state().observations.size(), 10u);
    EXPECT_EQ(store->state().observations.front(), SampleObservation(15));
    ASSERT_TRUE(store->Compact().ok());
  }
  StateStore::Options five;
  five.max_observations = 5;
  auto store = OpenOrDie(tmp.path(), five);
  ASSERT_EQ(store->state().observations.size(), 5u);
  EXPECT_EQ(store->state().observations.front(), SampleObservation(20));
}

TEST(StateStoreTest, InvalidMutationsAreRefusedAndChangeNothing) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  ASSERT_TRUE(store->PutJob(SampleJob(1)).ok());
  const State before = store->state();
  const uint64_t bytes = store->journal_bytes();

  JobRecord no_id = SampleJob(2);
  no_id.job.clear();
  JobRecord long_command = SampleJob(2);
  long_command.command.assign(kMaxCommandBytes + 1, 'c');
  JobRecord bad_priority = SampleJob(2);
  bad_priority.priority = static_cast<Priority>(2);
  ObservationRecord long_type = SampleObservation(1);
  long_type.gpu_type.assign(kMaxNameBytes + 1, 'g');

  EXPECT_TRUE(absl::IsInvalidArgument(store->PutJob(no_id)));
  EXPECT_TRUE(absl::IsInvalidArgument(store->PutJob(long_command)));
  EXPECT_TRUE(absl::IsInvalidArgument(store->PutJob(bad_priority)));
  EXPECT_TRUE(absl::IsInvalidArgument(store->AddObservation(long_type)));
  EXPECT_TRUE(absl::IsInvalidArgument(store->PutKv("", "v")));
  EXPECT_TRUE(absl::IsInvalidArgument(store->PutKv(std::string(kMaxNameBytes + 1, 'k'), "v")));
  EXPECT_TRUE(absl::IsInvalidArgument(store->PutKv("k", std::string(kMaxValueBytes + 1, 'v'))));
  EXPECT_EQ(store->state(), before);
  EXPECT_EQ(store->journal_bytes(), bytes);
}

// A crash after the new snapshot is in place but before the journal is
// emptied, reproduced by putting the old journal back after a compaction.
TEST(StateStoreTest, CrashBetweenSnapshotAndJournalTruncationLosesAndRepeatsNothing) {
  TempDir tmp;
  State before;
  {
    auto store = OpenOrDie(tmp.path(), NoAutoCompaction());
    Mutate(*store, 0, 300);
    const std::string journal = ReadBytes(tmp.File("journal.log"));
    ASSERT_TRUE(store->Compact().ok());
    WriteBytes(tmp.File("journal.log"), journal);
    before = store->state();
  }
  {
    auto store = OpenOrDie(tmp.path(), NoAutoCompaction());
    EXPECT_EQ(store->state(), before);  // observations not counted twice
    EXPECT_EQ(store->load_report().journal_records_stale, 300u);
    EXPECT_TRUE(store->load_report().clean()) << store->load_report().ToString();
    Mutate(*store, 300, 50);  // new records are numbered above the stale ones
    before = store->state();
  }
  auto store = OpenOrDie(tmp.path(), NoAutoCompaction());
  EXPECT_EQ(store->state(), before);
  EXPECT_EQ(store->state(), ExpectedAfter(350, StateStore::Options().max_observations));
}

// A crash while writing a snapshot leaves its temp file; the snapshot it was
// to replace is untouched.
TEST(StateStoreTest, LeftoverTempSnapshotIsIgnoredAndRemoved) {
  TempDir tmp;
  State before;
  {
    auto store = OpenOrDie(tmp.path());
    Mutate(*store, 0, 50);
    ASSERT_TRUE(store->Compact().ok());
    before = store->state();
  }
  WriteBytes(tmp.File("snapshot.bin.tmp"), "half a snapshot");
  auto store = OpenOrDie(tmp.path());
  EXPECT_EQ(store->state(), before);
  EXPECT_TRUE(store->load_report().clean());
  EXPECT_FALSE(std::filesystem::exists(tmp.File("snapshot.bin.tmp")));
}

TEST(StateStoreTest, SyncSucceeds) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  ASSERT_TRUE(store->PutJob(SampleJob(1)).ok());
  EXPECT_TRUE(store->Sync().ok());
}

TEST(StateStoreTest, FilesArePrivate) {
  TempDir tmp;
  const std::string dir = tmp.File("state");
  auto store = OpenOrDie(dir);
  ASSERT_TRUE(store->PutJob(SampleJob(1)).ok());
  ASSERT_TRUE(store->Compact().ok());
  for (const std::string& path : {dir, dir + "/journal.log", dir + "/snapshot.bin"}) {
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0) << path;
    EXPECT_EQ(st.st_mode & 077, 0u) << path;
  }
}

}  // namespace
}  // namespace iashim::state
