#include "coordinator/metrics/prometheus_text.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "gtest/gtest.h"

namespace iashim::metrics {
namespace {

TEST(PrometheusTextTest, RendersFamiliesAndSamples) {
  ExpositionBuilder b;
  b.Gauge("iashim_gpu_memory_used_bytes", "Memory in use on a GPU.");
  b.Sample({{"host", "gpu-01"}, {"gpu", "0"}}, 1.5e9);
  b.Sample({{"host", "gpu-01"}, {"gpu", "1"}}, 0);
  b.Counter("iashim_messages_dropped_total", "Invalid messages dropped.");
  b.Sample(3);
  b.Gauge("iashim_empty", "A family with no samples yet.");
  absl::StatusOr<std::string> text = std::move(b).Finish();
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "# HELP iashim_gpu_memory_used_bytes Memory in use on a GPU.\n"
            "# TYPE iashim_gpu_memory_used_bytes gauge\n"
            "iashim_gpu_memory_used_bytes{host=\"gpu-01\",gpu=\"0\"} 1500000000\n"
            "iashim_gpu_memory_used_bytes{host=\"gpu-01\",gpu=\"1\"} 0\n"
            "# HELP iashim_messages_dropped_total Invalid messages dropped.\n"
            "# TYPE iashim_messages_dropped_total counter\n"
            "iashim_messages_dropped_total 3\n"
            "# HELP iashim_empty A family with no samples yet.\n"
            "# TYPE iashim_empty gauge\n");
}

TEST(PrometheusTextTest, EscapesLabelValuesAndHelp) {
  EXPECT_EQ(EscapeLabelValue("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(EscapeHelp("a\\b\"c\nd"), "a\\\\b\"c\\nd");
  EXPECT_EQ(EscapeLabelValue("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80"),
            "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80");  // valid UTF-8 stays

  ExpositionBuilder b;
  b.Gauge("job_info", "Jobs \\ \"quoted\"\nsecond line");
  b.Sample({{"job", "train \"big\"\n\\ run"}}, 1);
  absl::StatusOr<std::string> text = std::move(b).Finish();
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "# HELP job_info Jobs \\\\ \"quoted\"\\nsecond line\n"
            "# TYPE job_info gauge\n"
            "job_info{job=\"train \\\"big\\\"\\n\\\\ run\"} 1\n");
}

TEST(PrometheusTextTest, ReplacesInvalidUtf8) {
  const std::string kReplacement = "\xef\xbf\xbd";
  EXPECT_EQ(EscapeLabelValue("a\xff"
                             "b"),
            "a" + kReplacement + "b");
  EXPECT_EQ(EscapeLabelValue("\xc3"), kReplacement);                     // truncated
  EXPECT_EQ(EscapeLabelValue("\xc0\xaf"), kReplacement + kReplacement);  // overlong '/'
  EXPECT_EQ(EscapeLabelValue("\xed\xa0\x80"), kReplacement + kReplacement + kReplacement);
  EXPECT_EQ(EscapeHelp("\xf4\x90\x80\x80"),
            kReplacement + kReplacement + kReplacement + kReplacement);  // past U+10FFFF
}

TEST(PrometheusTextTest, FormatsValues) {
  EXPECT_EQ(FormatSampleValue(0), "0");
  EXPECT_EQ(FormatSampleValue(-0.0), "0");
  EXPECT_EQ(FormatSampleValue(42), "42");
  EXPECT_EQ(FormatSampleValue(-7), "-7");
  EXPECT_EQ(FormatSampleValue(0.25), "0.25");
  EXPECT_EQ(FormatSampleValue(0.1), "0.1");
  EXPECT_EQ(FormatSampleValue(1e21), "1e+21");
  EXPECT_EQ(FormatSampleValue(1.5e-7), "1.5e-07");
  EXPECT_EQ(FormatSampleValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatSampleValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatSampleValue(-std::numeric_limits<double>::infinity()), "-Inf");
}

