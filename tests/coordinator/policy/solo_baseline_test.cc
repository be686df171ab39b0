#include "coordinator/policy/solo_baseline.h"

#include <gtest/gtest.h>

#include <cmath>

namespace iashim::policy {
namespace {

TEST(SoloBaselineTest, UnknownUntilEnoughWindows) {
  SoloBaseline b({.min_windows = 3, .history = 15});
  b.AddSoloWindow(100, 1000);
  b.AddSoloWindow(100, 1000);
  EXPECT_FALSE(b.iteration_ns().has_value());
  EXPECT_FALSE(b.kernels_per_s().has_value());
  b.AddSoloWindow(100, 1000);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 100);
  EXPECT_DOUBLE_EQ(*b.kernels_per_s(), 1000);
}

TEST(SoloBaselineTest, AnEventWindowIsLeftOut) {
  SoloBaseline b({.min_windows = 3, .history = 15});
  // 5000: a window that caught a checkpoint; 40: the end of a stall.
  for (double v : {100.0, 102.0, 98.0, 5000.0, 101.0, 40.0}) b.AddSoloWindow(v, 0);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 100.25);  // the mean of the other four
  EXPECT_FALSE(b.kernels_per_s().has_value());  // 0 = not measured
}

// A busy host slows a few windows by a few percent and never speeds one up.
// The running speed the slowdown compares with is a mean, so the baseline
// must count those windows too: the median would sit at the fast ones and
// read every slowdown high by the jitter's mean.
TEST(SoloBaselineTest, OneSidedJitterCountsAsTheMeanDoes) {
  SoloBaseline b({.min_windows = 3, .history = 15});
  const double windows[] = {100, 100, 100, 100, 100, 100, 100, 100, 100, 103, 104, 106, 108, 112};
  double sum = 0;
  for (double v : windows) {
    b.AddSoloWindow(v, 0);
    sum += v;
  }
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), sum / std::size(windows));  // 102.357..., the median 100
}

TEST(SoloBaselineTest, AJobThatVariesKeepsItsWholeSpread) {
  // Iterations of different lengths (sequence bucketing): a spread wider than
  // a quarter of the median is the job's own, not an event.
  SoloBaseline b({.min_windows = 1, .history = 15});
  for (double v : {10.0, 40.0, 20.0, 30.0, 15.0, 35.0}) b.AddSoloWindow(v, 0);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 25);
}

TEST(SoloBaselineTest, KeepsOnlyTheRecentHistory) {
  SoloBaseline b({.min_windows = 1, .history = 3});
  for (double v : {10.0, 10.0, 10.0, 50.0, 50.0, 50.0}) b.AddSoloWindow(v, 0);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 50);
  EXPECT_EQ(b.iteration_samples(), 3u);
}

TEST(SoloBaselineTest, SeedStandsInUntilOwnMeasurementsSuffice) {
  SoloBaseline b({.min_windows = 2, .history = 15});
  b.Seed(200, 500);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 200);
  EXPECT_DOUBLE_EQ(*b.kernels_per_s(), 500);
  b.AddSoloWindow(100, 0);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 200);
  b.AddSoloWindow(100, 0);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 100);
  EXPECT_DOUBLE_EQ(*b.kernels_per_s(), 500);  // no own rate samples yet
}

TEST(SoloBaselineTest, IgnoresNonsense) {
  SoloBaseline b({.min_windows = 1, .history = 15});
  b.AddSoloWindow(NAN, INFINITY);
  b.AddSoloWindow(-5, -5);
  b.Seed(0, NAN);
  EXPECT_FALSE(b.iteration_ns().has_value());
  EXPECT_FALSE(b.kernels_per_s().has_value());
}

TEST(SoloBaselineTest, SourceSaysWhereTheEstimateCameFrom) {
  SoloBaseline b({.min_windows = 2, .history = 15});
  EXPECT_EQ(b.source(), BaselineSource::kNone);
  b.Seed(100, 0);
  EXPECT_EQ(b.source(), BaselineSource::kSaved);
  b.AddSoloWindow(90, 0, BaselineSource::kProbe);
  EXPECT_EQ(b.source(), BaselineSource::kSaved);  // one own window does not replace the seed
  b.AddSoloWindow(90, 0, BaselineSource::kProbe);
  EXPECT_EQ(b.source(), BaselineSource::kProbe);
  b.AddSoloWindow(80, 0);  // later alone on the GPU
  EXPECT_EQ(b.source(), BaselineSource::kAlone);
}

// The host kept the job's threads waiting at its start: those windows stand
// in until there are enough others, and then drop out.
TEST(SoloBaselineTest, WindowsContendedForACpuServeOnlyUntilEnoughOthers) {
  SoloBaseline b({.min_windows = 3, .history = 15});
  constexpr bool kContended = true;
  for (int i = 0; i < 3; ++i) b.AddSoloWindow(110, 1000, BaselineSource::kAlone, kContended);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 110);
  EXPECT_TRUE(b.contended());
  EXPECT_EQ(b.source(), BaselineSource::kAlone);
  b.AddSoloWindow(100, 1100);
  b.AddSoloWindow(100, 1100);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 106);  // all five: two uncontended are not enough
  EXPECT_TRUE(b.contended());
  b.AddSoloWindow(100, 1100, BaselineSource::kProbe);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 100);
  EXPECT_DOUBLE_EQ(*b.kernels_per_s(), 1100);
  EXPECT_FALSE(b.contended());
  EXPECT_EQ(b.source(), BaselineSource::kProbe);
  // Later contended windows no longer move it, however many.
  for (int i = 0; i < 30; ++i) b.AddSoloWindow(120, 900, BaselineSource::kAlone, kContended);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 100);
  EXPECT_FALSE(b.contended());
}

// A seed is another run's (perhaps another batch size's): the job's own
// windows, even contended ones, replace it as before.
TEST(SoloBaselineTest, ContendedOwnWindowsStillReplaceASeed) {
  SoloBaseline b({.min_windows = 2, .history = 15});
  b.Seed(200, 0);
  EXPECT_FALSE(b.contended());  // a seed is not a measurement of this host now
  b.AddSoloWindow(100, 0, BaselineSource::kAlone, true);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 200);
  b.AddSoloWindow(100, 0, BaselineSource::kAlone, true);
  EXPECT_DOUBLE_EQ(*b.iteration_ns(), 100);
  EXPECT_TRUE(b.contended());
}

TEST(SoloBaselineTest, SourceOfARateOnlyBaseline) {
  SoloBaseline b({.min_windows = 1, .history = 15});
  b.AddSoloWindow(0, 500, BaselineSource::kProbe);
  EXPECT_EQ(b.source(), BaselineSource::kProbe);
  EXPECT_EQ(BaselineSourceName(b.source()), "probe");
  EXPECT_EQ(BaselineSourceName(BaselineSource::kNone), "-");
}

}  // namespace
}  // namespace iashim::policy
