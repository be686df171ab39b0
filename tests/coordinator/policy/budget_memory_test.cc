// BudgetMemory: the shares the control loop settled at, as first budgets for
// the next pair of the same kinds, and as a calibration for pairs not seen.
#include "coordinator/policy/budget_memory.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "coordinator/policy/protective_share.h"

namespace iashim::policy {
namespace {

TEST(BudgetMemory, NothingRecordedLeavesTheModelAsItIs) {
  const BudgetMemory memory;
  EXPECT_FALSE(memory.EquivalentKept("a", "b", 0.7).has_value());
}

// A guaranteed job kept 0.913 (9.5% slower) with its co-runner at share
// 0.185: 0.47 of throughput per unit share. Given that equivalent,
// ProtectiveShare lands the next such pair where the loop settled, at the
// same target; the model's 0.70 would have started it at 0.30.
TEST(BudgetMemory, APairSeenStartsWhereTheLoopSettled) {
  BudgetMemory memory;
  const double kept = 1 / 1.095;
  memory.Observe("resnet50", "transformer", 0.185, kept, 0.70);
  const auto eq = memory.EquivalentKept("resnet50", "transformer", 0.70);
  ASSERT_TRUE(eq.has_value());
  EXPECT_NEAR(*eq, 1 - (1 - kept) / 0.185, 1e-12);
  EXPECT_NEAR(ProtectiveShare(*eq, 0.095), 0.185, 1e-9);
  EXPECT_NEAR(ProtectiveShare(0.70, 0.10), 0.303, 1e-3);
  // Directed: the other way round is not this pair, only calibrated.
  const auto other = memory.EquivalentKept("transformer", "resnet50", 0.70);
  ASSERT_TRUE(other.has_value());
  EXPECT_NEAR(*other, *eq, 1e-12);  // the model said 0.70 for both: same calibration
}

// A pair never seen: the model's loss scaled by what the recorded pairs
// showed. The model said 0.70 (loss 0.30) where the loop found 0.60 per unit
// share, twice: a pair the model puts at 0.80 (loss 0.20) is taken as 0.40.
TEST(BudgetMemory, APairNeverSeenIsTheModelCalibratedByEveryPairSeen) {
  BudgetMemory memory;
  memory.Observe("a", "b", 0.2, 1 - 0.12, 0.70);
  const auto eq = memory.EquivalentKept("c", "d", 0.80);
  ASSERT_TRUE(eq.has_value());
  EXPECT_NEAR(*eq, 1 - 0.40, 1e-12);
  // A model that predicts no harm is not calibrated into harm.
  EXPECT_FALSE(memory.EquivalentKept("c", "d", 1.0).has_value());
}

// The figures are running means over a window: the newest counts 1/n, and
// after the window the old ones fade (log space: 0.4 and 0.1 average to 0.2).
TEST(BudgetMemory, RepeatedObservationsAverageInLogSpaceOverAWindow) {
  BudgetMemory memory({.pair_window = 2});
  memory.Observe("a", "b", 0.5, 1 - 0.2, 0.7);   // 0.4 per share
  memory.Observe("a", "b", 0.5, 1 - 0.05, 0.7);  // 0.1
  EXPECT_NEAR(*memory.EquivalentKept("a", "b", 0.7), 1 - 0.2, 1e-12);
  for (int i = 0; i < 20; ++i) memory.Observe("a", "b", 0.5, 1 - 0.05, 0.7);
  EXPECT_NEAR(*memory.EquivalentKept("a", "b", 0.7), 1 - 0.1, 1e-3);
}

TEST(BudgetMemory, MeaninglessObservationsAreIgnored) {
  BudgetMemory memory;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  memory.Observe("a", "b", 1.0, 0.8, 0.7);    // not throttled: the model's business
  memory.Observe("a", "b", 0.0, 0.8, 0.7);    // no share at all
  memory.Observe("a", "b", 0.3, 0.99, 0.7);   // a loss within the noise
  memory.Observe("a", "b", 0.3, 0.8, 1.0);    // nothing to calibrate against
  memory.Observe("a", "b", nan, 0.8, 0.7);
  memory.Observe("a", "b", 0.3, nan, 0.7);
  memory.Observe("a", "b", 0.3, 0.8, nan);
  EXPECT_EQ(memory.pairs(), 0u);
  EXPECT_FALSE(memory.EquivalentKept("a", "b", 0.7).has_value());
}

TEST(BudgetMemory, PairsBeyondTheLimitOnlyCalibrate) {
  BudgetMemory memory({.max_pairs = 1});
  memory.Observe("a", "b", 0.5, 0.8, 0.7);
  memory.Observe("c", "d", 0.5, 0.9, 0.7);
  EXPECT_EQ(memory.pairs(), 1u);
  EXPECT_NEAR(*memory.EquivalentKept("a", "b", 0.7), 1 - 0.4, 1e-12);
  // c/d is not kept, but moved the calibration: loss 0.2 per share vs 0.3.
  EXPECT_NEAR(*memory.EquivalentKept("c", "d", 0.7), 1 - 0.3 * std::sqrt(0.4 / 0.3 * 0.2 / 0.3),
              1e-9);
}

}  // namespace
}  // namespace iashim::policy
