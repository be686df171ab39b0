#include "coordinator/clustersim/alibaba_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace iashim::clustersim {
namespace {

using ::testing::HasSubstr;

constexpr char kNodesHeader[] = "sn,cpu_milli,memory_mib,gpu,model\n";
constexpr char kPodsHeader[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

std::string Pods(const std::string& rows) { return kPodsHeader + rows; }

std::string PodError(const std::string& rows) {
  absl::StatusOr<std::vector<AlibabaPod>> pods = ParseAlibabaPods(Pods(rows), "pods.csv");
  EXPECT_FALSE(pods.ok());
  return pods.ok() ? "" : std::string(pods.status().message());
}

std::string NodeError(const std::string& text) {
  absl::StatusOr<std::vector<AlibabaNode>> nodes = ParseAlibabaNodes(text, "nodes.csv");
  EXPECT_FALSE(nodes.ok());
  return nodes.ok() ? "" : std::string(nodes.status().message());
}

TEST(AlibabaTraceTest, ParsesNodes) {
  absl::StatusOr<std::vector<AlibabaNode>> nodes = ParseAlibabaNodes(
      std::string(kNodesHeader) + "n0,64000,262144,2,P100\nn1,96000,786432,8,V100M32", "nodes.csv");
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[0].sn, "n0");
  EXPECT_EQ((*nodes)[0].cpu_milli, 64000);
  EXPECT_EQ((*nodes)[0].memory_mib, 262144);
  EXPECT_EQ((*nodes)[0].gpus, 2);
  EXPECT_EQ((*nodes)[0].model, "P100");
  EXPECT_EQ((*nodes)[1].gpus, 8);
  EXPECT_EQ((*nodes)[1].model, "V100M32");
}

TEST(AlibabaTraceTest, AcceptsCrlf) {
  absl::StatusOr<std::vector<AlibabaNode>> nodes = ParseAlibabaNodes(
      "sn,cpu_milli,memory_mib,gpu,model\r\nn0,1,1,1,T4\r\n", "nodes.csv");
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_EQ((*nodes)[0].model, "T4");
}

TEST(AlibabaTraceTest, NodeErrorsNameFileLineAndField) {
  EXPECT_THAT(NodeError(""), HasSubstr("nodes.csv: empty file"));
  EXPECT_THAT(NodeError("sn,cpu,memory_mib,gpu,model\nn0,1,1,1,T4\n"),
              HasSubstr("nodes.csv:1: header is"));
  EXPECT_THAT(NodeError(kNodesHeader), HasSubstr("nodes.csv: no rows"));
  EXPECT_THAT(NodeError(std::string(kNodesHeader) + "n0,1,1,x,T4\n"),
              HasSubstr("nodes.csv:2: field gpu: 'x' is not an integer in 1..64"));
  EXPECT_THAT(NodeError(std::string(kNodesHeader) + "n0,1,1,0,T4\n"),
              HasSubstr("nodes.csv:2: field gpu"));
  EXPECT_THAT(NodeError(std::string(kNodesHeader) + "n0,-1,1,1,T4\n"),
              HasSubstr("nodes.csv:2: field cpu_milli"));
  EXPECT_THAT(NodeError(std::string(kNodesHeader) + "n0,1,1,1,T4\nn0,1,1,1,T4\n"),
              HasSubstr("nodes.csv:3: field sn: 'n0' repeats"));
  EXPECT_THAT(NodeError(std::string(kNodesHeader) + "n0,1,1,1\n"),
              HasSubstr("nodes.csv:2: 4 fields; expected 5"));
  EXPECT_THAT(NodeError(std::string(kNodesHeader) + "n0,1,1,1,T4\n\nn1,1,1,1,T4\n"),
              HasSubstr("nodes.csv:3: blank line"));
  EXPECT_THAT(NodeError(std::string(kNodesHeader) + "n0,1,1,1,\n"),
              HasSubstr("nodes.csv:2: field model: is empty"));
  EXPECT_THAT(NodeError(std::string(kNodesHeader) + "\"n0\",1,1,1,T4\n"),
              HasSubstr("nodes.csv:2: quoted fields are not supported"));
  EXPECT_THAT(NodeError(std::string(kNodesHeader) + "n0,1,1,1 ,T4\n"),
              HasSubstr("nodes.csv:2: field gpu"));
}

TEST(AlibabaTraceTest, ParsesPods) {
  absl::StatusOr<std::vector<AlibabaPod>> pods = ParseAlibabaPods(
      Pods("p0,12000,16384,1,460,,LS,Running,0,100,0\n"
           "p1,88000,327680,8,1000,V100M16|V100M32,Burstable,Succeeded,5,50,7\n"
           "p2,8000,30517,0,0,,BE,Pending,10,20,\n"),
      "pods.csv");
  ASSERT_TRUE(pods.ok()) << pods.status();
  ASSERT_EQ(pods->size(), 3u);
  const AlibabaPod& p0 = (*pods)[0];
  EXPECT_EQ(p0.name, "p0");
  EXPECT_EQ(p0.num_gpu, 1);
  EXPECT_EQ(p0.gpu_milli, 460);
  EXPECT_TRUE(p0.gpu_spec.empty());
  EXPECT_EQ(p0.qos, "LS");
  EXPECT_EQ(p0.phase, "Running");
  EXPECT_EQ(p0.creation_s, 0);
  EXPECT_EQ(p0.deletion_s, 100);
  EXPECT_EQ(p0.scheduled_s, 0);
  const AlibabaPod& p1 = (*pods)[1];
  EXPECT_EQ(p1.num_gpu, 8);
  EXPECT_EQ(p1.gpu_spec, (std::vector<std::string>{"V100M16", "V100M32"}));
  EXPECT_EQ(p1.scheduled_s, 7);
  const AlibabaPod& p2 = (*pods)[2];
  EXPECT_EQ(p2.num_gpu, 0);
  EXPECT_FALSE(p2.scheduled_s.has_value());
}

TEST(AlibabaTraceTest, ParsesAListOfRequestsOnly) {
  absl::StatusOr<std::vector<AlibabaPod>> pods = ParseAlibabaPods(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli\r\n"
      "a,8000,1024,1,250\n"
      "b,0,0,2,1000\n",
      "short.csv");
  ASSERT_TRUE(pods.ok()) << pods.status();
  ASSERT_EQ(pods->size(), 2u);
  EXPECT_EQ((*pods)[0].name, "a");
  EXPECT_EQ((*pods)[0].gpu_milli, 250);
  EXPECT_EQ((*pods)[1].num_gpu, 2);
  EXPECT_FALSE((*pods)[0].has_times);
  EXPECT_TRUE((*pods)[0].gpu_spec.empty());
  // The same checks as the full list's.
  absl::StatusOr<std::vector<AlibabaPod>> bad = ParseAlibabaPods(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,1,2,500\n", "short.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("short.csv:2: field gpu_milli"), std::string::npos)
      << bad.status().message();
  bad = ParseAlibabaPods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,1,1,500,x\n", "s");
  EXPECT_FALSE(bad.ok());
}

TEST(AlibabaTraceTest, PodErrorsNameFileLineAndField) {
  EXPECT_THAT(PodError("p0,1,1,1,1200,,LS,Running,0,1,\n"),
              HasSubstr("pods.csv:2: field gpu_milli: '1200' is not an integer in 0..1000"));
  EXPECT_THAT(PodError("p0,1,1,0,500,,LS,Running,0,1,\n"),
              HasSubstr("pods.csv:2: field gpu_milli: is 500 but num_gpu is 0"));
  EXPECT_THAT(PodError("p0,1,1,1,0,,LS,Running,0,1,\n"),
              HasSubstr("pods.csv:2: field gpu_milli: is 0 but num_gpu is 1"));
  EXPECT_THAT(PodError("p0,1,1,2,500,,LS,Running,0,1,\n"),
              HasSubstr("a multi-GPU pod must ask whole GPUs"));
  EXPECT_THAT(PodError("p0,1,1,1,500,,XX,Running,0,1,\n"),
              HasSubstr("pods.csv:2: field qos: 'XX' is not one of LS, BE, Burstable, Guaranteed"));
  EXPECT_THAT(PodError("p0,1,1,1,500,,LS,Gone,0,1,\n"), HasSubstr("field pod_phase"));
  EXPECT_THAT(PodError("p0,1,1,1,500,,LS,Running,10,5,\n"),
              HasSubstr("pods.csv:2: field deletion_time: '5' is not an integer in 10.."));
  EXPECT_THAT(PodError("p0,1,1,1,500,,LS,Running,10,20,30\n"),
              HasSubstr("field scheduled_time: '30' is not an integer in 10..20"));
  EXPECT_THAT(PodError("p0,1,1,1,500,,LS,Running,1.5,20,\n"), HasSubstr("field creation_time"));
  EXPECT_THAT(PodError("p0,1,1,1,500,T4||A10,LS,Running,0,1,\n"),
              HasSubstr("field gpu_spec: is empty"));
  EXPECT_THAT(PodError("p0,1,1,1,500,,LS,Running,0,1,\np0,1,1,1,500,,LS,Running,0,1,\n"),
              HasSubstr("pods.csv:3: field name: 'p0' repeats"));
  EXPECT_THAT(PodError("p0,1,1,1,500,,LS,Running,0,1\n"), HasSubstr("10 fields; expected 11"));
  EXPECT_THAT(PodError("p0,1,1,1,500,,LS,Running,0,99999999999999999999,\n"),
              HasSubstr("field deletion_time"));
}

TEST(AlibabaTraceTest, MissingFileIsAnError) {
  absl::StatusOr<std::vector<AlibabaPod>> pods = ReadAlibabaPodsFile("/nonexistent/pods.csv");
  ASSERT_FALSE(pods.ok());
  EXPECT_THAT(std::string(pods.status().message()), HasSubstr("/nonexistent/pods.csv"));
}

// Needs the compile definition IASHIM_SOURCE_DIR (the repository root).
TEST(AlibabaTraceTest, ReadsTheShippedTrace) {
#ifndef IASHIM_SOURCE_DIR
  GTEST_SKIP() << "IASHIM_SOURCE_DIR is not defined";
#else
  const std::string dir = std::string(IASHIM_SOURCE_DIR) + "/bench/data/alibaba-v2023/";
  absl::StatusOr<std::vector<AlibabaNode>> nodes =
      ReadAlibabaNodesFile(dir + "openb_node_list_gpu_node.csv");
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_EQ(nodes->size(), 1213u);
  int gpus = 0;
  for (const AlibabaNode& n : *nodes) gpus += n.gpus;
  EXPECT_EQ(gpus, 6212);
  absl::StatusOr<std::vector<AlibabaPod>> pods =
      ReadAlibabaPodsFile(dir + "openb_pod_list_default.csv");
  ASSERT_TRUE(pods.ok()) << pods.status();
  EXPECT_EQ(pods->size(), 8152u);
#endif
}

}  // namespace
}  // namespace iashim::clustersim
