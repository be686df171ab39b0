#include "integrations/slurm/device_access.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace iashim::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

ProbeDevice Scripted(std::map<std::string, DeviceProbe> files) {
  return [files](const std::string& path) {
    const auto it = files.find(path);
    return it == files.end() ? DeviceProbe::kAbsent : it->second;
  };
}

TEST(DeviceAccessTest, RefusedGpusAreLeftOut) {
  // As under ConstrainDevices=yes with GPU 1 allocated to the step.
  const UsableGpus g = FindUsableGpus("/dev/nvidia", Scripted({{"/dev/nvidia0", DeviceProbe::kRefused},
                                                               {"/dev/nvidia1", DeviceProbe::kUsable},
                                                               {"/dev/nvidia2", DeviceProbe::kRefused}}));
  EXPECT_TRUE(g.any_device_file);
  EXPECT_THAT(g.usable, ElementsAre(1));
}

TEST(DeviceAccessTest, HolesInDeviceNumbersAreSkipped) {
  const UsableGpus g = FindUsableGpus("/d/gpu", Scripted({{"/d/gpu0", DeviceProbe::kUsable},
                                                           {"/d/gpu3", DeviceProbe::kUsable}}));
  EXPECT_THAT(g.usable, ElementsAre(0, 3));
}

TEST(DeviceAccessTest, NoDeviceFilesMeansAnyGpu) {
  const UsableGpus g = FindUsableGpus("/dev/nvidia", Scripted({}));
  EXPECT_FALSE(g.any_device_file);
  EXPECT_THAT(g.usable, IsEmpty());
}

TEST(DeviceAccessTest, RealFiles) {
  char dir[] = "/tmp/iashim-devices-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string prefix = std::string(dir) + "/nvidia";
  std::ofstream(prefix + "0") << "";
  std::ofstream(prefix + "1") << "";
  EXPECT_EQ(ProbeDeviceFile(prefix + "0"), DeviceProbe::kUsable);
  EXPECT_EQ(ProbeDeviceFile(prefix + "7"), DeviceProbe::kAbsent);
  const UsableGpus g = FindUsableGpus(prefix, &ProbeDeviceFile);
  EXPECT_THAT(g.usable, ElementsAre(0, 1));
  if (geteuid() != 0) {  // root opens any file, whatever its mode
    chmod((prefix + "1").c_str(), 0);
    EXPECT_EQ(ProbeDeviceFile(prefix + "1"), DeviceProbe::kRefused);
  }
  unlink((prefix + "0").c_str());
  unlink((prefix + "1").c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace iashim::slurm
