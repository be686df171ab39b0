#include "coordinator/cluster/gpu_type.h"

#include "gtest/gtest.h"

namespace iashim::cluster {
namespace {

TEST(GpuTypeTest, TakesTheModelNumberFromDriverNames) {
  EXPECT_EQ(GpuTypeFromName("Tesla V100-SXM2-32GB"), "v100");
  EXPECT_EQ(GpuTypeFromName("Tesla V100-PCIE-16GB"), "v100");
  EXPECT_EQ(GpuTypeFromName("NVIDIA H200"), "h200");
  EXPECT_EQ(GpuTypeFromName("NVIDIA A100-SXM4-80GB"), "a100");
  EXPECT_EQ(GpuTypeFromName("NVIDIA A100-PCIE-40GB"), "a100");
  EXPECT_EQ(GpuTypeFromName("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(GpuTypeFromName("NVIDIA GH200 480GB"), "gh200");
  EXPECT_EQ(GpuTypeFromName("NVIDIA A10G"), "a10g");
  EXPECT_EQ(GpuTypeFromName("NVIDIA L40S"), "l40s");
  EXPECT_EQ(GpuTypeFromName("Tesla T4"), "t4");
  EXPECT_EQ(GpuTypeFromName("NVIDIA RTX A6000"), "a6000");
}

TEST(GpuTypeTest, FallsBackToTheLowercasedNameWithoutSpaces) {
  EXPECT_EQ(GpuTypeFromName("NVIDIA GeForce RTX 4090"), "geforcertx4090");
  EXPECT_EQ(GpuTypeFromName("Quadro RTX 8000"), "quadrortx8000");
  EXPECT_EQ(GpuTypeFromName("Test GPU (rev. 2)"), "testgpurev2");
  EXPECT_EQ(GpuTypeFromName(" -Odd_Name- "), "odd_name-");
  EXPECT_EQ(GpuTypeFromName(std::string(200, 'x')), std::string(64, 'x'));
  EXPECT_EQ(GpuTypeFromName(""), "unknown");
  EXPECT_EQ(GpuTypeFromName("NVIDIA"), "unknown");
  EXPECT_EQ(GpuTypeFromName("(?)"), "unknown");
}

}  // namespace
}  // namespace iashim::cluster
