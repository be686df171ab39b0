#include "coordinator/clustersim/alibaba_cli.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace iashim::clustersim {
namespace {

using ::testing::HasSubstr;

std::string ParseError(std::vector<std::string_view> args) {
  absl::StatusOr<AlibabaCliOptions> o = ParseAlibabaCliArgs(args);
  EXPECT_FALSE(o.ok());
  return o.ok() ? "" : std::string(o.status().message());
}

TEST(AlibabaCliTest, ParsesOptions) {
  const std::vector<std::string_view> args = {"--alibaba-nodes", "n.csv", "--alibaba-pods=p.csv",
                                              "--json", "--max-pods", "100",
                                              "--alibaba-mode=fill", "--alibaba-min-gain", "-0.5"};
  absl::StatusOr<AlibabaCliOptions> o = ParseAlibabaCliArgs(args);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->nodes_file, "n.csv");
  EXPECT_EQ(o->pods_file, "p.csv");
  EXPECT_TRUE(o->json);
  EXPECT_EQ(o->max_pods, 100);
  EXPECT_EQ(o->mode, AlibabaReplayMode::kFill);
  EXPECT_EQ(o->min_gain, -0.5);
}

TEST(AlibabaCliTest, ErrorsNameTheArgument) {
  EXPECT_THAT(ParseError({"--alibaba-nodes", "n.csv"}), HasSubstr("--alibaba-pods: is required"));
  EXPECT_THAT(ParseError({"--alibaba-pods", "p.csv"}), HasSubstr("--alibaba-nodes: is required"));
  EXPECT_THAT(ParseError({"--alibaba-nodes"}), HasSubstr("--alibaba-nodes: needs a value"));
  EXPECT_THAT(ParseError({"--alibaba-nodes="}),
              HasSubstr("--alibaba-nodes: needs a non-empty value"));
  EXPECT_THAT(ParseError({"--alibaba-nodes", "a", "--alibaba-nodes", "b"}),
              HasSubstr("--alibaba-nodes: given twice"));
  EXPECT_THAT(ParseError({"--max-pods", "-1"}),
              HasSubstr("--max-pods: '-1' is not a non-negative integer"));
  EXPECT_THAT(ParseError({"--max-pods", "12x"}), HasSubstr("--max-pods: '12x'"));
  EXPECT_THAT(ParseError({"--alibaba-mode", "fast"}),
              HasSubstr("--alibaba-mode: 'fast' is not timed or fill"));
  EXPECT_THAT(ParseError({"--alibaba-min-gain", "nan"}),
              HasSubstr("--alibaba-min-gain: 'nan' is not a finite number"));
  EXPECT_THAT(ParseError({"--alibaba-policy", "drf"}),
              HasSubstr("--alibaba-policy: 'drf' is not iashim, bestfit, firstfit or fgd"));
  EXPECT_THAT(ParseError({"--alibaba-interference", "none"}),
              HasSubstr("--alibaba-interference: 'none' is not quota or prior"));
  EXPECT_THAT(ParseError({"--alibaba-packing", "yes"}),
              HasSubstr("--alibaba-packing: 'yes' is not on or off"));
  EXPECT_THAT(ParseError({"--alibaba-nodes", "n", "--alibaba-pods", "p", "--alibaba-policy",
                          "fgd", "--alibaba-packing", "off"}),
              HasSubstr("--alibaba-packing: applies to --alibaba-policy iashim only"));
  EXPECT_THAT(ParseError({"--alibaba-nodes", "n", "--alibaba-pods", "p", "--alibaba-policy",
                          "bestfit", "--alibaba-min-gain", "0.1"}),
              HasSubstr("--alibaba-min-gain: applies to --alibaba-policy iashim only"));
  EXPECT_THAT(ParseError({"--json=1"}), HasSubstr("--json: takes no value"));
  EXPECT_THAT(ParseError({"--trace", "x"}), HasSubstr("--trace: unknown argument"));
}

TEST(AlibabaCliTest, ExitStatus) {
  std::ostringstream out, err;
  EXPECT_EQ(RunAlibabaCli(std::vector<std::string_view>{"--bogus"}, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("--bogus"));
  err.str("");
  EXPECT_EQ(RunAlibabaCli(std::vector<std::string_view>{"--help"}, out, err), 0);
  EXPECT_THAT(out.str(), HasSubstr("usage:"));
  EXPECT_EQ(RunAlibabaCli(std::vector<std::string_view>{"--alibaba-nodes", "/nonexistent/n.csv",
                                                        "--alibaba-pods", "/nonexistent/p.csv"},
                          out, err),
            1);
  EXPECT_THAT(err.str(), HasSubstr("/nonexistent/n.csv"));
}

TEST(AlibabaCliTest, RunsATinyTraceToJson) {
  const std::string dir = ::testing::TempDir();
  const std::string nodes = dir + "/alibaba_cli_nodes.csv";
  const std::string pods = dir + "/alibaba_cli_pods.csv";
  std::ofstream(nodes) << "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,2,T4\n";
  std::ofstream(pods) << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                         "creation_time,deletion_time,scheduled_time\n"
                         "p0,1,1,1,500,,LS,Running,0,10,0\n"
                         "p1,1,1,0,0,,BE,Running,1,10,1\n";
  const std::vector<std::string_view> args = {"--alibaba-nodes", nodes, "--alibaba-pods", pods,
                                              "--json"};
  std::ostringstream out, err;
  ASSERT_EQ(RunAlibabaCli(args, out, err), 0) << err.str();
  const std::string json = out.str();
  EXPECT_EQ(json.front(), '{');
  EXPECT_THAT(json, HasSubstr("\"decisions\":1,"));
  EXPECT_THAT(json, HasSubstr("\"placed\":1,"));
  EXPECT_THAT(json, HasSubstr("\"skipped\":1,"));
  EXPECT_THAT(json, HasSubstr("\"gpus\":2,"));
  EXPECT_THAT(json, HasSubstr("\"latency_p99_us\":"));
  EXPECT_THAT(json, HasSubstr("\"peak_alloc_rate\":0.25,"));
  EXPECT_THAT(json, HasSubstr("\"policy\":\"iashim\""));
  EXPECT_EQ(std::count(json.begin(), json.end(), '\n'), 1);
  std::vector<std::string_view> bestfit = args;
  bestfit.insert(bestfit.end(), {"--alibaba-policy", "bestfit"});
  std::ostringstream bestfit_out;
  ASSERT_EQ(RunAlibabaCli(bestfit, bestfit_out, err), 0) << err.str();
  EXPECT_THAT(bestfit_out.str(), HasSubstr("\"policy\":\"bestfit\""));
  EXPECT_THAT(bestfit_out.str(), HasSubstr("\"placed\":1,"));
  std::remove(nodes.c_str());
  std::remove(pods.c_str());
}

}  // namespace
}  // namespace iashim::clustersim
