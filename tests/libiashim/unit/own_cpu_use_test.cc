#include "libiashim/src/own_cpu_use.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace iashim {
namespace {

namespace fs = std::filesystem;

TEST(WaitOthersCaused, AProcessThatKeptItsCpusBusyWaitedBehindItself) {
  EXPECT_EQ(WaitOthersCaused(5'000'000, 0.95), 0u);
  EXPECT_EQ(WaitOthersCaused(5'000'000, kOwnCpusBusy), 0u);
  EXPECT_EQ(WaitOthersCaused(5'000'000, 0.5), 5'000'000u);
  EXPECT_EQ(WaitOthersCaused(5'000'000, 0.0), 5'000'000u);
  // Use not known yet (the first window): the wait stays, as before.
  EXPECT_EQ(WaitOthersCaused(5'000'000, std::nullopt), 5'000'000u);
}

TEST(ParseCpuMax, AQuotaOverItsPeriodIsCpus) {
  EXPECT_DOUBLE_EQ(*ParseCpuMax("200000 100000\n"), 2.0);
  EXPECT_DOUBLE_EQ(*ParseCpuMax("50000 100000"), 0.5);
  EXPECT_EQ(ParseCpuMax("max 100000\n"), std::nullopt);
  for (const char* bad :
       {"", "\n", "100000", "0 100000", "100000 0", "1x 100000", "-5 100000", "100000 100000 1"}) {
    EXPECT_EQ(ParseCpuMax(bad), std::nullopt) << bad;
  }
}

double AffinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  return CPU_COUNT(&set);
}

// A cgroup v2 tree of the test's own: /proc/self/cgroup's text and the
// hierarchy's cpu.max files.
class FakeCgroups : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("iashim-cgroup-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "root/job_7/step_0/task_0");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }
  CpuAllowance Find(const std::string& proc_cgroup, int online_cpus = 64) {
    Write(dir_ / "cgroup", proc_cgroup);
    return FindCpuAllowance((dir_ / "cgroup").string(), (dir_ / "root").string(), online_cpus);
  }
  double Allowed(const std::string& proc_cgroup) { return Find(proc_cgroup).cpus; }
  std::string Leaf() const { return (dir_ / "root/job_7/step_0/task_0").string(); }

  fs::path dir_;
};

TEST_F(FakeCgroups, WithoutAQuotaTheAffinityCounts) {
  EXPECT_EQ(Allowed("0::/job_7/step_0/task_0\n"), AffinityCpus());
  Write(dir_ / "root/job_7/cpu.max", "max 100000\n");
  EXPECT_EQ(Allowed("0::/job_7/step_0/task_0\n"), AffinityCpus());
  // A v1-only process, or no cgroup file at all.
  EXPECT_EQ(Allowed("12:cpu,cpuacct:/job_7\n"), AffinityCpus());
  EXPECT_EQ(FindCpuAllowance((dir_ / "absent").string(), (dir_ / "root").string(), 64).cpus,
            AffinityCpus());
}

TEST_F(FakeCgroups, TheLeastQuotaOfTheCgroupAndItsAncestorsCounts) {
  Write(dir_ / "root/job_7/step_0/task_0/cpu.max", "1000000 100000\n");  // 10 CPUs
  Write(dir_ / "root/job_7/cpu.max", "50000 100000\n");                  // half of one
  EXPECT_DOUBLE_EQ(Allowed("1:name=systemd:/x\n0::/job_7/step_0/task_0\n"), 0.5);
  Write(dir_ / "root/job_7/cpu.max", "max 100000\n");
  EXPECT_DOUBLE_EQ(Allowed("0::/job_7/step_0/task_0\n"), std::min(AffinityCpus(), 10.0));
}

