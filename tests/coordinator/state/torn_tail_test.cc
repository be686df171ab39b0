// A journal cut anywhere inside its last record (a crash or power loss in the
// middle of a write): everything before it loads, the cut is reported, and
// appends afterwards are readable.
#include <filesystem>
#include <memory>
#include <string>

#include "coordinator/state/state_store.h"
#include "gtest/gtest.h"
#include "tests/coordinator/state/test_util.h"

namespace iashim::state {
namespace {

using testing::ApplyTo;
using testing::ExpectedAfter;
using testing::MixedMutation;
using testing::ReadBytes;
using testing::TempDir;
using testing::WriteBytes;

constexpr int kBefore = 42;  // mutations before the torn one (MixedMutation(42) is a job)
constexpr size_t kMaxObs = 100'000;

class TornTailTest : public ::testing::TestWithParam<bool> {};

TEST_P(TornTailTest, CutAtEveryOffsetOfTheLastRecord) {
  const bool with_snapshot = GetParam();
  StateStore::Options options;
  options.compact_journal_bytes = 0;

  TempDir origin;
  std::string snapshot;
  uint64_t good_bytes = 0;
  {
    auto store = std::move(*StateStore::Open(origin.path(), options));
    for (int i = 0; i < kBefore; ++i) {
      ASSERT_TRUE(ApplyTo(*store, MixedMutation(i)).ok());
      if (with_snapshot && i == kBefore / 2) {
        ASSERT_TRUE(store->Compact().ok());
      }
    }
    good_bytes = store->journal_bytes();
    ASSERT_TRUE(ApplyTo(*store, MixedMutation(kBefore)).ok());
    snapshot = ReadBytes(origin.File("snapshot.bin"));
  }
  const std::string journal = ReadBytes(origin.File("journal.log"));
  ASSERT_GT(journal.size(), good_bytes);

  for (size_t cut = good_bytes; cut < journal.size(); ++cut) {
    SCOPED_TRACE(::testing::Message() << "journal cut at " << cut);
    TempDir dir;
    if (with_snapshot) WriteBytes(dir.File("snapshot.bin"), snapshot);
    WriteBytes(dir.File("journal.log"), journal.substr(0, cut));
    {
      absl::StatusOr<std::unique_ptr<StateStore>> store = StateStore::Open(dir.path(), options);
      ASSERT_TRUE(store.ok()) << store.status();
      const LoadReport& report = (*store)->load_report();
      EXPECT_EQ((*store)->state(), ExpectedAfter(kBefore, kMaxObs));
      EXPECT_EQ(report.journal_bytes_dropped, cut - good_bytes);
      EXPECT_EQ(report.clean(), cut == good_bytes) << report.ToString();
      ASSERT_TRUE(ApplyTo(**store, MixedMutation(kBefore)).ok());
      ASSERT_TRUE(ApplyTo(**store, MixedMutation(kBefore + 1)).ok());
    }
    absl::StatusOr<std::unique_ptr<StateStore>> store = StateStore::Open(dir.path(), options);
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_EQ((*store)->state(), ExpectedAfter(kBefore + 2, kMaxObs));
    EXPECT_TRUE((*store)->load_report().clean()) << (*store)->load_report().ToString();
  }
}

INSTANTIATE_TEST_SUITE_P(JournalOnlyAndAfterSnapshot, TornTailTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param_info) {
                           return param_info.param ? "AfterSnapshot" : "JournalOnly";
                         });

}  // namespace
}  // namespace iashim::state
