#include "libiashim/src/run_queue_wait.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "tests/libiashim/one_busy_cpu.h"

namespace iashim {
namespace {

namespace fs = std::filesystem;

TEST(ParseSchedstatWait, TakesTheSecondField) {
  EXPECT_EQ(ParseSchedstatWait("123 456 7\n"), 456u);
  EXPECT_EQ(ParseSchedstatWait("0 0 0"), 0u);
  EXPECT_EQ(ParseSchedstatWait("18446744073709551615 5 1\n"), 5u);
}

TEST(ParseSchedstatWait, RefusesAnythingElse) {
  for (const char* bad : {"", "\n", "1 2", "1 2 x", "a 2 3", "1 2 3 4", "-1 2 3", "1,2,3"}) {
    EXPECT_EQ(ParseSchedstatWait(bad), std::nullopt) << bad;
  }
}

class FakeTasks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("iashim-rqw-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(int tid, const std::string& text) {
    fs::create_directories(dir_ / std::to_string(tid));
    std::ofstream(dir_ / std::to_string(tid) / "schedstat") << text;
  }
  void Gone(int tid) { fs::remove_all(dir_ / std::to_string(tid)); }
  fs::path dir_;
};

TEST_F(FakeTasks, LongestWaitOfAnyThreadSinceTheLastCall) {
  RunQueueWait wait(dir_.string());
  Write(10, "1 100 1\n");
  EXPECT_EQ(wait.TakeLongestWaitNs(), 0u);  // first seen: counts from now
  Write(10, "9 350 4\n");
  Write(11, "5 1000 1\n");  // a new thread: counts from now
  EXPECT_EQ(wait.TakeLongestWaitNs(), 250u);
  Write(10, "9 360 5\n");
  Write(11, "5 1400 2\n");
  EXPECT_EQ(wait.TakeLongestWaitNs(), 400u);
}

TEST_F(FakeTasks, ThreadsGoneOrReusedOrUnreadableCountNothing) {
  RunQueueWait wait(dir_.string());
  Write(10, "1 500 1\n");
  Write(11, "1 500 1\n");
  fs::create_directories(dir_ / "12");  // no schedstat
  EXPECT_EQ(wait.TakeLongestWaitNs(), 0u);
  Write(10, "1 20 1\n");       // a new thread with the same id: below the last reading
  Write(11, "not schedstat");  // unreadable this time
  EXPECT_EQ(wait.TakeLongestWaitNs(), 0u);
  Write(11, "1 900 1\n");  // forgotten while unreadable: counts from now
  Write(10, "1 70 1\n");
  EXPECT_EQ(wait.TakeLongestWaitNs(), 50u);
  Gone(10);
  Gone(11);
  EXPECT_EQ(wait.TakeLongestWaitNs(), 0u);
  Write(10, "1 5000 1\n");  // back after it was gone: counts from now
  EXPECT_EQ(wait.TakeLongestWaitNs(), 0u);
}

TEST(RunQueueWait, NoTaskDirectoryIsNoWait) {
  RunQueueWait wait("/nonexistent/iashim/task");
  EXPECT_EQ(wait.TakeLongestWaitNs(), 0u);
}

// The real file: this thread shares one CPU with two busy threads, so it is
// runnable without running for about two thirds of the time it spins.
TEST(RunQueueWaitOnThisHost, SeesAThreadWaitForABusyCpu) {
  const int tid = int(gettid());
  RunQueueWait wait;
  wait.TakeLongestWaitNs();
  std::ifstream probe("/proc/self/task/" + std::to_string(tid) + "/schedstat");
  if (!probe) GTEST_SKIP() << "no /proc/self/task/TID/schedstat on this kernel";

  iashim_test::OneBusyCpu busy(/*loops=*/2);
  ASSERT_TRUE(busy.ok());
  wait.TakeLongestWaitNs();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < until) {
  }
  const uint64_t waited = wait.TakeLongestWaitNs();
  busy.Release();
  // About 200 ms; a tenth of that is far from "did not wait".
  EXPECT_GT(waited, 20'000'000u);
}

}  // namespace
}  // namespace iashim
