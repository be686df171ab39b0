#include "coordinator/policy/solo_probe.h"

#include <gtest/gtest.h>

namespace iashim::policy {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;

// A guaranteed job sharing its GPU, warmed up, 100 ms windows, 250 ms iterations.
SoloProbeInput Ready() {
  return {.shared = true, .has_baseline = false, .telemetry_s = 3, .window_s = 0.1,
          .iteration_s = 0.25, .corunners_held = false};
}

TEST(SoloProbeTest, WaitsForWarmUpSharingAndNoBaseline) {
  SoloProbe p;
  SoloProbeInput in = Ready();
  in.telemetry_s = 1;
  EXPECT_EQ(p.Step(0, in).event, SoloProbeEvent::kNone);
  in = Ready();
  in.shared = false;
  EXPECT_EQ(p.Step(0, in).event, SoloProbeEvent::kNone);
  in = Ready();
  in.has_baseline = true;
  EXPECT_EQ(p.Step(0, in).event, SoloProbeEvent::kNone);
  in = Ready();
  in.window_s = 0;
  EXPECT_EQ(p.Step(0, in).event, SoloProbeEvent::kNone);
  EXPECT_EQ(p.state().phase, SoloProbePhase::kIdle);
  EXPECT_EQ(p.state().attempts, 0);
}

TEST(SoloProbeTest, HoldsSettlesMeasuresAndReleases) {
  SoloProbe p;
  SoloProbeInput in = Ready();
  SoloProbeStep s = p.Step(0, in);
  EXPECT_EQ(s.event, SoloProbeEvent::kStarted);
  EXPECT_TRUE(s.hold);
  EXPECT_FALSE(s.solo);
  // Co-runners not yet reporting the hold: nothing counts as solo.
  s = p.Step(100 * kMs, in);
  EXPECT_TRUE(s.hold);
  EXPECT_FALSE(s.solo);
  EXPECT_EQ(p.state().phase, SoloProbePhase::kApplying);
  in.corunners_held = true;
  s = p.Step(200 * kMs, in);
  EXPECT_EQ(p.state().phase, SoloProbePhase::kSettling);
  // settle = window 0.1 + iteration 0.25 + margin 0.2 = 0.55 s.
  EXPECT_EQ(p.state().measure_from_ns, 750 * kMs);
  // measure = max(5 x 0.1, 4 x 0.25) = 1 s.
  EXPECT_EQ(p.state().measure_until_ns, 1750 * kMs);
  EXPECT_FALSE(s.solo);
  EXPECT_FALSE(p.Solo(700 * kMs));
  EXPECT_TRUE(p.Solo(760 * kMs));  // between steps, too
  s = p.Step(800 * kMs, in);
  EXPECT_TRUE(s.solo);
  EXPECT_TRUE(s.hold);
  in.has_baseline = true;  // enough solo windows, but measure_s not over
  s = p.Step(1500 * kMs, in);
  EXPECT_EQ(s.event, SoloProbeEvent::kNone);
  EXPECT_TRUE(s.hold);
  s = p.Step(1800 * kMs, in);
  EXPECT_EQ(s.event, SoloProbeEvent::kMeasured);
  EXPECT_FALSE(s.hold);
  EXPECT_FALSE(s.solo);
  EXPECT_EQ(p.state().phase, SoloProbePhase::kDone);
  // Done: never again, even if asked.
  in.has_baseline = false;
  EXPECT_EQ(p.Step(100 * kS, in).event, SoloProbeEvent::kNone);
}

// A baseline measured while the host's CPUs kept the job waiting reads it
// slow: probed again, and again later if the probe's windows were contended
// too; done once a probe measured it uncontended.
TEST(SoloProbeTest, ABaselineContendedForACpuIsProbedAgain) {
  SoloProbe p({.retry_after_s = 60, .max_attempts = 3});
  SoloProbeInput in = Ready();
  in.has_baseline = true;
  in.baseline_contended = true;
  EXPECT_EQ(p.Step(0, in).event, SoloProbeEvent::kStarted);
  in.corunners_held = true;
  p.Step(100 * kMs, in);  // settles until 0.65 s, measures until 1.65 s
  EXPECT_TRUE(p.Step(1 * kS, in).solo);
  SoloProbeStep s = p.Step(1700 * kMs, in);
  EXPECT_EQ(s.event, SoloProbeEvent::kContended);
  EXPECT_FALSE(s.hold);
  EXPECT_EQ(p.state().phase, SoloProbePhase::kIdle);
  in.corunners_held = false;
  EXPECT_EQ(p.Step(61 * kS, in).event, SoloProbeEvent::kNone);  // retried after 60 s
  EXPECT_EQ(p.Step(62 * kS, in).event, SoloProbeEvent::kStarted);
  in.corunners_held = true;
  p.Step(62100 * kMs, in);
  in.baseline_contended = false;  // the probe's own windows were not
  EXPECT_EQ(p.Step(63700 * kMs, in).event, SoloProbeEvent::kMeasured);
  EXPECT_EQ(p.state().phase, SoloProbePhase::kDone);
}

TEST(SoloProbeTest, MeasureLengthFollowsWindowAndIterationWithinBounds) {
  SoloProbe p({.min_measure_s = 1, .max_measure_s = 4});
  SoloProbeInput in = Ready();
  in.window_s = 0.5;
  in.iteration_s = 0.1;
  EXPECT_DOUBLE_EQ(p.MeasureSeconds(in), 2.5);  // 5 windows
  in.window_s = 0.1;
  in.iteration_s = 0.6;
  EXPECT_DOUBLE_EQ(p.MeasureSeconds(in), 2.4);  // 4 iterations
  in.iteration_s = 30;
  EXPECT_DOUBLE_EQ(p.MeasureSeconds(in), 4);  // capped
  in.iteration_s = std::nullopt;
  EXPECT_DOUBLE_EQ(p.MeasureSeconds(in), 1);  // floored
  in.iteration_s = 30;
  EXPECT_LE(p.SettleSeconds(in), p.options().max_hold_s / 2);
}

TEST(SoloProbeTest, CoRunnersThatNeverTakeTheHoldAreReleasedOnTheDeadline) {
  SoloProbe p({.max_hold_s = 8, .retry_after_s = 60, .max_attempts = 2});
  SoloProbeInput in = Ready();
  EXPECT_EQ(p.Step(0, in).event, SoloProbeEvent::kStarted);
  EXPECT_TRUE(p.Step(7 * kS, in).hold);
  SoloProbeStep s = p.Step(8 * kS, in);
  EXPECT_EQ(s.event, SoloProbeEvent::kTimedOut);
  EXPECT_FALSE(s.hold);
  EXPECT_EQ(p.state().phase, SoloProbePhase::kIdle);
  // Retried after 60 s, not before.
  EXPECT_EQ(p.Step(67 * kS, in).event, SoloProbeEvent::kNone);
  EXPECT_EQ(p.Step(68 * kS, in).event, SoloProbeEvent::kStarted);
  EXPECT_EQ(p.Step(76 * kS, in).event, SoloProbeEvent::kTimedOut);
  // Second failure: the wait doubles, then max_attempts is reached.
  EXPECT_EQ(p.Step(195 * kS, in).event, SoloProbeEvent::kNone);
  EXPECT_EQ(p.Step(197 * kS, in).event, SoloProbeEvent::kNone);
  EXPECT_EQ(p.state().phase, SoloProbePhase::kGaveUp);
  EXPECT_FALSE(p.Step(1000 * kS, in).hold);
}

TEST(SoloProbeTest, MeasuredButSlowIsStillReleasedOnTheDeadline) {
  SoloProbe p({.max_hold_s = 3});
  SoloProbeInput in = Ready();
  in.iteration_s = 10;  // measure_s capped at 4 s, past the 3 s hold
  p.Step(0, in);
  in.corunners_held = true;
  p.Step(100 * kMs, in);
  in.has_baseline = true;
  EXPECT_TRUE(p.Step(2 * kS, in).hold);
  EXPECT_EQ(p.Step(3 * kS, in).event, SoloProbeEvent::kMeasured);
}

TEST(SoloProbeTest, ACoRunnerLeavingEndsTheProbeWithoutCountingIt) {
  SoloProbe p;
  SoloProbeInput in = Ready();
  p.Step(0, in);
  in.shared = false;
  SoloProbeStep s = p.Step(500 * kMs, in);
  EXPECT_EQ(s.event, SoloProbeEvent::kAborted);
  EXPECT_FALSE(s.hold);
  EXPECT_EQ(p.state().attempts, 0);
  in.shared = true;
  EXPECT_EQ(p.Step(600 * kMs, in).event, SoloProbeEvent::kStarted);
}

}  // namespace
}  // namespace iashim::policy
