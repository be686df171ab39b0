#include "coordinator/clustersim/gavel_throughputs.h"

#include <string>

#include "gtest/gtest.h"

namespace iashim::clustersim {
namespace {

const char* const kGood = R"j({
  "v100": {
    "('A', 1)": {"null": 10.0, "('A', 1)": [6.0, 6.0], "('B', 1)": [5.0, 4.0], "('C', 1)": [0, 0]},
    "('B', 1)": {"null": 8.0, "('A', 1)": [4.0, 5.0]},
    "('A', 2)": {"null": 18.0, "('A', 2)": [0.0, 0.0]}
  },
  "k80": {"('A', 1)": {"null": 1.0}}
})j";

TEST(ParseJobTypeKey, ParsesGavelKeys) {
  absl::StatusOr<JobType> t = ParseJobTypeKey("('ResNet-18 (batch size 16)', 4)");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->name, "ResNet-18 (batch size 16)");
  EXPECT_EQ(t->scale, 4);
  EXPECT_EQ(JobTypeKey(*t), "('ResNet-18 (batch size 16)', 4)");
}

TEST(ParseJobTypeKey, RejectsMalformedKeys) {
  for (const char* key :
       {"ResNet", "('A', 1", "(A, 1)", "('A',1)", "('', 1)", "('A', 0)", "('A', -1)", "('A', x)",
        "('A', 1) ", "('A', )", "('A'', 1)", "('A', 01)"}) {
    EXPECT_FALSE(ParseJobTypeKey(key).ok()) << key;
  }
}

TEST(ParseGavelThroughputs, ReadsSoloAndPairs) {
  absl::StatusOr<GavelThroughputs> t = ParseGavelThroughputs(kGood, "v100", "f.json");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->Solo({"A", 1}), 10.0);
  EXPECT_EQ(t->Solo({"A", 2}), 18.0);
  EXPECT_FALSE(t->Solo({"C", 1}).has_value());
  ASSERT_TRUE(t->Pair({"A", 1}, {"B", 1}).has_value());
  EXPECT_EQ(t->Pair({"A", 1}, {"B", 1})->a, 5.0);
  EXPECT_EQ(t->Pair({"A", 1}, {"B", 1})->b, 4.0);
  EXPECT_EQ(t->Pair({"B", 1}, {"A", 1})->a, 4.0);
  EXPECT_EQ(t->Types().size(), 3u);
}

TEST(ParseGavelThroughputs, ZeroPairMeansCannotShare) {
  absl::StatusOr<GavelThroughputs> t = ParseGavelThroughputs(kGood, "v100", "f.json");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_FALSE(t->Pair({"A", 1}, {"C", 1}).has_value());  // [0, 0]
  EXPECT_FALSE(t->Pair({"A", 2}, {"A", 2}).has_value());  // [0.0, 0.0]
  EXPECT_FALSE(t->Pair({"B", 1}, {"B", 1}).has_value());  // not in the file
}

TEST(ParseGavelThroughputs, ReadsOnlyTheAskedGpuType) {
  absl::StatusOr<GavelThroughputs> t = ParseGavelThroughputs(kGood, "k80", "f.json");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->Solo({"A", 1}), 1.0);
  absl::StatusOr<GavelThroughputs> none = ParseGavelThroughputs(kGood, "a100", "f.json");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no GPU type \"a100\""), std::string::npos);
  EXPECT_NE(none.status().message().find("v100"), std::string::npos);  // lists what there is
}

void ExpectError(const std::string& json, const std::string& fragment) {
  absl::StatusOr<GavelThroughputs> t = ParseGavelThroughputs(json, "v100", "f.json");
  ASSERT_FALSE(t.ok()) << json;
  EXPECT_NE(t.status().message().find(fragment), std::string::npos)
      << t.status().message() << " should mention " << fragment;
  EXPECT_NE(t.status().message().find("f.json"), std::string::npos);
}

