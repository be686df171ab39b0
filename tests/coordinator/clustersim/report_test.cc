#include "coordinator/clustersim/report.h"

#include <vector>

#include "coordinator/clustersim/report_writers.h"
#include "gtest/gtest.h"

namespace iashim::clustersim {
namespace {

TEST(Percentile, InterpolatesBetweenOrderStatistics) {
  EXPECT_DOUBLE_EQ(Percentile({2, 1}, 0.5), 1.5);
  EXPECT_DOUBLE_EQ(Percentile({5}, 0.99), 5);
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3, 4, 5}, 0), 1);
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3, 4, 5}, 1), 5);
  EXPECT_DOUBLE_EQ(Percentile({0, 100}, 0.99), 99);
  EXPECT_TRUE(std::isnan(Percentile({}, 0.5)));
}

JobRecord Record(double jct) {
  JobRecord r;
  r.jct_s = jct;
  return r;
}

TEST(CountLaterThan, CountsOnlyBeyondOneMillionth) {
  const std::vector<JobRecord> exclusive = {Record(100), Record(100), Record(100), Record(100)};
  const std::vector<JobRecord> other = {Record(100), Record(100.00001), Record(100.001),
                                        Record(50)};
  EXPECT_EQ(CountLaterThan(other, exclusive), 1);
  EXPECT_EQ(CountLaterThan(exclusive, exclusive), 0);
}

TEST(Summarise, ComputesJctSlowdownAndUtilisation) {
  const std::vector<SimJob> jobs = {{"a", {"A", 1}, 100, 0}, {"b", {"A", 1}, 100, 10}};
  SimResult result;
  result.jobs = {{0, 10, 10, false}, {10, 30, 10, false}};
  result.busy_gpu_seconds = 20;
  result.makespan_s = 30;
  const std::vector<JobRecord> records = MakeJobRecords(jobs, result);
  EXPECT_DOUBLE_EQ(records[1].jct_s, 20);
  EXPECT_DOUBLE_EQ(records[1].slowdown, 2);
  PolicySummary s;
  Summarise(records, result, 2, records, &s);
  EXPECT_EQ(s.jobs, 2);
  EXPECT_DOUBLE_EQ(s.mean_jct_s, 15);
  EXPECT_DOUBLE_EQ(s.mean_slowdown, 1.5);
  EXPECT_DOUBLE_EQ(s.gpu_util, 20.0 / 60);
  EXPECT_EQ(s.later_than_exclusive, 0);
  const std::string csv = JobsCsv(records);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "job,type,scale,arrival_s,start_s,finish_s,jct_s,solo_s,slowdown");
}

TEST(SummariseEnergy, IdlePowerOverTheMakespanPlusBusyPowerByOccupancy) {
  SimResult result;
  result.makespan_s = 3600;
  result.occupied_gpu_seconds = 1800;  // one of two GPUs, half the time
  PolicySummary s;
  s.jobs = 4;
  SummariseEnergy(result, 2, GpuPower{40, 300}, &s);
  // 40 W x 2 GPUs x 1 h + 260 W x 0.5 h = 80 + 130 Wh.
  EXPECT_DOUBLE_EQ(s.energy_kwh, 0.21);
  EXPECT_DOUBLE_EQ(s.energy_per_job_kwh, 0.0525);
  EXPECT_TRUE(PowerOf("v100").has_value());
  EXPECT_FALSE(PowerOf("tpu").has_value());
}

}  // namespace
}  // namespace iashim::clustersim
