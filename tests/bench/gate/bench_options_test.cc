#include "bench/gate/bench_options.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace iashim::gatebench {
namespace {

TEST(BenchOptionsTest, Defaults) {
  absl::StatusOr<BenchOptions> o = ParseBenchOptions({});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->mode, Mode::kAll);
  EXPECT_DOUBLE_EQ(o->warmup_s, kDefaultWarmupS);
  EXPECT_DOUBLE_EQ(o->window_s, kDefaultWindowS);
  EXPECT_GE(o->pairs.size(), 4u);
  EXPECT_FALSE(o->quick);
}

TEST(BenchOptionsTest, AllOptionsBothSpellings) {
  absl::StatusOr<BenchOptions> o = ParseBenchOptions(
      {"--mode=protect", "--warmup-s", "0", "--window-s=2.5", "--models", "a+b,c_1+d-2"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->mode, Mode::kProtect);
  EXPECT_DOUBLE_EQ(o->warmup_s, 0);
  EXPECT_DOUBLE_EQ(o->window_s, 2.5);
  EXPECT_DOUBLE_EQ(o->settle_s, kDefaultSettleS);
  EXPECT_EQ(o->pairs, (std::vector<ModelPair>{{"a", "b"}, {"c_1", "d-2"}}));
}

TEST(BenchOptionsTest, QuickShortensWindowsUnlessGiven) {
  absl::StatusOr<BenchOptions> o = ParseBenchOptions({"--quick", "--mode", "split"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->mode, Mode::kSplit);
  EXPECT_DOUBLE_EQ(o->warmup_s, kQuickWarmupS);
  EXPECT_DOUBLE_EQ(o->window_s, kQuickWindowS);
  // An explicit value wins, whichever comes first.
  o = ParseBenchOptions({"--window-s", "3", "--quick"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_DOUBLE_EQ(o->window_s, 3);
  EXPECT_DOUBLE_EQ(o->warmup_s, kQuickWarmupS);
}

TEST(BenchOptionsTest, HarvestSettlesForItsOwnTime) {
  absl::StatusOr<BenchOptions> o = ParseBenchOptions({"--mode", "harvest", "--settle-s", "30"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->mode, Mode::kHarvest);
  EXPECT_DOUBLE_EQ(o->settle_s, 30);
  EXPECT_DOUBLE_EQ(o->loop_window_s, kLoopWindowS);
  o = ParseBenchOptions({"--quick", "--mode=harvest"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_DOUBLE_EQ(o->settle_s, kQuickSettleS);
  EXPECT_DOUBLE_EQ(o->loop_window_s, kQuickLoopWindowS);
}

TEST(BenchOptionsTest, HelpDocumentsEveryOption) {
  EXPECT_TRUE(ParseBenchOptions({"--help"})->help);
  const std::string usage = BenchUsageText();
  for (const char* option :
       {"--mode", "--warmup-s", "--window-s", "--settle-s", "--models", "--quick", "harvest"}) {
    EXPECT_NE(usage.find(option), std::string::npos) << option;
  }
}

struct BadArgs {
  std::vector<std::string> args;
  std::string expected;
};

void PrintTo(const BadArgs& b, std::ostream* os) { *os << '"' << b.expected << '"'; }

class BadBenchOptionsTest : public testing::TestWithParam<BadArgs> {};

TEST_P(BadBenchOptionsTest, OneLineNamingOptionAndValue) {
  absl::StatusOr<BenchOptions> o = ParseBenchOptions(GetParam().args);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(o.status().message());
  EXPECT_NE(msg.find(GetParam().expected), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    All, BadBenchOptionsTest,
    testing::Values(BadArgs{{"--mode", "both"}, "'both' for --mode"},
                    BadArgs{{"--window-s", "0"}, "'0' for --window-s"},
                    BadArgs{{"--window-s", "-1"}, "'-1' for --window-s"},
                    BadArgs{{"--window-s", "601"}, "'601' for --window-s"},
                    BadArgs{{"--warmup-s", "x"}, "'x' for --warmup-s"},
                    BadArgs{{"--warmup-s", "nan"}, "'nan' for --warmup-s"},
                    BadArgs{{"--settle-s", "-2"}, "'-2' for --settle-s"},
                    BadArgs{{"--settle-s", "700"}, "'700' for --settle-s"},
                    BadArgs{{"--models", "resnet50"}, "'resnet50' is not a pair"},
                    BadArgs{{"--models", "a+b+c"}, "'a+b+c' is not a pair"},
                    BadArgs{{"--models", "a+b,"}, "'' is not a pair"},
                    BadArgs{{"--models", "a+../x"}, "'a+../x' is not a pair"},
                    BadArgs{{"--models", "a+b.model"}, "'a+b.model' is not a pair"},
                    BadArgs{{"--models", ""}, "'' for --models"},
                    BadArgs{{"--mode"}, "--mode needs a value"},
                    BadArgs{{"--quick=1"}, "--quick takes no value"},
                    BadArgs{{"--bogus"}, "unknown option '--bogus'"},
                    BadArgs{{"stray"}, "unexpected argument 'stray'"}),
    [](const testing::TestParamInfo<BadArgs>& param_info) {
      return "Case" + std::to_string(param_info.index);
    });

TEST(BenchOptionsTest, AtMostSixteenPairs) {
  std::string many;
  for (int i = 0; i < 17; ++i) many += (i ? "," : "") + std::string("a+b");
  EXPECT_FALSE(ParseModelPairs(many).ok());
}

}  // namespace
}  // namespace iashim::gatebench
