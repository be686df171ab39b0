// kill -9 at any moment: a child process mutates a store in a loop (with
// frequent automatic compactions, so some kills land inside one) and reports
// each mutation's number on a pipe after it returned. The parent kills it
// once it has read a randomly chosen count, reads what else was reported,
// and reopens: every reported mutation must be there. The child may have
// finished one more that it had no time to report, so the state must equal
// the first N or N + 1 mutations. No sleeps: the pipe orders everything.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "coordinator/state/state_store.h"
#include "gtest/gtest.h"
#include "tests/coordinator/state/test_util.h"

namespace iashim::state {
namespace {

using testing::ApplyTo;
using testing::ExpectedAfter;
using testing::MixedMutation;
using testing::TempDir;

StateStore::Options ChildOptions() {
  StateStore::Options o;
  o.compact_journal_bytes = 2048;  // a compaction every dozen or so mutations
  o.max_observations = 20;         // the bound is crossed, and crossed again on reload
  return o;
}

[[noreturn]] void RunChild(const std::string& dir, int report_fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a failed test
  absl::StatusOr<std::unique_ptr<StateStore>> store = StateStore::Open(dir, ChildOptions());
  if (!store.ok()) _exit(2);
  for (uint64_t i = 0;; ++i) {
    if (!ApplyTo(**store, MixedMutation(static_cast<int>(i))).ok()) _exit(3);
    const uint64_t done = i + 1;
    if (write(report_fd, &done, sizeof(done)) != sizeof(done)) _exit(4);
  }
}

// One reported count, or false at end of file.
bool ReadCount(int fd, uint64_t* count) {
  size_t got = 0;
  char* out = reinterpret_cast<char*>(count);
  while (got < sizeof(*count)) {
    ssize_t n = read(fd, out + got, sizeof(*count) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

TEST(CrashTest, KillNineLosesNothingThatWasAcknowledged) {
  std::mt19937 rng(20240601);
  for (int round = 0; round < 25; ++round) {
    const uint64_t kill_at = 1 + rng() % 500;
    SCOPED_TRACE(::testing::Message() << "round " << round << ", kill after " << kill_at);
    TempDir dir;
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      RunChild(dir.path(), fds[1]);
    }
    close(fds[1]);

    uint64_t acknowledged = 0;
    bool alive = true;
    while (acknowledged < kill_at && (alive = ReadCount(fds[0], &acknowledged))) {
    }
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    for (uint64_t later; ReadCount(fds[0], &later);) acknowledged = later;
    close(fds[0]);
    ASSERT_TRUE(alive) << "the child stopped by itself: status " << status;
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;

    absl::StatusOr<std::unique_ptr<StateStore>> store =
        StateStore::Open(dir.path(), ChildOptions());
    ASSERT_TRUE(store.ok()) << store.status();
    const State& state = (*store)->state();
    const int n = static_cast<int>(acknowledged);
    const bool all_reported = state == ExpectedAfter(n, ChildOptions().max_observations);
    const bool one_more = state == ExpectedAfter(n + 1, ChildOptions().max_observations);
    EXPECT_TRUE(all_reported || one_more)
        << acknowledged << " reported; " << (*store)->load_report().ToString();
    // A kill can cut a write short (the kernel checks for fatal signals
    // between pages), which may only ever cost the unacknowledged record.
    EXPECT_EQ((*store)->load_report().records_dropped, 0u) << (*store)->load_report().ToString();
  }
}

}  // namespace
}  // namespace iashim::state
