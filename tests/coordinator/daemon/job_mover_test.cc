// JobMover: --move-command run for each move, without blocking the loop.
#include "coordinator/daemon/job_mover.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace iashim::daemon {
namespace {

constexpr int64_t kSecondNs = 1'000'000'000;

class JobMoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("job-mover-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A script with `body` that the mover runs.
  std::string Script(const std::string& body) const {
    const std::string path = (dir_ / "move").string();
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    return path;
  }
  static JobMove Move() {
    return {"slurm-41.batch", {"slurm", "41", "batch", 0}, {"node1", 0}, {"node2", 3}};
  }
  // Reaps until nothing runs (bounded: 10 s), the lines it gave.
  static std::vector<std::string> ReapAll(JobMover& mover, int64_t now_ns) {
    std::vector<std::string> lines;
    for (int i = 0; i < 1000 && mover.running() > 0; ++i) {
      for (std::string& l : mover.Reap(now_ns)) lines.push_back(std::move(l));
      if (mover.running() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return lines;
  }

  std::filesystem::path dir_;
};

TEST_F(JobMoverTest, RunsTheCommandWithTheJobIdAndHostAndSaysNothingOnSuccess) {
  const std::string said = (dir_ / "args").string();
  JobMover mover(Script("echo \"$@\" > " + said), 30 * kSecondNs);
  EXPECT_TRUE(mover.Start(Move(), 0).empty());
  EXPECT_TRUE(ReapAll(mover, 0).empty());
  std::ifstream in(said);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "41 node2");
}

TEST_F(JobMoverTest, AFailureIsLoggedWithTheJobAndTheExitStatus) {
  JobMover mover(Script("exit 3"), 30 * kSecondNs);
  EXPECT_TRUE(mover.Start(Move(), 0).empty());
  const std::vector<std::string> lines = ReapAll(mover, 0);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("moving slurm-41.batch (Slurm job 41) to node2:3"), std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("exited 3"), std::string::npos) << lines[0];
}

TEST_F(JobMoverTest, ACommandThatHangsIsKilledAfterTheTimeout) {
  JobMover mover(Script("exec sleep 30"), 5 * kSecondNs);
  EXPECT_TRUE(mover.Start(Move(), 0).empty());
  EXPECT_TRUE(mover.Reap(kSecondNs).empty());  // still within its time
  EXPECT_EQ(mover.running(), 1u);
  const std::vector<std::string> lines = ReapAll(mover, 6 * kSecondNs);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("ran past 5 s and was killed"), std::string::npos) << lines[0];
  EXPECT_EQ(mover.running(), 0u);
}

TEST_F(JobMoverTest, ACommandThatCannotStartIsLoggedAtOnce) {
  JobMover mover((dir_ / "missing").string(), 30 * kSecondNs);
  const std::vector<std::string> lines = mover.Start(Move(), 0);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("could not start"), std::string::npos) << lines[0];
  EXPECT_EQ(mover.running(), 0u);
}

}  // namespace
}  // namespace iashim::daemon
