#include "bench/fakejob/module_image.h"

#include <cstring>

#include "gtest/gtest.h"

namespace iashim::fakejob {
namespace {

ModelProfile Parse(const char* text) {
  absl::StatusOr<ModelProfile> p = ParseModelProfile(text, "t");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : ModelProfile{};
}

TEST(ModuleImageTest, OneFunctionPerDistinctKernel) {
  ModelProfile p = Parse(
      "model m\nmemory_mib 1\nhost_gap_us 0\n"
      "conv 2 100 0.25 160\n"
      "relu 1 5.5 0.9 400\n"
      "conv 1 100 0.25 80\n");  // same cost, other grid: same function
  ModuleImage image = BuildModuleImage(p);
  EXPECT_EQ(image.text.rfind("simgpu-module 1\n", 0), 0u);
  EXPECT_NE(image.text.find("\nkernel conv fixed_us=100.000 mem=0.250\n"), std::string::npos)
      << image.text;
  EXPECT_NE(image.text.find("\nkernel relu fixed_us=5.500 mem=0.900\n"), std::string::npos)
      << image.text;
  ASSERT_EQ(image.functions.size(), 2u);
  EXPECT_EQ(image.launch_function, (std::vector<uint32_t>{0, 0, 1, 0}));
  // The image is handed over as a C string.
  EXPECT_EQ(std::strlen(image.text.c_str()), image.text.size());
}

TEST(ModuleImageTest, SameNameOtherCostGetsSuffixAvoidingCollisions) {
  ModelProfile p = Parse(
      "model m\nmemory_mib 1\nhost_gap_us 0\n"
      "conv 1 100 0.25 160\n"
      "conv_L2 1 1 0.5 1\n"  // a real kernel already named conv_L2
      "conv 1 50 0.25 160\n"
      "conv 1 100 0.3 160\n"
      "conv 1 50 0.25 160\n");
  ModuleImage image = BuildModuleImage(p);
  EXPECT_EQ(image.functions, (std::vector<std::string>{"conv", "conv_L2", "conv_L3", "conv_L4"}));
  EXPECT_EQ(image.launch_function, (std::vector<uint32_t>{0, 1, 2, 3, 2}));
  EXPECT_NE(image.text.find("kernel conv_L3 fixed_us=50.000 mem=0.250"), std::string::npos);
}

TEST(ModuleImageTest, EveryLineIsHeaderCommentOrKernel) {
  ModelProfile p = Parse("model m\nmemory_mib 1\nhost_gap_us 0\nk 3 1 0 1\n");
  ModuleImage image = BuildModuleImage(p);
  size_t start = 0;
  int kernels = 0;
  bool first = true;
  while (start < image.text.size()) {
    size_t end = image.text.find('\n', start);
    ASSERT_NE(end, std::string::npos) << "image must end with a newline";
    std::string line = image.text.substr(start, end - start);
    if (first) {
      EXPECT_EQ(line, "simgpu-module 1");
      first = false;
    } else if (line.rfind("kernel ", 0) == 0) {
      ++kernels;
    } else {
      EXPECT_EQ(line.rfind("#", 0), 0u) << line;
    }
    start = end + 1;
  }
  EXPECT_EQ(kernels, 1);
}

TEST(ModuleImageTest, FormatFixedIsLocaleFree) {
  EXPECT_EQ(FormatFixed(1.23456, 3), "1.235");
  EXPECT_EQ(FormatFixed(2, 1), "2.0");
}

}  // namespace
}  // namespace iashim::fakejob
