// A fake job with --checkpoint on a simulated GPU, as Slurm requeues one:
// stopped by SIGTERM it records the iterations it did, and started again it
// does only the rest.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/bench/fakejob/fakejob_process.h"
#include "tests/simgpu/test_env.h"

namespace {

using iashim_test::JsonNumber;
using iashim_test::RunCommand;
using iashim_test::SummaryLines;

class FakejobCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ns_ = iashim_test::UniqueNamespace("fakejob-ckpt");
    checkpoint_ = std::filesystem::temp_directory_path() /
                  ("fakejob-ckpt-" + std::to_string(getpid()) + ".ckpt");
    std::filesystem::remove(checkpoint_);
  }
  void TearDown() override {
    iashim_test::RemoveSimulatedDevices(ns_);
    std::filesystem::remove(checkpoint_);
  }

  std::string Command(int iterations) const {
    return "LD_LIBRARY_PATH=" + std::string(SIMGPU_DIR) + " SIMGPU_NAMESPACE=" + ns_ + " " +
           FAKEJOB_PATH + " --quiet --model resnet18 --iterations " + std::to_string(iterations) +
           " --checkpoint " + checkpoint_.string();
  }
  std::string Checkpoint() const {
    std::ifstream in(checkpoint_);
    std::string line;
    std::getline(in, line);
    return line;
  }
  // The summary's iterations this run and those it resumed from.
  static std::pair<double, double> ItersAndResumed(const iashim_test::CommandResult& r) {
    const std::vector<std::string> summaries = SummaryLines(r.output);
    EXPECT_EQ(summaries.size(), 1u) << r.output;
    if (summaries.empty()) return {-1, -1};
    return {JsonNumber(summaries[0], "iters").value_or(-1),
            JsonNumber(summaries[0], "resumed").value_or(-1)};
  }

  std::string ns_;
  std::filesystem::path checkpoint_;
};

TEST_F(FakejobCheckpointTest, StoppedItRecordsWhatItDidAndAgainItDoesTheRest) {
  // resnet18 runs ~42 ms an iteration: 60 take ~2.5 s, stopped after 0.5.
  const iashim_test::CommandResult stopped =
      RunCommand(Command(60) + " & pid=$!; sleep 0.5; kill -TERM $pid; wait $pid");
  ASSERT_EQ(stopped.status, 0) << stopped.output;
  const auto [done, resumed_first] = ItersAndResumed(stopped);
  EXPECT_EQ(resumed_first, 0);
  EXPECT_EQ(Checkpoint(), "iterations " + std::to_string(int(done)));

  const iashim_test::CommandResult again = RunCommand(Command(60));
  ASSERT_EQ(again.status, 0) << again.output;
  const auto [rest, resumed] = ItersAndResumed(again);
  EXPECT_EQ(resumed, done);
  EXPECT_EQ(rest + resumed, 60);
  EXPECT_EQ(Checkpoint(), "iterations 60");

  // Done already: nothing more to do.
  const iashim_test::CommandResult done_already = RunCommand(Command(60));
  ASSERT_EQ(done_already.status, 0) << done_already.output;
  EXPECT_EQ(ItersAndResumed(done_already), std::make_pair(0.0, 60.0));
}

TEST_F(FakejobCheckpointTest, ADamagedCheckpointStopsTheJobBeforeAnyWork) {
  std::ofstream(checkpoint_) << "not a checkpoint\n";
  const iashim_test::CommandResult r = RunCommand(Command(10) + " 2>&1");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("remove it to start from the first iteration"), std::string::npos)
      << r.output;
  EXPECT_TRUE(SummaryLines(r.output).empty()) << r.output;
}

}  // namespace
