// The figures and tables iashim-gate-bench prints, and how it reads a job's
// summary.
#include <cmath>
#include <string>

#include "bench/gate/job_runner.h"
#include "bench/gate/metrics.h"
#include "bench/gate/table.h"
#include "gtest/gtest.h"

namespace iashim::gatebench {
namespace {

TEST(MetricsTest, SplitErrorAndRatio) {
  EXPECT_DOUBLE_EQ(SplitOf(3, 7), 0.3);
  EXPECT_TRUE(std::isnan(SplitOf(0, 0)));
  EXPECT_NEAR(ErrorPp(0.25, 0.3), -5.0, 1e-9);
  EXPECT_DOUBLE_EQ(Ratio(9.8, 10), 0.98);
  EXPECT_TRUE(std::isnan(Ratio(1, 0)));
}

TEST(TableTest, AlignedMarkdown) {
  Table t({"pair", "it/s"});
  t.AddRow({"resnet50+lstm", Fixed(4.123, 2)});
  t.AddRow({"x"});  // a missing cell is blank
  EXPECT_EQ(t.Markdown(),
            "| pair          | it/s |\n"
            "| ------------- | ---- |\n"
            "| resnet50+lstm | 4.12 |\n"
            "| x             |      |\n");
  EXPECT_EQ(Fixed(std::nan(""), 3), "n/a");
}

TEST(SummaryTest, ReadsTheLastSummaryLine) {
  const std::string out =
      "{\"t\": 1.0, \"iters_per_s\": 9.0, \"iter_ms\": 1.0}\n"
      "{\"summary\": true, \"model\": \"lstm\", \"iters\": 128, \"seconds\": 2.013, "
      "\"iters_per_s\": 63.589, \"iter_ms\": 15.726}\n";
  absl::StatusOr<double> v = SummaryItersPerS(out);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_DOUBLE_EQ(*v, 63.589);
  EXPECT_FALSE(SummaryItersPerS("{\"t\": 1.0, \"iters_per_s\": 9.0}\n").ok());
  EXPECT_FALSE(SummaryItersPerS("").ok());
}

}  // namespace
}  // namespace iashim::gatebench
