#include "bench/gate/job_command.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace iashim::gatebench {
namespace {

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

const Paths kPaths{"/b/bench/iashim-fakejob", "/b/libiashim/libiashim.so", "/b/simgpu",
                   "/b/coordinator/daemon/iashim-coordinator"};

JobSpec Spec() {
  JobSpec spec;
  spec.model = "resnet50";
  spec.profile = "/src/bench/data/models/resnet50.model";
  return spec;
}

TEST(JobCommandTest, ArgvRunsTheProfileQuietlyUntilStopped) {
  JobSpec spec = Spec();
  std::vector<std::string> argv = JobArgv(kPaths, spec);
  EXPECT_EQ(argv[0], kPaths.fakejob);
  EXPECT_TRUE(Has(argv, spec.profile));
  EXPECT_TRUE(Has(argv, "--quiet"));
  EXPECT_FALSE(Has(argv, "--sync"));
  EXPECT_FALSE(Has(argv, "--host-gap-us"));

  spec.sync_kernel = true;
  spec.host_gap_us = 0;
  argv = JobArgv(kPaths, spec);
  const auto sync = std::find(argv.begin(), argv.end(), "--sync");
  ASSERT_NE(sync, argv.end());
  EXPECT_EQ(*(sync + 1), "kernel");
  const auto gap = std::find(argv.begin(), argv.end(), "--host-gap-us");
  ASSERT_NE(gap, argv.end());
  EXPECT_EQ(*(gap + 1), "0");
}

TEST(JobCommandTest, EnvReplacesWhatWouldChangeTheMeasurement) {
  const std::vector<std::string> inherited = {"PATH=/usr/bin",
                                              "LD_PRELOAD=/evil.so",
                                              "LD_LIBRARY_PATH=/x",
                                              "SIMGPU_DEVICES=2xA:1GiB:1",
                                              "IASHIM_COORDINATOR=tcp://h:1",
                                              "CUDA_VISIBLE_DEVICES=1"};
  JobSpec spec = Spec();
  spec.share = 0.3;
  spec.priority = "opportunistic";
  const std::vector<std::string> env = JobEnv(inherited, kPaths, spec, "ns-1");
  EXPECT_TRUE(Has(env, "PATH=/usr/bin"));
  EXPECT_TRUE(Has(env, "LD_LIBRARY_PATH=/b/simgpu"));
  EXPECT_TRUE(Has(env, "SIMGPU_NAMESPACE=ns-1"));
  EXPECT_TRUE(Has(env, "LD_PRELOAD=/b/libiashim/libiashim.so"));
  EXPECT_TRUE(Has(env, "IASHIM_SHARE=0.3"));
  EXPECT_TRUE(Has(env, "IASHIM_PRIORITY=opportunistic"));
  for (const std::string& e : env) {
    EXPECT_NE(e, "LD_PRELOAD=/evil.so");
    EXPECT_NE(e.rfind("SIMGPU_DEVICES=", 0), 0u) << e;
    EXPECT_NE(e.rfind("IASHIM_COORDINATOR=", 0), 0u) << e;
    EXPECT_NE(e.rfind("CUDA_VISIBLE_DEVICES=", 0), 0u) << e;
  }
}

TEST(JobCommandTest, ShimEnvReachesTheShimOnly) {
  JobSpec spec = Spec();
  spec.shim_env = {"IASHIM_COORDINATOR=ipc:///tmp/h/router", "IASHIM_JOB=harvest-g"};
  // The caller's coordinator is dropped; the run's own is set.
  std::vector<std::string> env =
      JobEnv({"IASHIM_COORDINATOR=tcp://elsewhere:1"}, kPaths, spec, "ns");
  EXPECT_TRUE(Has(env, "IASHIM_COORDINATOR=ipc:///tmp/h/router"));
  EXPECT_TRUE(Has(env, "IASHIM_JOB=harvest-g"));
  EXPECT_FALSE(Has(env, "IASHIM_COORDINATOR=tcp://elsewhere:1"));
  spec.shim = false;
  env = JobEnv({}, kPaths, spec, "ns");
  EXPECT_FALSE(Has(env, "IASHIM_JOB=harvest-g"));
  // What a process beside the jobs gets: the run's device, nothing of the shim.
  env = CleanEnv({"LD_PRELOAD=/x.so", "HOME=/root"}, kPaths, "ns-2");
  EXPECT_TRUE(Has(env, "SIMGPU_NAMESPACE=ns-2"));
  EXPECT_TRUE(Has(env, "LD_LIBRARY_PATH=/b/simgpu"));
  EXPECT_TRUE(Has(env, "HOME=/root"));
  EXPECT_FALSE(Has(env, "LD_PRELOAD=/x.so"));
}

TEST(JobCommandTest, NoShimMeansNoPreloadAndNoBudget) {
  JobSpec spec = Spec();
  spec.shim = false;
  spec.share = 0.5;
  const std::vector<std::string> env = JobEnv({}, kPaths, spec, "ns");
  for (const std::string& e : env) {
    EXPECT_NE(e.rfind("LD_PRELOAD=", 0), 0u) << e;
    EXPECT_NE(e.rfind("IASHIM_", 0), 0u) << e;
  }
  EXPECT_EQ(Describe(spec), "resnet50 (no shim)");
}

}  // namespace
}  // namespace iashim::gatebench
