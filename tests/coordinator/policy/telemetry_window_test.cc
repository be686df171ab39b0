#include "coordinator/policy/telemetry_window.h"

#include <gtest/gtest.h>

#include <cmath>

namespace iashim::policy {
namespace {

TelemetryWindow Good() {
  TelemetryWindow w;
  w.window_start_ns = 1'000'000'000;
  w.window_end_ns = 2'000'000'000;
  w.launches = 1000;
  w.iterations = 10;
  w.iteration_ns = 100'000'000;
  w.kernels = {{.kernel = 7, .launches = 1000, .sampled = 10, .gpu_ns_sum = 10'000'000}};
  return w;
}

TEST(TelemetryWindowTest, AcceptsAnOrdinaryWindow) {
  EXPECT_EQ(CheckWindow(Good()), WindowDefect::kNone);
}

TEST(TelemetryWindowTest, FindsEachDefect) {
  TelemetryWindow w = Good();
  w.window_end_ns = w.window_start_ns;
  EXPECT_EQ(CheckWindow(w), WindowDefect::kEmpty);
  w.window_end_ns = w.window_start_ns - 1;
  EXPECT_EQ(CheckWindow(w), WindowDefect::kEmpty);

  w = Good();
  w.window_end_ns = w.window_start_ns + 3'600'000'000'000;
  EXPECT_EQ(CheckWindow(w), WindowDefect::kTooLong);

  w = Good();
  w.iteration_ns = UINT64_MAX;
  EXPECT_EQ(CheckWindow(w), WindowDefect::kAbsurdIteration);

  w = Good();
  w.launches = 1'000'000'000;
  EXPECT_EQ(CheckWindow(w), WindowDefect::kAbsurdRate);

  w = Good();
  w.kernels[0].gpu_ns_sum = UINT64_MAX;
  EXPECT_EQ(CheckWindow(w), WindowDefect::kAbsurdKernel);

  for (double share : {0.0, -1.0, 1.5, double{NAN}, double{INFINITY}}) {
    w = Good();
    w.budget_share = share;
    EXPECT_EQ(CheckWindow(w), WindowDefect::kAbsurdShare) << share;
  }

  w = Good();
  w.mem_used_bytes = UINT64_MAX;
  EXPECT_EQ(CheckWindow(w), WindowDefect::kAbsurdMemory);

  w = Good();
  w.cpu_wait_ns = w.window_end_ns - w.window_start_ns;  // waited all the window: possible
  EXPECT_EQ(CheckWindow(w), WindowDefect::kNone);
  w.cpu_wait_ns = UINT64_MAX;
  EXPECT_EQ(CheckWindow(w), WindowDefect::kAbsurdCpuWait);
}

TEST(TelemetryWindowTest, LimitsAreConfigurable) {
  TelemetryWindow w = Good();
  WindowLimits tight;
  tight.max_window_ns = 500'000'000;
  EXPECT_EQ(CheckWindow(w, tight), WindowDefect::kTooLong);
}

TEST(TelemetryWindowTest, NamesEveryDefect) {
  EXPECT_EQ(WindowDefectName(WindowDefect::kNone), "none");
  EXPECT_EQ(WindowDefectName(WindowDefect::kAbsurdShare), "absurd budget share");
  EXPECT_EQ(WindowDefectName(WindowDefect::kAbsurdCpuWait), "absurd CPU wait");
}

}  // namespace
}  // namespace iashim::policy
