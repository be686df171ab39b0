// Ranks agree on their last iteration: the first to want to stop runs one
// more (a peer may be in it already), the smallest proposal wins, every rank
// stops at the same count, and an earlier run's file does not stop this one.
#include "bench/fakejob/stop_agreement.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace iashim::fakejob {
namespace {

class StopAgreementTest : public ::testing::Test {
 protected:
  void TearDown() override { ::unlink(StopAgreement::PathFor(group_).c_str()); }
  const std::string group_ = "fakejob-stop-test-" + std::to_string(::getpid());
};

TEST_F(StopAgreementTest, ALoneJobStopsWhenItWants) {
  StopAgreement lone("");
  EXPECT_FALSE(lone.ShouldStop(3, false));
  EXPECT_TRUE(lone.ShouldStop(3, true));
}

// Ranks on several simulated nodes share no /dev/shm: they agree in simgpu's
// fabric directory, as their all-reduce meets there.
TEST_F(StopAgreementTest, RanksOnSeveralNodesAgreeInTheFabric) {
  char dir[] = "/tmp/stop-fabric-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  ::setenv("SIMGPU_FABRIC", dir, 1);
  const std::string path = StopAgreement::PathFor(group_);
  EXPECT_EQ(path, std::string(dir) + "/" + group_ + ".stop");
  StopAgreement a(group_), b(group_);
  EXPECT_FALSE(a.ShouldStop(2, true));
  EXPECT_TRUE(b.ShouldStop(3, false));
  ::unlink(path.c_str());
  ::unsetenv("SIMGPU_FABRIC");
  ::rmdir(dir);
  EXPECT_EQ(StopAgreement::PathFor(group_), "/dev/shm/" + group_ + ".stop");
}

TEST_F(StopAgreementTest, EveryRankStopsAfterTheSameIteration) {
  StopAgreement a(group_), b(group_);
  EXPECT_FALSE(a.ShouldStop(4, false));
  // Rank a's time is up after 5 iterations: it proposes 6 and runs one more,
  // which rank b, a step ahead, may be in already.
  EXPECT_FALSE(a.ShouldStop(5, true));
  EXPECT_FALSE(b.ShouldStop(5, false));
  EXPECT_TRUE(a.ShouldStop(6, true));
  EXPECT_TRUE(b.ShouldStop(6, false));
}

TEST_F(StopAgreementTest, TheSmallestProposalWins) {
  StopAgreement a(group_), b(group_);
  EXPECT_FALSE(b.ShouldStop(9, true));   // proposes 10
  EXPECT_FALSE(a.ShouldStop(8, true));   // proposes 9: it wins
  EXPECT_TRUE(b.ShouldStop(9, false));
  EXPECT_TRUE(a.ShouldStop(9, false));
}

TEST_F(StopAgreementTest, AnEarlierRunsFileIsIgnored) {
  const std::string path = StopAgreement::PathFor(group_);
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("2\n", f);
  std::fclose(f);
  // Written an hour ago, by a run that has ended.
  const timespec old[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), old, 0), 0);
  StopAgreement a(group_);
  EXPECT_FALSE(a.ShouldStop(5, false));
  EXPECT_FALSE(a.ShouldStop(5, true));  // its own proposal replaces the old one
  EXPECT_TRUE(a.ShouldStop(6, false));
}

}  // namespace
}  // namespace iashim::fakejob