// k80 lists ('ResNet-50 (batch size 128)', 2) with a solo throughput of 0:
// not measured, so the type is left out (its jobs are skipped), not an error.
TEST(ParseGavelThroughputs, ASoloThroughputOfZeroLeavesTheTypeOut) {
  absl::StatusOr<GavelThroughputs> t = ParseGavelThroughputs(
      R"j({"k80": {"('A', 1)": {"null": 0, "('B', 1)": [0, 0]},
                   "('B', 1)": {"null": 2, "('A', 1)": [0, 0]}}})j",
      "k80", "f.json");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_FALSE(t->Solo({"A", 1}).has_value());
  EXPECT_EQ(t->Solo({"B", 1}), 2.0);
}

TEST(ParseGavelThroughputs, ReadsTriplesWhenTheFileHasThem) {
  absl::StatusOr<GavelThroughputs> t = ParseGavelThroughputs(
      R"j({"v100": {"('A', 1)": {"null": 10}},
           "v100 triples": [["('A', 1)", "('B', 1)", "('C', 1)", 4.5]]})j",
      "v100", "f.json");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->Triple({"A", 1}, {"B", 1}, {"C", 1}), 4.5);
  EXPECT_EQ(t->Triple({"A", 1}, {"C", 1}, {"B", 1}), 4.5);  // the others in either order
  EXPECT_FALSE(t->Triple({"B", 1}, {"A", 1}, {"C", 1}).has_value());
  EXPECT_FALSE(ParseGavelThroughputs(kGood, "v100", "f.json")->Triple({"A", 1}, {"A", 1}, {"A", 1}));
}

TEST(ParseGavelThroughputs, RejectsBadFiles) {
  ExpectError(R"j({"v100": {}, "v100 triples": {}})j", "\"v100 triples\" is not an array");
  ExpectError(R"j({"v100": {}, "v100 triples": [["('A', 1)", "('B', 1)", 1]]})j",
              "not [job, other, other, the job's steps/s]");
  ExpectError(R"j({"v100": {}, "v100 triples": [["('A', 1)", "B", "('C', 1)", 1]]})j",
              "job type key \"B\"");
  ExpectError(R"j({"v100": {}, "v100 triples": [["('A', 1)", "('B', 1)", "('C', 1)", -1]]})j",
              "finite throughput >= 0");
  ExpectError("{", "not valid JSON");
  ExpectError("[]", "not an object");
  ExpectError(R"j({"v100": {"A": {"null": 1}}})j", "job type key \"A\"");
  ExpectError(R"j({"v100": {"('A', 1)": {}}})j", "no \"null\"");
  ExpectError(R"j({"v100": {"('A', 1)": {"null": "fast"}}})j", "not a number");
  ExpectError(R"j({"v100": {"('A', 1)": {"null": -2}}})j", "finite throughput >= 0");
  ExpectError(R"j({"v100": {"('A', 1)": {"null": 1, "('B', 1)": [1]}}})j", "[this job, other job]");
  ExpectError(R"j({"v100": {"('A', 1)": {"null": 1, "('B', 1)": [1, 0]}}})j", "one zero");
  ExpectError(R"j({"v100": {"('A', 1)": {"null": 1, "B": [1, 1]}}})j", "job type key \"B\"");
  ExpectError(R"j({"v100": {"('A', 1)": {"null": 1, "('B', 1)": [1, null]}}})j", "not a number");
}

TEST(ReadGavelThroughputsFile, MissingFileIsAnError) {
  absl::StatusOr<GavelThroughputs> t = ReadGavelThroughputsFile("/nonexistent/x.json", "v100");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("/nonexistent/x.json"), std::string::npos);
}

TEST(ReadGavelThroughputsFile, ReadsGavelsFile) {
  absl::StatusOr<GavelThroughputs> t = ReadGavelThroughputsFile(
      std::string(IASHIM_SOURCE_DIR) + "/bench/data/gavel/simulation_throughputs.json", "v100");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->Types().size(), 83u);
  EXPECT_NEAR(*t->Solo({"ResNet-18 (batch size 16)", 1}), 32.3534, 1e-3);
}

}  // namespace
}  // namespace iashim::clustersim
