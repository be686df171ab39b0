#include "coordinator/clustersim/job_memory_shares.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace iashim::clustersim {
namespace {

using ::testing::HasSubstr;

TEST(JobMemoryShares, ParsesOneTypeALineSkippingCommentsAndBlankLines) {
  absl::StatusOr<std::map<std::string, double>> shares = ParseJobMemoryShares(
      "# type\tshare\nResNet-50 (batch size 64)\t0.28125\r\n\nLM (batch size 20)\t1\n", "f");
  ASSERT_TRUE(shares.ok()) << shares.status();
  EXPECT_EQ(*shares, (std::map<std::string, double>{{"ResNet-50 (batch size 64)", 0.28125},
                                                    {"LM (batch size 20)", 1.0}}));
}

TEST(JobMemoryShares, EveryBadLineIsNamedWithWhatIsWrong) {
  const auto error = [](std::string_view text) {
    absl::StatusOr<std::map<std::string, double>> shares = ParseJobMemoryShares(text, "f");
    EXPECT_FALSE(shares.ok()) << text;
    return std::string(shares.status().message());
  };
  EXPECT_THAT(error("A\t0.5\nB 0.5\n"), HasSubstr("f:2: 1 tab-separated fields"));
  EXPECT_THAT(error("\t0.5\n"), HasSubstr("f:1: empty job type"));
  for (const char* share : {"0", "-0.1", "1.5", "nan", "inf", "half", ""}) {
    EXPECT_THAT(error(std::string("A\t") + share), HasSubstr("is not a number in (0, 1]"));
  }
  EXPECT_THAT(error("A\t0.5\nA\t0.25\n"), HasSubstr("f:2: job type \"A\" listed twice"));
  EXPECT_THAT(error("# nothing\n"), HasSubstr("f: lists no job type"));
}

TEST(JobMemoryShares, AMissingFileIsNamed) {
  absl::StatusOr<std::map<std::string, double>> shares =
      ReadJobMemoryShares("/nonexistent/shares.tsv");
  ASSERT_FALSE(shares.ok());
  EXPECT_THAT(shares.status().message(), HasSubstr("/nonexistent/shares.tsv: cannot open"));
}

}  // namespace
}  // namespace iashim::clustersim
