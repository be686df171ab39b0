// Two iashim-fakejob processes on one simulated GPU slow each other down by the
// factor the interference model predicts for that pair (checked as a ratio of
// throughputs, with a tolerance for real scheduling noise).
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/bench/fakejob/fakejob_process.h"
#include "tests/bench/fakejob/profile_virtual_job.h"
#include "tests/simgpu/test_env.h"

namespace {

// Starts iashim-fakejob; Finish() returns the summary's iters_per_s.
class FakeJob {
 public:
  FakeJob(const std::string& model, double seconds) {
    const std::string cmd = std::string("LD_LIBRARY_PATH=") + SIMGPU_DIR + " " + FAKEJOB_PATH +
                            " --quiet --model " + model + " --seconds " + std::to_string(seconds);
    pipe_ = popen(cmd.c_str(), "r");
  }
  double Finish() {
    if (pipe_ == nullptr) return -1;
    std::string out;
    char buf[512];
    while (fgets(buf, sizeof(buf), pipe_) != nullptr) out += buf;
    const int status = pclose(pipe_);
    pipe_ = nullptr;
    if (status != 0) {
      ADD_FAILURE() << "iashim-fakejob failed: " << out;
      return -1;
    }
    const std::optional<double> ips = iashim_test::JsonNumber(out, "iters_per_s");
    if (!ips) ADD_FAILURE() << "no summary in: " << out;
    return ips.value_or(-1);
  }

 private:
  FILE* pipe_ = nullptr;
};

// What the device model predicts for the pair: each job's kept fraction.
std::vector<double> PredictedKept(const std::string& a, const std::string& b) {
  const simgpu::DeviceSpec spec = iashim_test::DefaultV100();
  const std::vector<simgpu::VirtualJob> jobs = {
      iashim_test::ToVirtualJob(iashim_test::LoadBundledProfile(a), spec.sm_count),
      iashim_test::ToVirtualJob(iashim_test::LoadBundledProfile(b), spec.sm_count)};
  const simgpu::InterferenceParams params;
  const double solo_a = simgpu::CoSimulate({jobs[0]}, spec, 10, 1, params)[0];
  const double solo_b = simgpu::CoSimulate({jobs[1]}, spec, 10, 1, params)[0];
  const std::vector<double> pair = simgpu::CoSimulate(jobs, spec, 10, 1, params);
  return {pair[0] / solo_a, pair[1] / solo_b};
}

class FakeJobPairTest : public ::testing::TestWithParam<std::pair<const char*, const char*>> {
 protected:
  void SetUp() override {
    ns_ = iashim_test::UniqueNamespace("pair");
    setenv("SIMGPU_NAMESPACE", ns_.c_str(), 1);
    unsetenv("SIMGPU_DEVICES");
  }
  void TearDown() override { iashim_test::RemoveSimulatedDevices(ns_); }
  std::string ns_;
};

TEST_P(FakeJobPairTest, PairSlowsDownByTheModelledFactor) {
  const std::string a = GetParam().first, b = GetParam().second;
  const double solo_a = FakeJob(a, 3).Finish();
  const double solo_b = FakeJob(b, 3).Finish();
  FakeJob job_a(a, 5), job_b(b, 5);
  const double kept_a = job_a.Finish() / solo_a;
  const double kept_b = job_b.Finish() / solo_b;
  const std::vector<double> predicted = PredictedKept(a, b);
  std::printf("%s+%s: measured kept %.3f / %.3f, modelled %.3f / %.3f\n", a.c_str(), b.c_str(),
              kept_a, kept_b, predicted[0], predicted[1]);
  EXPECT_LT(kept_a, 0.9);
  EXPECT_LT(kept_b, 0.9);
  // Start-up and wake-up latency make real processes a little less contended
  // than the model's perfectly overlapped run.
  EXPECT_NEAR(kept_a, predicted[0], 0.12);
  EXPECT_NEAR(kept_b, predicted[1], 0.12);
}

INSTANTIATE_TEST_SUITE_P(Models, FakeJobPairTest,
                         ::testing::Values(std::make_pair("resnet50", "transformer"),
                                           std::make_pair("vgg16", "lstm")));

}  // namespace
