#include "libiashim/src/sample_rate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace iashim {
namespace {

// N = ceil(R * C / (1% of a second)), never below the minimum.
TEST(ChooseSampleEvery, BudgetMath) {
  // 100k launches/s at 2 us each: 0.2 s/s if all timed, so 1 in 20 fits 1%.
  EXPECT_EQ(ChooseSampleEvery(100'000, 2'000, 1), 20u);
  // 1M launches/s at 5 us each: 1 in 500.
  EXPECT_EQ(ChooseSampleEvery(1'000'000, 5'000, 1), 500u);
  // Fractions round up, so the budget is never exceeded: 1.5 -> 2.
  EXPECT_EQ(ChooseSampleEvery(1'000, 15'000, 1), 2u);
  // Exactly on the budget needs no rounding.
  EXPECT_EQ(ChooseSampleEvery(10'000, 1'000, 1), 1u);
}

TEST(ChooseSampleEvery, RespectsTheMinimum) {
  EXPECT_EQ(ChooseSampleEvery(100'000, 2'000, 64), 64u);  // budget asks 20
  EXPECT_EQ(ChooseSampleEvery(100'000, 2'000, 20), 20u);
  EXPECT_EQ(ChooseSampleEvery(100'000, 2'000, 19), 20u);
  EXPECT_EQ(ChooseSampleEvery(1, 1, 64), 64u);  // almost nothing to time
}

TEST(ChooseSampleEvery, MinimumIsClamped) {
  EXPECT_EQ(ChooseSampleEvery(1, 1, 0), 1u);
  EXPECT_EQ(ChooseSampleEvery(1, 1, kMaxSampleEvery + 5), kMaxSampleEvery);
  EXPECT_EQ(ChooseSampleEvery(1, 1, std::numeric_limits<uint32_t>::max()), kMaxSampleEvery);
}

TEST(ChooseSampleEvery, CappedAtMax) {
  EXPECT_EQ(ChooseSampleEvery(1e9, 1e9, 1), kMaxSampleEvery);
  EXPECT_EQ(ChooseSampleEvery(std::numeric_limits<double>::infinity(), 1000, 1), kMaxSampleEvery);
  EXPECT_EQ(ChooseSampleEvery(std::numeric_limits<double>::max(), 1e300, 1), kMaxSampleEvery);
  // Just under the cap is not capped.
  EXPECT_EQ(ChooseSampleEvery(double(kMaxSampleEvery - 1) * 1e7, 1, 1), kMaxSampleEvery - 1);
}

// Nothing measured yet (no rate, no cost, NaN): keep the configured minimum.
TEST(ChooseSampleEvery, UnknownInputsGiveTheMinimum) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ChooseSampleEvery(0, 2'000, 64), 64u);
  EXPECT_EQ(ChooseSampleEvery(100'000, 0, 64), 64u);
  EXPECT_EQ(ChooseSampleEvery(-5, 2'000, 64), 64u);
  EXPECT_EQ(ChooseSampleEvery(100'000, -1, 64), 64u);
  EXPECT_EQ(ChooseSampleEvery(nan, 2'000, 64), 64u);
  EXPECT_EQ(ChooseSampleEvery(100'000, nan, 64), 64u);
  EXPECT_EQ(ChooseSampleEvery(0, 0, 0), 1u);
}

// Whatever the inputs, the chosen N keeps sampling within 1% of a second
// (unless capped) and N-1 would not have (unless N is the minimum).
TEST(ChooseSampleEvery, ChosenRateIsTheSmallestWithinBudget) {
  for (double rate : {10.0, 1e3, 3.3e4, 2.5e5, 1e6}) {
    for (double cost : {100.0, 1'500.0, 8'000.0, 40'000.0}) {
      const uint32_t n = ChooseSampleEvery(rate, cost, 1);
      ASSERT_GE(n, 1u);
      if (n == kMaxSampleEvery) continue;
      EXPECT_LE(rate * cost / n, kSamplingBudget * 1e9 * (1 + 1e-12)) << rate << " " << cost;
      if (n > 1) {
        EXPECT_GT(rate * cost / (n - 1), kSamplingBudget * 1e9) << rate << " " << cost;
      }
    }
  }
}

}  // namespace
}  // namespace iashim
