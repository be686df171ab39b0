// Flipped bits in either file. A single-bit error always fails its frame's
// checksum, so the damaged record is lost. When the damage is in the length
// field the rest of that file cannot be framed and is lost too; otherwise
// only that one record is. In every case the store opens, what it kept is
// exactly the records outside one run starting at the damaged one, the loss
// is reported, and the next open is clean.
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "coordinator/state/frame.h"
#include "coordinator/state/record_codec.h"
#include "coordinator/state/recovery.h"
#include "coordinator/state/snapshot.h"
#include "coordinator/state/state_store.h"
#include "gtest/gtest.h"
#include "tests/coordinator/state/test_util.h"

namespace iashim::state {
namespace {

using testing::ApplyTo;
using testing::ExpectedFrom;
using testing::MixedMutation;
using testing::ReadBytes;
using testing::TempDir;
using testing::WriteBytes;

constexpr size_t kMaxObs = 100'000;

// A file's frames: where each starts and the mutation it holds (none for a
// snapshot header).
struct Frames {
  std::vector<size_t> starts;
  std::vector<std::vector<Mutation>> mutations;

  size_t IndexOf(size_t byte) const {
    size_t k = 0;
    while (k + 1 < starts.size() && starts[k + 1] <= byte) ++k;
    return k;
  }
  // The mutations of all frames but first..last.
  std::vector<Mutation> Without(size_t first, size_t last) const {
    std::vector<Mutation> out;
    for (size_t k = 0; k < mutations.size(); ++k) {
      if (k < first || k > last) out.insert(out.end(), mutations[k].begin(), mutations[k].end());
    }
    return out;
  }
};

Frames Parse(const std::string& data) {
  Frames f;
  ScanFrames(data, [&](std::string_view payload, size_t offset) {
    f.starts.push_back(offset);
    absl::StatusOr<Record> r = DecodeRecord(payload);
    EXPECT_TRUE(r.ok());
    f.mutations.emplace_back();
    if (r.ok() && std::holds_alternative<Mutation>(r->body)) {
      f.mutations.back().push_back(std::get<Mutation>(r->body));
    }
  });
  return f;
}

std::string FlipBit(std::string data, size_t byte) {
  data[byte] ^= static_cast<char>(1 << (byte % 8));
  return data;
}

// True when `state` is `before` (mutations applied first), then `damaged`
// less one run of frames starting at frame k, then `after`.
bool LostOneRun(const State& state, const std::vector<Mutation>& before, const Frames& damaged,
                size_t k, const std::vector<Mutation>& after) {
  for (size_t last = k; last < damaged.starts.size(); ++last) {
    std::vector<Mutation> kept = before;
    for (const Mutation& m : damaged.Without(k, last)) kept.push_back(m);
    kept.insert(kept.end(), after.begin(), after.end());
    if (ExpectedFrom(kept, kMaxObs) == state) return true;
  }
  return false;
}

std::vector<Mutation> Mixed(int first, int n) {
  std::vector<Mutation> out;
  for (int i = first; i < first + n; ++i) out.push_back(MixedMutation(i));
  return out;
}

std::string JournalOf(const std::vector<Mutation>& mutations, uint64_t first_seq) {
  std::string out;
  for (const Mutation& m : mutations) AppendFrame(EncodeRecord(first_seq++, m), &out);
  return out;
}

// One bit flipped in every byte (bit byte % 8), on bytes in memory, which is
// fast enough to try every byte; the store-level tests below sample the same
// through files.
TEST(CorruptionTest, RecoveryKeepsAllButOneRunForEveryByteOfTheJournal) {
  const std::string journal = JournalOf(Mixed(0, 20), 1);
  const Frames frames = Parse(journal);
  for (size_t byte = 0; byte < journal.size(); ++byte) {
    Recovered r = Recover("", FlipBit(journal, byte), kMaxObs);
    ASSERT_FALSE(r.report.clean()) << byte;
    ASSERT_TRUE(LostOneRun(r.state, {}, frames, frames.IndexOf(byte), {}))
        << "byte " << byte << ": " << r.report.ToString();
  }
}

TEST(CorruptionTest, RecoveryKeepsAllButOneRunForEveryByteOfTheSnapshot) {
  const std::vector<Mutation> journaled = Mixed(40, 10);
  const std::string journal = JournalOf(journaled, 41);
  const std::string snapshot = SerializeSnapshot(ExpectedFrom(Mixed(0, 40), kMaxObs), 40);
  const Frames frames = Parse(snapshot);
  for (size_t byte = 0; byte < snapshot.size(); ++byte) {
    Recovered r = Recover(FlipBit(snapshot, byte), journal, kMaxObs);
    ASSERT_FALSE(r.report.clean()) << byte;
    ASSERT_TRUE(LostOneRun(r.state, {}, frames, frames.IndexOf(byte), journaled))
        << "byte " << byte << ": " << r.report.ToString();
  }
}

// Through the files: open succeeds, keeps what LostOneRun allows, reports the
// loss once (the open rewrites the recovered state), and appends work.
void CheckStoreRecovers(const std::string& snapshot, const std::string& journal,
                        const std::vector<Mutation>& before, const Frames& damaged, size_t k,
                        const std::vector<Mutation>& after) {
  StateStore::Options options;
  options.compact_journal_bytes = 0;
  TempDir dir;
  if (!snapshot.empty()) WriteBytes(dir.File("snapshot.bin"), snapshot);
  WriteBytes(dir.File("journal.log"), journal);
  State recovered;
  {
    absl::StatusOr<std::unique_ptr<StateStore>> store = StateStore::Open(dir.path(), options);
    ASSERT_TRUE(store.ok()) << store.status();
    const LoadReport& report = (*store)->load_report();
    EXPECT_FALSE(report.clean());
    EXPECT_GT(report.records_dropped + report.snapshot_bytes_dropped + report.journal_bytes_dropped,
              0u)
        << report.ToString();
    EXPECT_TRUE(LostOneRun((*store)->state(), before, damaged, k, after)) << report.ToString();
    ASSERT_TRUE(ApplyTo(**store, MixedMutation(1000)).ok());
    recovered = (*store)->state();
  }
  absl::StatusOr<std::unique_ptr<StateStore>> store = StateStore::Open(dir.path(), options);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->state(), recovered);
  EXPECT_TRUE((*store)->load_report().clean()) << (*store)->load_report().ToString();
}

// Every header byte (where damage decides between one record and the rest)
// and every 7th payload byte: each case costs a few fsyncs, and the
// every-byte version runs on bytes in memory above.
bool Sampled(const Frames& frames, size_t byte) {
  const size_t start = frames.starts[frames.IndexOf(byte)];
  return byte < start + kFrameHeaderBytes || byte % 7 == 0;
}

TEST(CorruptionTest, StoreOpensWithADamagedJournal) {
  const std::vector<Mutation> mutations = Mixed(0, 14);
  TempDir origin;
  {
    auto store = std::move(*StateStore::Open(origin.path()));
    for (const Mutation& m : mutations) ASSERT_TRUE(ApplyTo(*store, m).ok());
  }
  const std::string journal = ReadBytes(origin.File("journal.log"));
  const Frames frames = Parse(journal);
  ASSERT_EQ(frames.starts.size(), mutations.size());
  for (size_t byte = 0; byte < journal.size(); ++byte) {
    if (!Sampled(frames, byte)) continue;
    SCOPED_TRACE(::testing::Message() << "journal byte " << byte);
    CheckStoreRecovers("", FlipBit(journal, byte), {}, frames, frames.IndexOf(byte), {});
  }
}

TEST(CorruptionTest, StoreOpensWithADamagedSnapshot) {
  const std::vector<Mutation> journaled = Mixed(20, 6);
  TempDir origin;
  {
    StateStore::Options o;
    o.compact_journal_bytes = 0;
    auto store = std::move(*StateStore::Open(origin.path(), o));
    for (const Mutation& m : Mixed(0, 20)) ASSERT_TRUE(ApplyTo(*store, m).ok());
    ASSERT_TRUE(store->Compact().ok());
    for (const Mutation& m : journaled) ASSERT_TRUE(ApplyTo(*store, m).ok());
  }
  const std::string snapshot = ReadBytes(origin.File("snapshot.bin"));
  const std::string journal = ReadBytes(origin.File("journal.log"));
  const Frames frames = Parse(snapshot);
  for (size_t byte = 0; byte < snapshot.size(); ++byte) {
    if (!Sampled(frames, byte)) continue;
    SCOPED_TRACE(::testing::Message() << "snapshot byte " << byte);
    CheckStoreRecovers(FlipBit(snapshot, byte), journal, {}, frames, frames.IndexOf(byte),
                       journaled);
  }
}

}  // namespace
}  // namespace iashim::state
