#include "simgpu/src/module_image.h"

#include <gtest/gtest.h>

namespace simgpu {
namespace {

TEST(ModuleImage, ParsesKernels) {
  std::vector<KernelModel> k;
  std::string err;
  ASSERT_TRUE(ParseModuleImage("# a model\nsimgpu-module 1\n"
                               "kernel gemm fixed_us=120 mem=0.2\n"
                               "kernel relu us_per_block=0.5 mem=0.9  # comment\n",
                               &k, &err))
      << err;
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "gemm");
  EXPECT_DOUBLE_EQ(k[0].DurationNs(1000, 80), 120'000);
  EXPECT_FLOAT_EQ(k[1].mem_intensity, 0.9f);
  EXPECT_DOUBLE_EQ(k[1].DurationNs(160, 80), 1000);  // two waves of 0.5 us
  EXPECT_DOUBLE_EQ(k[1].DurationNs(8, 80), 500);     // at least one wave
  EXPECT_FLOAT_EQ(KernelModel::SmFill(40, 80), 0.5f);
  EXPECT_FLOAT_EQ(KernelModel::SmFill(400, 80), 1.0f);
}

TEST(ModuleImage, ErrorsNameTheLine) {
  std::vector<KernelModel> k;
  std::string err;
  EXPECT_FALSE(ParseModuleImage("", &k, &err));
  EXPECT_FALSE(ParseModuleImage("simgpu-module 2\n", &k, &err));
  EXPECT_FALSE(ParseModuleImage("simgpu-module 1\nkernel a mem=2\n", &k, &err));
  EXPECT_EQ(err.rfind("line 2:", 0), 0u) << err;
  EXPECT_FALSE(ParseModuleImage("simgpu-module 1\nkernel a fixed_us=x\n", &k, &err));
  EXPECT_FALSE(ParseModuleImage("simgpu-module 1\nkernel a bogus=1\n", &k, &err));
  EXPECT_FALSE(ParseModuleImage("simgpu-module 1\nkernel a\nkernel a\n", &k, &err));
  EXPECT_NE(err.find("duplicate"), std::string::npos);
  EXPECT_FALSE(ParseModuleImage("simgpu-module 1\nfunction a\n", &k, &err));
  EXPECT_FALSE(ParseModuleImage("simgpu-module 1\nkernel a fixed_us=-1\n", &k, &err));
  EXPECT_FALSE(ParseModuleImage("simgpu-module 1\nkernel a fixed_us=nan\n", &k, &err));
}

TEST(ModuleImage, CollectiveKernelsAreMarked) {
  std::vector<KernelModel> k;
  std::string err;
  ASSERT_TRUE(ParseModuleImage("simgpu-module 1\n"
                               "kernel ncclAllReduce collective=allreduce mem=0.1\n"
                               "kernel gemm fixed_us=10\n",
                               &k, &err))
      << err;
  EXPECT_EQ(k[0].collective, Collective::kAllReduce);
  EXPECT_FLOAT_EQ(k[0].mem_intensity, 0.1f);
  EXPECT_EQ(k[1].collective, Collective::kNone);
  EXPECT_FALSE(ParseModuleImage("simgpu-module 1\nkernel a collective=broadcast\n", &k, &err));
  EXPECT_NE(err.find("collective must be 'allreduce'"), std::string::npos) << err;
}

}  // namespace
}  // namespace simgpu