// A cgroup confined to fewer CPUs than the machine's, or under a quota, was
// made for the job: its usage (its data loaders' too) counts. Unconfined, or
// without a cpu.stat, the process alone counts.
TEST_F(FakeCgroups, AConfinedCgroupIsTheJobs) {
  Write(dir_ / "root/job_7/step_0/task_0/cpu.stat", "usage_usec 5\nuser_usec 4\n");
  EXPECT_EQ(Find("0::/job_7/step_0/task_0\n").job_cgroup, "");  // nothing confines it
  Write(dir_ / "root/job_7/step_0/task_0/cpuset.cpus.effective", "0-7\n");
  EXPECT_EQ(Find("0::/job_7/step_0/task_0\n", /*online_cpus=*/8).job_cgroup, "");
  EXPECT_EQ(Find("0::/job_7/step_0/task_0\n", /*online_cpus=*/64).job_cgroup, Leaf());
  fs::remove(dir_ / "root/job_7/step_0/task_0/cpuset.cpus.effective");
  Write(dir_ / "root/job_7/cpu.max", "400000 100000\n");
  const CpuAllowance quota = Find("0::/job_7/step_0/task_0\n");
  EXPECT_EQ(quota.job_cgroup, Leaf());
  EXPECT_DOUBLE_EQ(quota.cpus, std::min(AffinityCpus(), 4.0));
  fs::remove(dir_ / "root/job_7/step_0/task_0/cpu.stat");
  EXPECT_EQ(Find("0::/job_7/step_0/task_0\n").job_cgroup, "");
}

TEST(ParseCpuList, CountsTheCpusOfEachRange) {
  EXPECT_EQ(ParseCpuList("0-3,8,10-11\n"), 7);
  EXPECT_EQ(ParseCpuList("0"), 1);
  EXPECT_EQ(ParseCpuList("5-5\n"), 1);
  for (const char* bad : {"", "\n", "3-1", "a", "1,,2", "1-", "-1", "0-3,"}) {
    EXPECT_EQ(ParseCpuList(bad), std::nullopt) << bad;
  }
}

TEST(ParseUsageUsec, FindsItsLine) {
  EXPECT_EQ(ParseUsageUsec("usage_usec 123456\nuser_usec 100\nsystem_usec 3\n"), 123456u);
  EXPECT_EQ(ParseUsageUsec("user_usec 100\nusage_usec 7"), 7u);
  EXPECT_EQ(ParseUsageUsec("user_usec 100\n"), std::nullopt);
  EXPECT_EQ(ParseUsageUsec("usage_usec x\n"), std::nullopt);
}

TEST(OwnCpuUse, TheFractionOfItsCpusTimeTheProcessUsed) {
  uint64_t cpu_ns = 1'000'000;
  OwnCpuUse use(2.0, [&] { return cpu_ns; });
  EXPECT_EQ(use.TakeBusyFraction(1'000'000'000), std::nullopt);  // nothing to compare with yet
  cpu_ns += 180'000'000;                                         // 180 ms on 2 CPUs over 100 ms
  EXPECT_DOUBLE_EQ(*use.TakeBusyFraction(1'100'000'000), 0.9);
  cpu_ns += 20'000'000;
  EXPECT_DOUBLE_EQ(*use.TakeBusyFraction(1'200'000'000), 0.1);
  EXPECT_EQ(use.TakeBusyFraction(1'200'000'000), std::nullopt);  // no time has passed
  // A reading that failed (0) is unknown and starts nothing: the next one
  // spans both windows.
  const uint64_t before = cpu_ns;
  cpu_ns = 0;
  EXPECT_EQ(use.TakeBusyFraction(1'300'000'000), std::nullopt);
  cpu_ns = before + 40'000'000;
  EXPECT_DOUBLE_EQ(*use.TakeBusyFraction(1'400'000'000), 0.1);
}

// The process's own sources: after this thread has run for 20 ms, the process
// has used some of its CPUs, and no more of them than there are.
TEST(OwnCpuUse, ReadsThisProcesssCpuTime) {
  OwnCpuUse use;
  const auto now = [] {
    return uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  };
  ASSERT_EQ(use.TakeBusyFraction(now()), std::nullopt);
  EXPECT_GE(use.allowed_cpus(), 1.0);
  const auto thread_cpu_ns = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return uint64_t(t.tv_sec) * 1'000'000'000ULL + uint64_t(t.tv_nsec);
  };
  const uint64_t from = thread_cpu_ns();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (thread_cpu_ns() - from < 20'000'000 && std::chrono::steady_clock::now() < deadline) {
  }
  const auto busy = use.TakeBusyFraction(now());
  ASSERT_TRUE(busy.has_value());
  EXPECT_GT(*busy, 0.0);
  EXPECT_LE(*busy, 1.05);
}

}  // namespace
}  // namespace iashim
