#include "simgpu/src/config_parse.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace simgpu {
namespace {

TEST(ParseByteSize, UnitsAndErrors) {
  EXPECT_EQ(ParseByteSize("32GiB"), 32ULL << 30);
  EXPECT_EQ(ParseByteSize("512MiB"), 512ULL << 20);
  EXPECT_EQ(ParseByteSize("16GB"), 16'000'000'000ULL);
  EXPECT_EQ(ParseByteSize("1024"), 1024u);
  EXPECT_EQ(ParseByteSize("8 gib"), 8ULL << 30);
  EXPECT_FALSE(ParseByteSize(""));
  EXPECT_FALSE(ParseByteSize("GiB"));
  EXPECT_FALSE(ParseByteSize("12XB"));
  EXPECT_FALSE(ParseByteSize("-5MiB"));
  EXPECT_FALSE(ParseByteSize("99999999999999999999TiB"));
}

TEST(ParseDeviceList, DefaultAndRepeats) {
  std::vector<DeviceSpec> d;
  std::string err;
  ASSERT_TRUE(ParseDeviceList(kDefaultDevices, "ns", &d, &err)) << err;
  ASSERT_EQ(d.size(), 1u);
  EXPECT_STREQ(d[0].name, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(d[0].memory_bytes, 32ULL << 30);
  EXPECT_EQ(d[0].sm_count, 80);
  ASSERT_TRUE(ParseDeviceList("2xA:1GiB:10,B:2GiB:20", "ns", &d, &err)) << err;
  ASSERT_EQ(d.size(), 3u);
  EXPECT_STREQ(d[1].name, "A");
  EXPECT_STREQ(d[2].name, "B");
  EXPECT_NE(FormatUuid(d[0].uuid), FormatUuid(d[1].uuid));
}

TEST(ParseDeviceList, PowerDefaultsToAV100sAndCanBeGiven) {
  std::vector<DeviceSpec> d;
  std::string err;
  ASSERT_TRUE(ParseDeviceList(kDefaultDevices, "ns", &d, &err)) << err;
  EXPECT_EQ(d[0].idle_watts, 40.0f);
  EXPECT_EQ(d[0].max_watts, 300.0f);
  ASSERT_TRUE(ParseDeviceList("NVIDIA A10:24GiB:72:25W:150W,B:1GiB:8:10.5:20", "ns", &d, &err))
      << err;
  EXPECT_EQ(d[0].idle_watts, 25.0f);
  EXPECT_EQ(d[0].max_watts, 150.0f);
  EXPECT_EQ(d[1].idle_watts, 10.5f);
  EXPECT_FALSE(ParseDeviceList("A:1GiB:8:300:40", "ns", &d, &err));  // max below idle
  EXPECT_NE(err.find("IDLE_WATTS:MAX_WATTS"), std::string::npos) << err;
  EXPECT_FALSE(ParseDeviceList("A:1GiB:8:40", "ns", &d, &err));  // one of the two
  EXPECT_NE(err.find("NAME:MEMORY:SMS:IDLE_WATTS:MAX_WATTS"), std::string::npos) << err;
  EXPECT_FALSE(ParseDeviceList("A:1GiB:8:lots:300", "ns", &d, &err));
  EXPECT_NE(err.find("lots"), std::string::npos) << err;
}

TEST(ParseDeviceList, ErrorsNameTheProblem) {
  std::vector<DeviceSpec> d;
  std::string err;
  EXPECT_FALSE(ParseDeviceList("A:1GiB", "ns", &d, &err));
  EXPECT_NE(err.find("NAME:MEMORY:SMS"), std::string::npos);
  EXPECT_FALSE(ParseDeviceList("A:lots:80", "ns", &d, &err));
  EXPECT_NE(err.find("lots"), std::string::npos);
  EXPECT_FALSE(ParseDeviceList("A:1GiB:0", "ns", &d, &err));
  EXPECT_NE(err.find("SM count"), std::string::npos);
  EXPECT_FALSE(ParseDeviceList("A:1GiB:8,", "ns", &d, &err));
  EXPECT_FALSE(ParseDeviceList("17xA:1GiB:8", "ns", &d, &err));
}

TEST(ParseVisibleDevices, IndicesUuidsAndStops) {
  std::vector<DeviceSpec> d;
  std::string err;
  ASSERT_TRUE(ParseDeviceList("4xA:1GiB:10", "ns", &d, &err));
  EXPECT_EQ(ParseVisibleDevices(std::nullopt, d), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(ParseVisibleDevices("2,0", d), (std::vector<int>{2, 0}));
  EXPECT_EQ(ParseVisibleDevices("1,7,2", d), (std::vector<int>{1}));
  EXPECT_EQ(ParseVisibleDevices("", d), (std::vector<int>{}));
  EXPECT_EQ(ParseVisibleDevices("1,1", d), (std::vector<int>{1}));
  const std::string uuid = FormatUuid(d[3].uuid);
  EXPECT_EQ(ParseVisibleDevices(uuid + ",0", d), (std::vector<int>{3, 0}));
}

TEST(ValidNamespace, Characters) {
  EXPECT_TRUE(ValidNamespace("simgpu-0_test.1"));
  EXPECT_FALSE(ValidNamespace(""));
  EXPECT_FALSE(ValidNamespace("a/b"));
  EXPECT_FALSE(ValidNamespace(std::string(65, 'a')));
}

TEST(FabricDirProblem, AnExistingWritableAbsoluteDirectory) {
  char dir[] = "/tmp/iashim-fabric-parse-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string file = std::string(dir) + "/file";
  { std::ofstream(file) << "x"; }
  EXPECT_EQ(FabricDirProblem(dir), "");
  EXPECT_EQ(FabricDirProblem(""), "not an absolute path");
  EXPECT_EQ(FabricDirProblem("tmp/fabric"), "not an absolute path");
  EXPECT_EQ(FabricDirProblem(std::string(dir) + "/missing"), "no such directory");
  EXPECT_EQ(FabricDirProblem(file), "not a directory");
  EXPECT_EQ(FabricDirProblem("/" + std::string(4000, 'a')), "longer than 4000 characters");
  if (geteuid() != 0) {  // root may write anywhere
    ASSERT_EQ(chmod(dir, 0500), 0);
    EXPECT_EQ(FabricDirProblem(dir).rfind("not writable", 0), 0u) << FabricDirProblem(dir);
    chmod(dir, 0700);
  }
  ::unlink(file.c_str());
  ::rmdir(dir);
}

}  // namespace
}  // namespace simgpu
