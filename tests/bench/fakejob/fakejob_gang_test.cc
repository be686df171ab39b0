// Data-parallel fake jobs on simulated GPUs: --ranks N (torchrun-style
// processes) and --devices N (one process) run each iteration at the solo
// time plus the ring all-reduce of the gradients, as a hand calculation gives
// it, in every rank alike; a rank that cannot start stops the job instead of
// leaving the others waiting.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bench/fakejob/model_profile.h"
#include "tests/bench/fakejob/fakejob_process.h"
#include "tests/simgpu/test_env.h"

namespace {

using iashim_test::JsonNumber;
using iashim_test::RunCommand;
using iashim_test::SummaryLines;

// Links slow enough that the all-reduce is a visible part of the iteration:
// about what Gavel's 2-GPU ResNet-50 throughput implies (bench/README.md).
constexpr double kLinkGbps = 4.0;

class FakejobGangTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ns_ = iashim_test::UniqueNamespace("fakejob-gang");
  }
  void TearDown() override { iashim_test::RemoveSimulatedDevices(ns_); }

  std::string Command(const std::string& args) const {
    return "LD_LIBRARY_PATH=" + std::string(SIMGPU_DIR) + " SIMGPU_NAMESPACE=" + ns_ +
           " SIMGPU_DEVICES='4xTesla V100-SXM2-32GB:32GiB:80' SIMGPU_LINK_GBPS=" +
           std::to_string(kLinkGbps) + " " + FAKEJOB_PATH + " --quiet --model resnet50 " + args +
           " 2>&1";
  }

  // The hand calculation: the profile's solo iteration, then 2(n-1) ring
  // steps of gradient/n bytes at the link bandwidth after 5 us each.
  static double ExpectedIterationMs(int ranks) {
    absl::StatusOr<iashim::fakejob::ModelProfile> p = iashim::fakejob::LoadModelProfile(
        std::string(IASHIM_SOURCE_DIR) + "/bench/data/models/resnet50.model");
    EXPECT_TRUE(p.ok()) << p.status();
    if (!p.ok()) return 0;
    const double steps = 2.0 * (ranks - 1);
    const double transfer_ms =
        steps * (double(p->gradient_bytes) / ranks / (kLinkGbps * 1e9) * 1e3 + 0.005);
    return p->SoloIterationUs() / 1000 + transfer_ms;
  }

  void ExpectEveryRankAtTheHandCalculation(const std::string& args, int ranks) {
    const iashim_test::CommandResult r = RunCommand(Command(args));
    ASSERT_EQ(r.status, 0) << r.output;
    const std::vector<std::string> summaries = SummaryLines(r.output);
    const double expected = ExpectedIterationMs(ranks);
    for (const std::string& line : summaries) {
      const std::optional<double> iter_ms = JsonNumber(line, "iter_ms");
      ASSERT_TRUE(iter_ms.has_value()) << line;
      // Host scheduling only lengthens an iteration: 10% above, 2% below.
      EXPECT_GE(*iter_ms, expected * 0.98) << line;
      EXPECT_LE(*iter_ms, expected * 1.10) << line;
    }
    EXPECT_EQ(summaries.size(), size_t(args.find("--ranks") != std::string::npos ? ranks : 1))
        << r.output;
  }

  std::string ns_;
};

TEST_F(FakejobGangTest, RanksAsProcessesRunAtTheSoloTimePlusTheAllReduce) {
  ExpectEveryRankAtTheHandCalculation("--ranks 2 --iterations 8", 2);
}

TEST_F(FakejobGangTest, OneProcessDrivingFourDevicesRunsAtTheSoloTimePlusTheAllReduce) {
  ExpectEveryRankAtTheHandCalculation("--devices 4 --iterations 8", 4);
}

TEST_F(FakejobGangTest, ARankThatCannotStartStopsTheJob) {
  // Rank 1's GPU does not exist: it fails at once, and rank 0, which would
  // wait for it in its first all-reduce, is stopped.
  const iashim_test::CommandResult r =
      RunCommand("CUDA_VISIBLE_DEVICES=0 " + Command("--ranks 2 --iterations 4"));
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("--device 1"), std::string::npos) << r.output;
}

}  // namespace
