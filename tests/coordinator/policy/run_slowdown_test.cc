// RunSlowdown: the run's slowdown from the loop's samples, and the target
// the loop is given so that the run keeps the user's. Figures by hand.
#include "coordinator/policy/run_slowdown.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace iashim::policy {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

// One sample a second, from t = first_s, for `seconds` seconds, at `s`.
void Feed(RunSlowdown& run, int first_s, int seconds, std::optional<double> s) {
  for (int t = first_s; t < first_s + seconds; ++t) run.Observe(t * kSecond, s);
}

TEST(RunSlowdown, NothingMeasuredLeavesTheTargetAlone) {
  RunSlowdown run;
  EXPECT_FALSE(run.Slowdown());
  EXPECT_DOUBLE_EQ(run.LoopTarget(0.10), 0.10);
  run.Observe(0, 0.5);  // one sample is a point, not an interval
  EXPECT_FALSE(run.Slowdown());
  EXPECT_DOUBLE_EQ(run.LoopTarget(0.10), 0.10);
}

TEST(RunSlowdown, ARunHeldUnderAimKeepsTheTarget) {
  RunSlowdown run;
  Feed(run, 0, 11, 0.08);  // ten intervals at 0.08
  ASSERT_TRUE(run.Slowdown());
  EXPECT_NEAR(*run.Slowdown(), 0.08, 1e-12);
  EXPECT_DOUBLE_EQ(run.measured_s(), 10);
  EXPECT_DOUBLE_EQ(run.LoopTarget(0.10), 0.10);
}

TEST(RunSlowdown, ARunOverAimLowersTheTargetByTheExcess) {
  RunSlowdown run;
  Feed(run, 0, 11, 0.10);  // at the target: 0.01 over aim (0.09)
  EXPECT_NEAR(run.LoopTarget(0.10), 0.09, 1e-12);
  // One second more at 0.2: elapsed 11, progress 10/1.1 + 1/1.2.
  Feed(run, 11, 1, 0.20);
  const double expected = 11 / (10 / 1.1 + 1 / 1.2) - 1;  // 0.1084
  EXPECT_NEAR(*run.Slowdown(), expected, 1e-12);
  EXPECT_NEAR(run.LoopTarget(0.10), 0.10 - (expected - 0.09), 1e-12);  // 0.0816
  EXPECT_NEAR(run.LoopTarget(0.20), 0.20, 1e-12);  // under 0.18: nothing to repay
}

TEST(RunSlowdown, TheTargetNeverGoesBelowTheFloor) {
  RunSlowdown run;
  Feed(run, 0, 5, 2.0);
  EXPECT_NEAR(*run.Slowdown(), 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(run.LoopTarget(0.10), 0.05);
  EXPECT_DOUBLE_EQ(run.LoopTarget(0.40), 0.20);
}

// The rule itself, as iashim-clustersim's loop uses it (aim 1: it holds a
// job at its target).
TEST(RepaidTarget, LowersByTheExcessOverAimDownToTheFloor) {
  EXPECT_DOUBLE_EQ(RepaidTarget(0.10, 0.10, 1.0, 0.5), 0.10);
  EXPECT_DOUBLE_EQ(RepaidTarget(0.10, 0.03, 1.0, 0.5), 0.10);
  EXPECT_NEAR(RepaidTarget(0.10, 0.12, 1.0, 0.5), 0.08, 1e-12);
  EXPECT_DOUBLE_EQ(RepaidTarget(0.10, 3.0, 1.0, 0.5), 0.05);
  EXPECT_NEAR(RepaidTarget(0.10, 0.10, 0.9, 0.5), 0.09, 1e-12);
  EXPECT_DOUBLE_EQ(RepaidTarget(0.10, std::numeric_limits<double>::infinity(), 1.0, 0.5), 0.10);
  EXPECT_DOUBLE_EQ(RepaidTarget(0, 0.5, 1.0, 0.5), 0);
}

TEST(RunSlowdown, UnknownStretchesAndLongGapsAreNotCounted) {
  RunSlowdown run;
  Feed(run, 0, 3, 0.2);            // two intervals
  Feed(run, 3, 4, std::nullopt);   // unknown: not counted...
  Feed(run, 7, 3, 0.2);            // ...nor the interval after it: two more
  EXPECT_DOUBLE_EQ(run.measured_s(), 4);
  run.Observe(100 * kSecond, 0.2);  // 91 s without a sample: counts as 2
  EXPECT_DOUBLE_EQ(run.measured_s(), 6);
  EXPECT_NEAR(*run.Slowdown(), 0.2, 1e-12);
}

TEST(RunSlowdown, BadSamplesAreUnknownAndTimeGoingBackAddsNothing) {
  RunSlowdown run;
  Feed(run, 0, 3, 0.1);
  run.Observe(3 * kSecond, -0.5);
  run.Observe(4 * kSecond, std::numeric_limits<double>::quiet_NaN());
  run.Observe(5 * kSecond, std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(run.measured_s(), 2);
  run.Observe(6 * kSecond, 0.1);
  run.Observe(7 * kSecond, 0.1);
  run.Observe(6 * kSecond, 5.0);  // behind the last sample
  run.Observe(7 * kSecond, 5.0);  // at it
  EXPECT_DOUBLE_EQ(run.measured_s(), 3);
  EXPECT_NEAR(*run.Slowdown(), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(run.LoopTarget(0), 0);  // no target of its own: the caller's default
}

}  // namespace
}  // namespace iashim::policy
