// Discovery against simgpu's libnvidia-ml.so.1, found through the
// LD_LIBRARY_PATH that CMakeLists.txt gives this test, as the daemon finds
// the real one.
#include "coordinator/cluster/nvml_discovery.h"

#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "tests/simgpu/test_env.h"

namespace iashim::cluster {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

class NvmlDiscoveryTest : public testing::Test {
 protected:
  void SetUp() override {
    ns_ = iashim_test::UniqueNamespace("cluster");
    ::setenv("SIMGPU_NAMESPACE", ns_.c_str(), 1);
  }
  void TearDown() override {
    iashim_test::RemoveSimulatedDevices(ns_);
    ::unsetenv("SIMGPU_DEVICES");
    ::unsetenv("SIMGPU_NAMESPACE");
  }

  std::string ns_;
};

TEST_F(NvmlDiscoveryTest, ListsEveryLocalGpu) {
  ::setenv("SIMGPU_DEVICES", "2xTesla V100-SXM2-32GB:32GiB:80,NVIDIA A10:24GiB:72", 1);
  absl::StatusOr<policy::Cluster> cluster = DiscoverLocalGpus();
  ASSERT_TRUE(cluster.ok()) << cluster.status();

  char host[HOST_NAME_MAX + 1] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  ASSERT_EQ(cluster->gpus.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const policy::GpuInfo& gpu = cluster->gpus[i];
    EXPECT_EQ(gpu.id, (policy::GpuId{host, i}));
    EXPECT_EQ(gpu.uuid.rfind("GPU-", 0), 0u) << gpu.uuid;
  }
  EXPECT_EQ(cluster->gpus[0].name, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(cluster->gpus[0].type, "v100");
  EXPECT_EQ(cluster->gpus[0].memory_bytes, 32 * kGiB);
  EXPECT_EQ(cluster->gpus[1].type, "v100");
  EXPECT_EQ(cluster->gpus[1].memory_bytes, 32 * kGiB);
  EXPECT_NE(cluster->gpus[0].uuid, cluster->gpus[1].uuid);
  EXPECT_EQ(cluster->gpus[2].name, "NVIDIA A10");
  EXPECT_EQ(cluster->gpus[2].type, "a10");
  EXPECT_EQ(cluster->gpus[2].memory_bytes, 24 * kGiB);
}

TEST_F(NvmlDiscoveryTest, CanRunAgainAfterShuttingDown) {
  ::setenv("SIMGPU_DEVICES", "NVIDIA H200:141GiB:132", 1);
  for (int round = 0; round < 2; ++round) {
    absl::StatusOr<policy::Cluster> cluster = DiscoverLocalGpus();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    ASSERT_EQ(cluster->gpus.size(), 1u);
    EXPECT_EQ(cluster->gpus[0].type, "h200");
    EXPECT_EQ(cluster->gpus[0].memory_bytes, 141 * kGiB);
  }
}

TEST_F(NvmlDiscoveryTest, ReportsAMissingLibrary) {
  absl::StatusOr<policy::Cluster> cluster =
      DiscoverLocalGpus({.library = "libiashim-no-such-nvml.so.1"});
  ASSERT_FALSE(cluster.ok());
  EXPECT_EQ(cluster.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(cluster.status().message());
  EXPECT_EQ(message.rfind("cannot load NVML ('libiashim-no-such-nvml.so.1'): ", 0), 0u) << message;
  EXPECT_NE(message.find("--cluster FILE"), std::string::npos) << message;
}

TEST_F(NvmlDiscoveryTest, ReportsALibraryThatIsNotNvml) {
  absl::StatusOr<policy::Cluster> cluster = DiscoverLocalGpus({.library = "libm.so.6"});
  EXPECT_EQ(cluster.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(cluster.status().message(),
            "NVML library 'libm.so.6' lacks nvmlInit_v2; the NVIDIA driver is too old or this is "
            "not NVML");
}

TEST_F(NvmlDiscoveryTest, ReportsTheFailingCallAndItsCode) {
  // simgpu's NVML refuses to start on a device list it cannot parse, as the
  // real one does without a loaded kernel driver.
  ::setenv("SIMGPU_DEVICES", "not a device list", 1);
  absl::StatusOr<policy::Cluster> cluster = DiscoverLocalGpus();
  EXPECT_EQ(cluster.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(cluster.status().message(), "nvmlInit_v2 failed: Driver Not Loaded (NVML error 9)");
}

}  // namespace
}  // namespace iashim::cluster
