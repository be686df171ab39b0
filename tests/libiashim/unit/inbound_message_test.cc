// What the shim does with one message from the coordinator (inbound_message.h).
#include "libiashim/src/inbound_message.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "schemas/telemetry_generated.h"

namespace iashim {
namespace {

namespace w = iashim::wire;

// FlatBuffers reads aligned words: keep the bytes in 8-byte-aligned storage.
struct Aligned {
  explicit Aligned(const uint8_t* bytes, size_t length) : words((length + 7) / 8), size(length) {
    if (length > 0) std::memcpy(words.data(), bytes, length);
  }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words.data()); }
  std::vector<uint64_t> words;
  size_t size;
};

Aligned Finish(flatbuffers::FlatBufferBuilder& fbb, w::Payload type,
               flatbuffers::Offset<void> payload, w::Version version = w::Version::Current) {
  fbb.Finish(w::CreateEnvelope(fbb, version, 1, type, payload));
  return Aligned(fbb.GetBufferPointer(), fbb.GetSize());
}

struct Seen {
  std::vector<uint64_t> budget_seqs;
  std::vector<std::string> advice_texts;
};

InboundKind Dispatch(const Aligned& m, Seen* seen) {
  return DispatchInbound(
      m.data(), m.size, [&](const w::Budget& b) { seen->budget_seqs.push_back(b.seq()); },
      [&](const w::Advice& a) {
        seen->advice_texts.push_back(a.text() != nullptr ? a.text()->str() : "");
      });
}

TEST(InboundMessageTest, BudgetGoesToTheBudgetHandler) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto b = w::CreateBudget(fbb, 7, 0.5, 2, w::Priority::Opportunistic, 10'000, 0);
  Seen seen;
  EXPECT_EQ(Dispatch(Finish(fbb, w::Payload::Budget, b.Union()), &seen), InboundKind::kBudget);
  EXPECT_EQ(seen.budget_seqs, std::vector<uint64_t>{7});
  EXPECT_TRUE(seen.advice_texts.empty());
}

TEST(InboundMessageTest, AdviceGoesToTheAdviceHandler) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto a = w::CreateAdviceDirect(fbb, w::AdviceKind::Info, "hello");
  Seen seen;
  EXPECT_EQ(Dispatch(Finish(fbb, w::Payload::Advice, a.Union()), &seen), InboundKind::kAdvice);
  EXPECT_EQ(seen.advice_texts, std::vector<std::string>{"hello"});
  EXPECT_TRUE(seen.budget_seqs.empty());
}

TEST(InboundMessageTest, PayloadNotForAShimIsIgnored) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto g = w::CreateGoodbye(fbb, 1, 0);
  Seen seen;
  EXPECT_EQ(Dispatch(Finish(fbb, w::Payload::Goodbye, g.Union()), &seen), InboundKind::kIgnored);
  EXPECT_TRUE(seen.budget_seqs.empty());
  EXPECT_TRUE(seen.advice_texts.empty());
}

TEST(InboundMessageTest, OtherVersionIsIgnoredUnread) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto b = w::CreateBudget(fbb, 7, 0.5);
  Seen seen;
  EXPECT_EQ(Dispatch(Finish(fbb, w::Payload::Budget, b.Union(), static_cast<w::Version>(2)), &seen),
            InboundKind::kIgnored);
  EXPECT_TRUE(seen.budget_seqs.empty());
}

TEST(InboundMessageTest, GarbageAndTruncationAreInvalid) {
  const uint8_t junk[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  Seen seen;
  EXPECT_EQ(Dispatch(Aligned(junk, sizeof junk), &seen), InboundKind::kInvalid);
  EXPECT_EQ(Dispatch(Aligned(junk, 0), &seen), InboundKind::kInvalid);

  flatbuffers::FlatBufferBuilder fbb;
  const auto b = w::CreateBudget(fbb, 7, 0.5);
  const Aligned whole = Finish(fbb, w::Payload::Budget, b.Union());
  EXPECT_EQ(Dispatch(Aligned(whole.data(), whole.size - 4), &seen), InboundKind::kInvalid);
  EXPECT_TRUE(seen.budget_seqs.empty());
}

TEST(InboundMessageTest, EmptyHandlersStillClassify) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto b = w::CreateBudget(fbb, 7, 0.5);
  const Aligned m = Finish(fbb, w::Payload::Budget, b.Union());
  EXPECT_EQ(DispatchInbound(m.data(), m.size, nullptr, nullptr), InboundKind::kBudget);
}

}  // namespace
}  // namespace iashim
