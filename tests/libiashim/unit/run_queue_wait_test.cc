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

TEST(ParseSchedstat, TakesTheFirstTwoFields) {
  const auto a = ParseSchedstat("123 456 7\n");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->on_cpu_ns, 123u);
  EXPECT_EQ(a->wait_ns, 456u);
  const auto b = ParseSchedstat("18446744073709551615 5 1\n");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->on_cpu_ns, 18446744073709551615u);
  EXPECT_EQ(b->wait_ns, 5u);
  EXPECT_TRUE(ParseSchedstat("0 0 0"));
}

TEST(ParseSchedstat, RefusesAnythingElse) {
  for (const char* bad : {"", "\n", "1 2", "1 2 x", "a 2 3", "1 2 3 4", "-1 2 3", "1,2,3"}) {
    EXPECT_EQ(ParseSchedstat(bad), std::nullopt) << bad;
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

// Over its cap a thread that ran is read every call: its wait, different in
// each window, comes back exactly, while the idle threads are read in turn.
TEST_F(FakeTasks, OverItsCapAThreadThatRanIsReadEveryCall) {
  RunQueueWait wait(dir_.string(), /*max_reads=*/4);
  for (int tid = 100; tid < 110; ++tid) Write(tid, "1 1 1\n");
  uint64_t on_cpu = 1, waited = 1, now = 0;
  auto window = [&](uint64_t wait_in_window) {
    on_cpu += 50;
    waited += wait_in_window;
    Write(105, std::to_string(on_cpu) + " " + std::to_string(waited) + " 1\n");
    now += 100;
    return wait.TakeLongestWaitNs(now);
  };
  for (int i = 0; i < 4; ++i) window(0);  // until thread 105 has been read once
  for (uint64_t w = 1; w <= 20; ++w) {
    EXPECT_EQ(window(w * 3), w * 3) << "window " << w;
    EXPECT_EQ(wait.last_reads(), 4u);
  }
}

// With one read a call the threads are read in turn, and a wait that built up
// while a thread was not read is spread over the time since it was.
TEST_F(FakeTasks, AThreadReadInTurnHasItsWaitSpreadOverTheTimeSince) {
  RunQueueWait wait(dir_.string(), /*max_reads=*/1);
  for (int tid : {100, 101, 102}) Write(tid, "1 1 1\n");
  EXPECT_EQ(wait.TakeLongestWaitNs(0), 0u);    // reads 100: first seen
  EXPECT_EQ(wait.TakeLongestWaitNs(100), 0u);  // 101
  EXPECT_EQ(wait.TakeLongestWaitNs(200), 0u);  // 102
  Write(100, "2 601 2\n");
  EXPECT_EQ(wait.TakeLongestWaitNs(300), 200u);  // 600 over 300 ns, in a 100 ns window
  EXPECT_EQ(wait.last_reads(), 1u);
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
