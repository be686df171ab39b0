#include "libiashim/src/token_bucket.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>

namespace iashim {
namespace {

constexpr uint64_t kUs = 1'000;
constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kS = 1'000'000'000;

// Admits as much as the bucket allows at `now` (launches of `cost` each).
// Returns how many went.
int DrainAt(TokenBucket& b, uint64_t cost, uint64_t now) {
  int n = 0;
  while (b.WaitNs(now) == 0 && n < 1'000'000) {
    b.Charge(cost, now);
    ++n;
  }
  return n;
}

TEST(TokenBucket, CapacityRule) {
  EXPECT_EQ(TokenBucket::CapacityFor(1.0), 20 * kMs);
  EXPECT_EQ(TokenBucket::CapacityFor(0.5), 10 * kMs);
  EXPECT_EQ(TokenBucket::CapacityFor(0.1), 2 * kMs);
  EXPECT_EQ(TokenBucket::CapacityFor(0.05), 1 * kMs);  // exactly the floor
  EXPECT_EQ(TokenBucket::CapacityFor(0.01), 1 * kMs);  // floored
  EXPECT_EQ(TokenBucket::CapacityFor(0.0), 1 * kMs);
  TokenBucket b(0.3, 0);
  EXPECT_EQ(b.capacity_ns(), 6 * kMs);
}

TEST(TokenBucket, ShareIsClamped) {
  EXPECT_EQ(TokenBucket::ClampShare(0.0), TokenBucket::kMinShare);
  EXPECT_EQ(TokenBucket::ClampShare(-3.0), TokenBucket::kMinShare);
  EXPECT_EQ(TokenBucket::ClampShare(1e-9), TokenBucket::kMinShare);
  EXPECT_EQ(TokenBucket::ClampShare(-std::numeric_limits<double>::infinity()),
            TokenBucket::kMinShare);
  EXPECT_EQ(TokenBucket::ClampShare(0.25), 0.25);
  EXPECT_EQ(TokenBucket::ClampShare(1.0), 1.0);
  EXPECT_EQ(TokenBucket::ClampShare(7.0), 1.0);
  EXPECT_EQ(TokenBucket::ClampShare(std::numeric_limits<double>::infinity()), 1.0);
  // NaN fails open: the shim never stops a program over a bad number.
  EXPECT_EQ(TokenBucket::ClampShare(std::numeric_limits<double>::quiet_NaN()), 1.0);
  TokenBucket b(0.0, 0);
  EXPECT_EQ(b.share(), TokenBucket::kMinShare);
  EXPECT_FALSE(b.unlimited());
}

TEST(TokenBucket, StartsFull) {
  TokenBucket b(0.5, 1'000 * kS);
  EXPECT_EQ(b.tokens_ns(), int64_t(10 * kMs));
  EXPECT_EQ(b.WaitNs(1'000 * kS), 0u);
  // 10 ms of 1 ms kernels, plus the one admitted at exactly 0 tokens.
  EXPECT_EQ(DrainAt(b, 1 * kMs, 1'000 * kS), 11);
}

// Admitted while tokens >= 0; the charge that crosses 0 is still admitted.
TEST(TokenBucket, AdmitsWhileNotInDebt) {
  TokenBucket b(0.5, 0);  // 10 ms
  b.Charge(9 * kMs, 0);
  EXPECT_EQ(b.WaitNs(0), 0u);
  b.Charge(1 * kMs, 0);
  EXPECT_EQ(b.tokens_ns(), 0);
  EXPECT_EQ(b.WaitNs(0), 0u);  // exactly 0 is not debt
  b.Charge(1, 0);
  EXPECT_EQ(b.tokens_ns(), -1);
  EXPECT_EQ(b.WaitNs(0), 2u);  // 1 ns of GPU time at half rate
}

// A kernel bigger than the whole bucket still runs; its debt delays the next.
TEST(TokenBucket, DebtFromABigKernel) {
  TokenBucket b(0.5, 0);  // 10 ms
  b.Charge(100 * kMs, 0);
  EXPECT_EQ(b.tokens_ns(), -int64_t(90 * kMs));
  EXPECT_EQ(b.WaitNs(0), 180 * kMs);
  EXPECT_EQ(b.WaitNs(80 * kMs), 100 * kMs);  // asking again moves nothing on
  EXPECT_EQ(b.WaitNs(180 * kMs - 1), 1u);
  EXPECT_EQ(b.WaitNs(180 * kMs), 0u);
  EXPECT_EQ(b.tokens_ns(), 0);
}

TEST(TokenBucket, WaitingTheAnswerAlwaysAdmits) {
  // Awkward shares and costs whose refills are not whole nanoseconds.
  for (double share : {0.001, 0.003, 0.1, 1.0 / 3, 0.7, 0.999}) {
    TokenBucket b(share, 12345);
    uint64_t now = 12345;
    uint64_t cost = 7;
    for (int i = 0; i < 2'000; ++i) {
      const uint64_t w = b.WaitNs(now);
      now += w;
      ASSERT_EQ(b.WaitNs(now), 0u) << share << " " << i;
      b.Charge(cost, now);
      cost = cost * 7919 % 3'000'017 + 1;
    }
  }
}

TEST(TokenBucket, WaitIsTheShortestThatWorks) {
  for (double share : {0.001, 0.1, 1.0 / 3, 0.7}) {
    TokenBucket a(share, 0);
    a.Charge(a.capacity_ns() + 12'345'677, 0);
    TokenBucket b = a;
    const uint64_t w = a.WaitNs(0);
    ASSERT_GT(w, 0u);
    EXPECT_EQ(a.WaitNs(w), 0u) << share;
    EXPECT_GT(b.WaitNs(w - 1), 0u) << share;
  }
}

// Over a long run the admitted GPU time is share x elapsed, within 1%, with
// kernels of mixed sizes (some longer than the bucket) admitted as soon as
// the bucket allows.
TEST(TokenBucket, LongRunConvergesToShare) {
  const uint64_t costs[] = {5 * kUs, 50 * kUs, 300 * kUs, 2 * kMs, 25 * kMs, 1 * kUs, 900 * kUs};
  for (double share : {0.1, 0.3, 0.5, 0.7, 0.9}) {
    TokenBucket b(share, 0);
    uint64_t now = 0;
    uint64_t admitted = 0;
    size_t i = 0;
    while (now < 20 * kS) {
      now += b.WaitNs(now);
      const uint64_t cost = costs[i++ % std::size(costs)];
      b.Charge(cost, now);
      admitted += cost;
    }
    const double got = double(admitted) / double(now);
    EXPECT_NEAR(got, share, 0.01 * share) << "share " << share;
    // And never more than one bucket plus one kernel ahead of the share.
    EXPECT_LE(double(admitted), share * double(now) + double(b.capacity_ns()) + 25.0 * kMs);
  }
}

// A job that launches slower than its share is never held back, and its
// idle time does not bank more than one bucket.
TEST(TokenBucket, SlowJobIsNotHeldAndBanksOneBucket) {
  TokenBucket b(0.5, 0);
  uint64_t now = 0;
  for (int i = 0; i < 10'000; ++i) {
    now += 1 * kMs;
    ASSERT_EQ(b.WaitNs(now), 0u);
    b.Charge(400 * kUs, now);  // 40% < 50%
  }
  EXPECT_EQ(b.tokens_ns(), int64_t(b.capacity_ns()) - int64_t(400 * kUs));
}

// After idling, a burst is bounded by the capacity however long the idle.
TEST(TokenBucket, BurstAfterIdleIsCapacity) {
  for (uint64_t idle : {21 * kMs, 1 * kS, 3600 * kS}) {
    TokenBucket b(0.3, 0);  // 6 ms
    b.Charge(6 * kMs, 0);
    EXPECT_EQ(b.tokens_ns(), 0);
    const uint64_t later = 1 + idle;
    EXPECT_EQ(DrainAt(b, 100 * kUs, later), 61) << idle;  // 6 ms + the crossing one
  }
}

TEST(TokenBucket, CapacityOverride) {
  TokenBucket b(0.5, 0);
  b.SetCapacityNs(3 * kMs);
  EXPECT_EQ(b.capacity_ns(), 3 * kMs);
  EXPECT_EQ(b.tokens_ns(), int64_t(3 * kMs));  // excess dropped
  EXPECT_EQ(b.WaitNs(10 * kS), 0u);
  EXPECT_EQ(b.tokens_ns(), int64_t(3 * kMs));
  b.SetShare(0.9, 10 * kS);  // the override survives share changes
  EXPECT_EQ(b.capacity_ns(), 3 * kMs);
  b.SetCapacityNs(0);  // back to the rule
  EXPECT_EQ(b.capacity_ns(), 18 * kMs);
  EXPECT_EQ(b.tokens_ns(), int64_t(3 * kMs));  // a larger bucket is not filled
}

// The old rate applies up to the change, the new one from that instant.
TEST(TokenBucket, ShareChangeTakesEffectAtThatInstant) {
  TokenBucket b(0.5, 0);            // 10 ms
  b.Charge(10 * kMs + 4 * kMs, 0);  // 4 ms of debt
  b.SetShare(0.1, 2 * kMs);         // 1 ms repaid at 0.5
  EXPECT_NEAR(double(b.tokens_ns()), -3.0 * kMs, 1.0);
  EXPECT_EQ(b.capacity_ns(), 2 * kMs);
  EXPECT_NEAR(double(b.WaitNs(2 * kMs)), 30.0 * kMs, 1.0);  // 3 ms at 0.1
  b.SetShare(0.3, 12 * kMs);                                // 1 ms repaid at 0.1
  EXPECT_NEAR(double(b.tokens_ns()), -2.0 * kMs, 1.0);
  EXPECT_NEAR(double(b.WaitNs(12 * kMs)), 2.0 * kMs / 0.3, 1.0);
}

TEST(TokenBucket, ShrinkingTheShareDropsExcessTokens) {
  TokenBucket b(0.9, 0);  // 18 ms, full
  b.SetShare(0.1, 1 * kMs);
  EXPECT_EQ(b.capacity_ns(), 2 * kMs);
  EXPECT_EQ(b.tokens_ns(), int64_t(2 * kMs));
}

TEST(TokenBucket, FullShareMeansNoLimit) {
  TokenBucket b(1.0, 0);
  EXPECT_TRUE(b.unlimited());
  for (int i = 0; i < 1'000; ++i) {
    b.Charge(1 * kS, 5);
    ASSERT_EQ(b.WaitNs(5), 0u);
  }
  EXPECT_EQ(b.tokens_ns(), int64_t(b.capacity_ns()));
  // A limit coming back starts from a full bucket, not from the unlimited run.
  b.SetShare(0.5, 6);
  EXPECT_EQ(b.tokens_ns(), int64_t(10 * kMs));
  EXPECT_EQ(b.WaitNs(6), 0u);
  // And lifting it forgives any debt.
  b.Charge(1 * kS, 7);
  EXPECT_GT(b.WaitNs(7), 0u);
  b.SetShare(1.0, 8);
  EXPECT_EQ(b.WaitNs(8), 0u);
  EXPECT_EQ(b.tokens_ns(), int64_t(20 * kMs));
}

// A clock going backwards neither refills nor moves the reference point.
TEST(TokenBucket, TimeGoingBackwardsIsIgnored) {
  TokenBucket b(0.5, 100 * kMs);
  b.Charge(10 * kMs + 2 * kMs, 100 * kMs);  // 2 ms of debt: 4 ms to repay
  EXPECT_EQ(b.WaitNs(100 * kMs), 4 * kMs);
  // A stale timestamp waits for the same instant, measured on its own clock.
  EXPECT_EQ(b.WaitNs(99 * kMs), 5 * kMs);
  b.Charge(0, 50 * kMs);
  EXPECT_EQ(b.tokens_ns(), -int64_t(2 * kMs));
  // Refill counts from the newest time seen, not from the stale one.
  EXPECT_EQ(b.WaitNs(102 * kMs), 2 * kMs);
  EXPECT_EQ(b.WaitNs(104 * kMs), 0u);
  // Far in the past, saturating rather than wrapping.
  b.Charge(2 * kMs, 104 * kMs);
  EXPECT_EQ(b.WaitNs(0), 104 * kMs + 4 * kMs);
}

TEST(TokenBucket, HugeGapsAndHugeCosts) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  TokenBucket b(0.5, 0);
  b.Charge(max, 0);  // floored debt
  EXPECT_EQ(b.tokens_ns(), -int64_t(TokenBucket::kMaxDebtNs));
  EXPECT_EQ(b.WaitNs(0), 2 * TokenBucket::kMaxDebtNs);
  EXPECT_EQ(b.WaitNs(max), 0u);  // the largest gap just fills the bucket
  EXPECT_EQ(b.tokens_ns(), int64_t(10 * kMs));
  b.Charge(max, max);
  EXPECT_EQ(b.WaitNs(max), 2 * TokenBucket::kMaxDebtNs);
  EXPECT_EQ(b.WaitNs(0), max);  // saturated

  // The smallest share's longest wait stays finite: 10 s / 0.001.
  TokenBucket tiny(0.0, 0);
  tiny.Charge(max, 0);
  EXPECT_EQ(tiny.WaitNs(0), 10'000 * kS);
}

// Many tiny steps lose no fractional refill (0.3 ns per 1 ns step).
TEST(TokenBucket, FractionalRefillsAccumulate) {
  TokenBucket b(0.3, 0);
  b.Charge(6 * kMs + 3'000, 0);  // 3 us of debt: 10 us to repay
  uint64_t now = 0;
  while (b.WaitNs(now) != 0) ++now;
  EXPECT_NEAR(double(now), 10'000.0, 1.0);
}

}  // namespace
}  // namespace iashim
