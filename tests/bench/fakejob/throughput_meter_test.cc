#include "bench/fakejob/throughput_meter.h"

#include "gtest/gtest.h"

namespace iashim::fakejob {
namespace {

TEST(ThroughputMeterTest, CountsIterationsPerWholeSecond) {
  ThroughputMeter m;
  // 0.3 s iterations ending at 0.3, 0.6, 0.9, 1.2, ...
  std::vector<SecondReport> all;
  for (int i = 1; i <= 7; ++i) {
    for (const SecondReport& r : m.AddIteration(0.3 * i, 0.3)) all.push_back(r);
  }
  ASSERT_EQ(all.size(), 2u);  // seconds 1 and 2 reported (last ends at 2.1)
  EXPECT_DOUBLE_EQ(all[0].t, 1.0);
  EXPECT_EQ(all[0].iters, 3);
  EXPECT_DOUBLE_EQ(all[0].iters_per_s, 3.0);
  EXPECT_NEAR(*all[0].iter_ms, 300.0, 1e-9);
  EXPECT_EQ(all[1].iters, 3);  // ends at 1.2, 1.5, 1.8
  EXPECT_EQ(m.total_iters(), 7);
}

TEST(ThroughputMeterTest, LongIterationsGiveEmptySeconds) {
  ThroughputMeter m;
  std::vector<SecondReport> r = m.AddIteration(2.5, 2.5);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].iters, 0);
  EXPECT_FALSE(r[0].iter_ms.has_value());
  r = m.AddIteration(3.2, 0.7);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_DOUBLE_EQ(r[0].t, 3.0);
  EXPECT_EQ(r[0].iters, 1);
  EXPECT_NEAR(*r[0].iter_ms, 2500.0, 1e-9);
}

TEST(ThroughputMeterTest, JsonLines) {
  SecondReport r{1.0, 9, 9.0, 102.0};
  EXPECT_EQ(SecondReportJson(r), "{\"t\": 1.0, \"iters_per_s\": 9.000, \"iter_ms\": 102.000}");
  r.iter_ms.reset();
  EXPECT_EQ(SecondReportJson(r), "{\"t\": 1.0, \"iters_per_s\": 9.000, \"iter_ms\": null}");
  Summary s{"resnet50", 49, 5.0, 100.0, 4900};
  EXPECT_EQ(SummaryJson(s),
            "{\"summary\": true, \"model\": \"resnet50\", \"iters\": 49, "
            "\"seconds\": 5.000, \"iters_per_s\": 9.800, \"iter_ms\": "
            "102.041, \"gpu_ms\": 100.000, \"launches\": 4900}");
}

}  // namespace
}  // namespace iashim::fakejob