TEST(PrometheusTextTest, ValidatesNames) {
  EXPECT_TRUE(ValidMetricName("iashim_jobs"));
  EXPECT_TRUE(ValidMetricName("_x:y9"));
  EXPECT_FALSE(ValidMetricName(""));
  EXPECT_FALSE(ValidMetricName("9lives"));
  EXPECT_FALSE(ValidMetricName("a-b"));
  EXPECT_FALSE(ValidMetricName("a b"));
  EXPECT_FALSE(ValidMetricName("caf\xc3\xa9"));
  EXPECT_TRUE(ValidLabelName("gpu"));
  EXPECT_TRUE(ValidLabelName("_x9"));
  EXPECT_FALSE(ValidLabelName("__name__"));
  EXPECT_FALSE(ValidLabelName("a:b"));
  EXPECT_FALSE(ValidLabelName("1a"));
  EXPECT_FALSE(ValidLabelName(""));
}

// Builds with `build` and returns Finish()'s error message ("" if it succeeded).
template <typename F>
std::string ErrorOf(F build) {
  ExpositionBuilder b;
  build(b);
  absl::StatusOr<std::string> text = std::move(b).Finish();
  if (text.ok()) return "";
  EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(text.status().message());
}

TEST(PrometheusTextTest, ReportsTheFirstMistake) {
  EXPECT_EQ(ErrorOf([](ExpositionBuilder& b) { b.Gauge("bad-name", "x"); }),
            "invalid metric name 'bad-name': use [a-zA-Z_:][a-zA-Z0-9_:]*");
  EXPECT_EQ(ErrorOf([](ExpositionBuilder& b) { b.Counter("requests", "x"); }),
            "counter 'requests' must end in _total");
  EXPECT_EQ(ErrorOf([](ExpositionBuilder& b) {
              b.Gauge("a", "x");
              b.Gauge("b", "x");
              b.Gauge("a", "x");
            }),
            "metric 'a' is declared twice");
  EXPECT_EQ(ErrorOf([](ExpositionBuilder& b) { b.Sample(1); }),
            "sample before any metric was declared");
  EXPECT_EQ(ErrorOf([](ExpositionBuilder& b) {
              b.Gauge("a", "x");
              b.Sample({{"__name__", "v"}}, 1);
            }),
            "metric 'a': invalid label name '__name__': use [a-zA-Z_][a-zA-Z0-9_]*, not "
            "starting with __");
  EXPECT_EQ(ErrorOf([](ExpositionBuilder& b) {
              b.Gauge("a", "x");
              b.Sample({{"k", "1"}, {"k", "2"}}, 1);
            }),
            "metric 'a': label 'k' is given twice");
  EXPECT_EQ(ErrorOf([](ExpositionBuilder& b) {
              b.Gauge("a", "x");
              b.Sample({{"k", "1"}, {"j", "2"}}, 1);
              b.Sample({{"j", "2"}, {"k", "1"}}, 2);
            }),
            "metric 'a': series {j=\"2\",k=\"1\"} is given twice");
  EXPECT_EQ(ErrorOf([](ExpositionBuilder& b) {
              b.Gauge("a", "x");
              b.Sample(1);
              b.Sample(2);
            }),
            "metric 'a': series {} is given twice");
  EXPECT_EQ(ErrorOf([](ExpositionBuilder& b) {
              b.Counter("c_total", "x");
              b.Sample(-1);
            }),
            "counter 'c_total' has the value -1; counters are never negative or NaN");
  EXPECT_EQ(ErrorOf([](ExpositionBuilder& b) {
              b.Counter("c_total", "x");
              b.Sample(std::nan(""));
            }),
            "counter 'c_total' has the value NaN; counters are never negative or NaN");
  // Only the first mistake is reported; later calls change nothing.
  EXPECT_EQ(ErrorOf([](ExpositionBuilder& b) {
              b.Gauge("1st", "x");
              b.Gauge("2nd", "x");
            }),
            "invalid metric name '1st': use [a-zA-Z_:][a-zA-Z0-9_:]*");
  // The same series in two families is two series.
  EXPECT_EQ(ErrorOf([](ExpositionBuilder& b) {
              b.Gauge("a", "x");
              b.Sample({{"k", "1"}}, 1);
              b.Gauge("b", "x");
              b.Sample({{"k", "1"}}, 1);
            }),
            "");
}

}  // namespace
}  // namespace iashim::metrics
