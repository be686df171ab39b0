// Budgets from the environment and from coordinator messages: ranges
// enforced, expiry relative to arrival, nothing clamped silently.
#include "libiashim/src/budget.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "schemas/telemetry_generated.h"

namespace iashim {
namespace {

// A Budget message as a coordinator would build it; `fbb` owns the bytes.
const wire::Budget& Message(flatbuffers::FlatBufferBuilder& fbb, uint64_t seq, double share,
                            uint32_t max_inflight, wire::Priority priority, uint32_t ttl_ms) {
  fbb.Finish(wire::CreateBudget(fbb, seq, share, max_inflight, priority, ttl_ms));
  return *flatbuffers::GetRoot<wire::Budget>(fbb.GetBufferPointer());
}

TEST(Budget, FromConfig) {
  Config c;
  EXPECT_TRUE(BudgetFromConfig(c).unthrottled());
  c.share = 0.3;
  c.max_inflight = 4;
  c.priority = Priority::kOpportunistic;
  const Budget b = BudgetFromConfig(c);
  EXPECT_FALSE(b.unthrottled());
  EXPECT_EQ(b.share, 0.3);
  EXPECT_EQ(b.max_inflight, 4u);
  EXPECT_EQ(b.priority, Priority::kOpportunistic);
  EXPECT_EQ(b.expires_ns, 0u);
  EXPECT_FALSE(b.expired(~uint64_t(0)));
}

TEST(Budget, InflightCapAloneIsThrottled) {
  Budget b;
  b.max_inflight = 2;
  EXPECT_FALSE(b.unthrottled());
}

TEST(Budget, FromWireExpiresRelativeToArrival) {
  flatbuffers::FlatBufferBuilder fbb;
  std::string error;
  const auto b = BudgetFromWire(Message(fbb, 7, 0.5, 3, wire::Priority::Opportunistic, 250),
                                /*now_ns=*/1'000'000'000, &error);
  ASSERT_TRUE(b.has_value()) << error;
  EXPECT_EQ(b->seq, 7u);
  EXPECT_EQ(b->share, 0.5);
  EXPECT_EQ(b->max_inflight, 3u);
  EXPECT_EQ(b->priority, Priority::kOpportunistic);
  EXPECT_EQ(b->expires_ns, 1'250'000'000u);
  EXPECT_FALSE(b->expired(1'249'999'999));
  EXPECT_TRUE(b->expired(1'250'000'000));
}

TEST(Budget, FromWireWithoutTtlNeverExpires) {
  flatbuffers::FlatBufferBuilder fbb;
  std::string error;
  const auto b = BudgetFromWire(Message(fbb, 1, 1.0, 0, wire::Priority::Guaranteed, 0), 5, &error);
  ASSERT_TRUE(b.has_value()) << error;
  EXPECT_EQ(b->expires_ns, 0u);
  EXPECT_TRUE(b->unthrottled());
}

TEST(Budget, FromWireRejectsOutOfRangeFields) {
  struct Bad {
    uint64_t seq;
    double share;
    uint32_t max_inflight;
    wire::Priority priority;
    const char* says;
  };
  const Bad kBad[] = {
      {0, 0.5, 0, wire::Priority::Guaranteed, "seq"},
      {1, 0.0, 0, wire::Priority::Guaranteed, "share"},
      {1, 0.0009, 0, wire::Priority::Guaranteed, "share"},
      {1, 1.01, 0, wire::Priority::Guaranteed, "share"},
      {1, std::nan(""), 0, wire::Priority::Guaranteed, "share"},
      {1, std::numeric_limits<double>::infinity(), 0, wire::Priority::Guaranteed, "share"},
      {1, 0.5, 65537, wire::Priority::Guaranteed, "max_inflight"},
      {1, 0.5, 0, static_cast<wire::Priority>(7), "priority"},
  };
  for (const Bad& bad : kBad) {
    flatbuffers::FlatBufferBuilder fbb;
    std::string error;
    EXPECT_FALSE(
        BudgetFromWire(Message(fbb, bad.seq, bad.share, bad.max_inflight, bad.priority, 0), 0, &error)
            .has_value())
        << bad.says;
    EXPECT_NE(error.find(bad.says), std::string::npos) << error;
  }
}

TEST(Budget, DescribeSaysWhatIsInForce) {
  Budget b;
  b.share = 0.25;
  b.max_inflight = 8;
  b.priority = Priority::kOpportunistic;
  b.expires_ns = 3'000'000'000;
  EXPECT_EQ(Describe(b, 1'000'000'000),
            "share 0.250, max 8 in flight, opportunistic, expires in 2.0 s");
  EXPECT_EQ(Describe(Budget{}, 0), "share 1.000, no in-flight cap, guaranteed, never expires");
}

}  // namespace
}  // namespace iashim
