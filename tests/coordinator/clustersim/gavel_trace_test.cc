#include "coordinator/clustersim/gavel_trace.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace iashim::clustersim {
namespace {

const char* const kTwo =
    "ResNet-18 (batch size 16)\tcd x && python3 main.py\t--num_steps\t1\t1000\t0.000000\t1\n"
    "LM (batch size 20)\tpython3 lm.py\t--steps\t0\t25\t11.500000\t4\n";

TEST(ParseGavelTrace, ReadsJobs) {
  absl::StatusOr<std::vector<TraceJob>> jobs = ParseGavelTrace(kTwo, "t.trace", "t");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].id, "t:1");
  EXPECT_EQ((*jobs)[0].type, (JobType{"ResNet-18 (batch size 16)", 1}));
  EXPECT_EQ((*jobs)[0].total_steps, 1000);
  EXPECT_EQ((*jobs)[1].id, "t:2");
  EXPECT_EQ((*jobs)[1].type.scale, 4);
  EXPECT_DOUBLE_EQ((*jobs)[1].arrival_s, 11.5);
}

TEST(ParseGavelTrace, FinalNewlineIsOptionalAndEmptyIsEmpty) {
  std::string text = kTwo;
  text.pop_back();
  EXPECT_EQ(ParseGavelTrace(text, "t", "t")->size(), 2u);
  EXPECT_TRUE(ParseGavelTrace("", "t", "t")->empty());
}

void ExpectError(const std::string& line2, const std::string& fragment) {
  const std::string text = std::string("A\tc\t-s\t1\t10\t0\t1\n") + line2 + "\n";
  absl::StatusOr<std::vector<TraceJob>> jobs = ParseGavelTrace(text, "x.trace", "x");
  ASSERT_FALSE(jobs.ok()) << line2;
  const std::string message(jobs.status().message());
  EXPECT_NE(message.find("x.trace:2: "), std::string::npos) << message;
  EXPECT_NE(message.find(fragment), std::string::npos) << message << " / " << fragment;
}

TEST(ParseGavelTrace, NamesTheLineAndField) {
  ExpectError("", "empty line");
  ExpectError("A\tc\t-s\t1\t10\t0", "6 tab-separated fields");
  ExpectError("A\tc\t-s\t1\t10\t0\t1\textra", "8 tab-separated fields");
  ExpectError("\tc\t-s\t1\t10\t0\t1", "job_type (field 1)");
  ExpectError("A\tc\t-s\t2\t10\t0\t1", "needs_data_dir (field 4)");
  ExpectError("A\tc\t-s\t1\t0\t0\t1", "total_steps (field 5)");
  ExpectError("A\tc\t-s\t1\t-5\t0\t1", "total_steps (field 5)");
  ExpectError("A\tc\t-s\t1\t1.5\t0\t1", "total_steps (field 5)");
  ExpectError("A\tc\t-s\t1\t10\t-1\t1", "arrival_time_s (field 6)");
  ExpectError("A\tc\t-s\t1\t10\tnan\t1", "arrival_time_s (field 6)");
  ExpectError("A\tc\t-s\t1\t10\t1e3\t1", "arrival_time_s (field 6)");
  ExpectError("A\tc\t-s\t1\t10\t\t1", "arrival_time_s (field 6)");
  ExpectError("A\tc\t-s\t1\t10\t0\t0", "scale_factor (field 7)");
  ExpectError("A\tc\t-s\t1\t10\t0\ttwo", "scale_factor (field 7)");
}

TEST(ReadGavelTraces, MergesByArrivalAndRejectsClashingNames) {
  const std::string dir = std::string(IASHIM_SOURCE_DIR) + "/bench/data/gavel/msr-seed0/";
  const std::vector<std::string> paths = {dir + "23dbec.trace", dir + "51b7ef.trace"};
  absl::StatusOr<std::vector<TraceJob>> jobs = ReadGavelTraces(paths);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(jobs->size(), 27u);
  for (size_t i = 1; i < jobs->size(); ++i) {
    EXPECT_LE((*jobs)[i - 1].arrival_s, (*jobs)[i].arrival_s);
  }
  const std::vector<std::string> twice = {dir + "23dbec.trace", dir + "23dbec.trace"};
  EXPECT_FALSE(ReadGavelTraces(twice).ok());
  const std::vector<std::string> missing = {dir + "nope.trace"};
  EXPECT_FALSE(ReadGavelTraces(missing).ok());
}

}  // namespace
}  // namespace iashim::clustersim
