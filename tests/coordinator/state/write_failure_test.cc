// Writes that fail part-way (a full disk, a file size limit): the store takes
// back the partial record so later records stay readable, and a failed
// automatic compaction costs the mutation that triggered it nothing. The
// failures come from RLIMIT_FSIZE (EFBIG), set in a child process so that
// the test runner keeps its own limits.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "coordinator/state/state_store.h"
#include "gtest/gtest.h"
#include "tests/coordinator/state/test_util.h"

namespace iashim::state {
namespace {

using testing::SampleJob;
using testing::SampleObservation;
using testing::TempDir;

// Runs `body` in a child process and returns its exit code: 0 when it passed,
// else the number of the check that failed.
int InChild(absl::FunctionRef<int()> body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

void LimitFileSize(uint64_t bytes) {
  signal(SIGXFSZ, SIG_IGN);  // EFBIG from write(2) instead of a signal
  const rlimit limit{bytes, bytes};
  setrlimit(RLIMIT_FSIZE, &limit);
}

TEST(WriteFailureTest, APartialRecordIsTakenBack) {
  TempDir dir;
  const int failed = InChild([&] {
    StateStore::Options options;
    options.compact_journal_bytes = 0;
    auto store = StateStore::Open(dir.path(), options);
    if (!store.ok()) return 1;
    if (!(*store)->PutJob(SampleJob(1)).ok()) return 2;
    const uint64_t before = (*store)->journal_bytes();
    LimitFileSize(before + 300);  // room for part of the next record only
    if ((*store)->PutKv("big", std::string(4096, 'v')).ok()) return 3;
    // Refused by the disk, kept in memory, and the store says it is behind.
    if ((*store)->state().kv.count("big") != 1 || (*store)->write_error().ok()) return 4;
    if ((*store)->journal_bytes() != before) return 5;
    if (std::filesystem::file_size(dir.File("journal.log")) != before) return 6;
    if (!(*store)->AddObservation(SampleObservation(2)).ok()) return 7;  // fits
    return 0;
  });
  ASSERT_EQ(failed, 0) << "check " << failed << " failed in the child";
  auto store = StateStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE((*store)->load_report().clean()) << (*store)->load_report().ToString();
  EXPECT_EQ((*store)->state().jobs.count("job-1"), 1u);
  EXPECT_EQ((*store)->state().kv.count("big"), 0u);
  ASSERT_EQ((*store)->state().observations.size(), 1u);
}

TEST(WriteFailureTest, WhatTheDiskRefusedIsWrittenOnceThereIsRoom) {
  TempDir dir;
  const int failed = InChild([&] {
    StateStore::Options options;
    options.compact_journal_bytes = 0;
    auto store = StateStore::Open(dir.path(), options);
    if (!store.ok()) return 1;
    if (!(*store)->PutJob(SampleJob(1)).ok()) return 2;
    signal(SIGXFSZ, SIG_IGN);
    rlimit limit{(*store)->journal_bytes(), RLIM_INFINITY};  // full: not one more byte
    setrlimit(RLIMIT_FSIZE, &limit);
    if ((*store)->PutJob(SampleJob(2)).ok()) return 3;
    if ((*store)->RemoveJob("job-1").ok()) return 4;
    if ((*store)->write_error().ok() || (*store)->failed_writes() != 2) return 5;
    if ((*store)->state().jobs.count("job-2") != 1 || (*store)->state().jobs.count("job-1") != 0)
      return 6;
    if ((*store)->CatchUp().ok()) return 7;  // still full
    limit.rlim_cur = RLIM_INFINITY;  // room again
    setrlimit(RLIMIT_FSIZE, &limit);
    sleep(1);  // catch-up attempts are at most once a second
    if (!(*store)->CatchUp().ok() || !(*store)->write_error().ok()) return 8;
    return 0;
  });
  ASSERT_EQ(failed, 0) << "check " << failed << " failed in the child";
  auto store = StateStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE((*store)->load_report().clean()) << (*store)->load_report().ToString();
  EXPECT_EQ((*store)->state().jobs.count("job-1"), 0u);
  EXPECT_EQ((*store)->state().jobs.count("job-2"), 1u);
}

TEST(WriteFailureTest, AFailedAutomaticCompactionDoesNotFailTheMutation) {
  constexpr int kJobs = 15;
  TempDir dir;
  const int failed = InChild([&] {
    StateStore::Options options;
    options.compact_journal_bytes = 2048;
    auto store = StateStore::Open(dir.path(), options);
    if (!store.ok()) return 1;
    // A snapshot larger than the limit set below; this first one succeeds.
    if (!(*store)->PutKv("big", std::string(8192, 'v')).ok()) return 2;
    if ((*store)->journal_bytes() != 0) return 3;
    LimitFileSize(6000);
    for (int i = 0; i < kJobs; ++i) {  // ~3.5 KiB of journal: past the threshold
      if (!(*store)->PutJob(SampleJob(i)).ok()) return 4;
    }
    if ((*store)->last_compaction_status().ok()) return 5;
    if ((*store)->journal_bytes() < options.compact_journal_bytes) return 6;
    return 0;
  });
  ASSERT_EQ(failed, 0) << "check " << failed << " failed in the child";
  auto store = StateStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE((*store)->load_report().clean()) << (*store)->load_report().ToString();
  EXPECT_EQ((*store)->state().jobs.size(), static_cast<size_t>(kJobs));
  EXPECT_EQ((*store)->state().kv.at("big"), std::string(8192, 'v'));
  EXPECT_FALSE(std::filesystem::exists(dir.File("snapshot.bin.tmp")));
}

}  // namespace
}  // namespace iashim::state
