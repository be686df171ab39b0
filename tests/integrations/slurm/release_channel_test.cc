#include "integrations/slurm/release_channel.h"

#include <sys/wait.h>
#include <unistd.h>

#include "gtest/gtest.h"

namespace iashim::slurm {
namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef";

TEST(ReleaseChannelTest, LinesRoundTrip) {
  std::string buffer = FormatReleaseLine({0, "slurm-5.0.0", kToken}) +
                       FormatReleaseLine({3, "slurm-5.0.3", kToken}) + "2 slurm-5.0";
  const std::vector<ReleaseEntry> entries = TakeReleaseLines(buffer);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].local_task, 3);
  EXPECT_EQ(entries[1].job, "slurm-5.0.3");
  EXPECT_EQ(entries[1].token, kToken);
  EXPECT_EQ(buffer, "2 slurm-5.0");  // the partial line waits for the rest
}

TEST(ReleaseChannelTest, MalformedLinesAreDropped) {
  std::string buffer = "x slurm-1.0.0 " + kToken + "\n0 bad id " + kToken + "\n0 slurm-1.0.0 short\n" +
                       "1 slurm-1.0.1 " + kToken + "\n";
  const std::vector<ReleaseEntry> entries = TakeReleaseLines(buffer);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].local_task, 1);
  EXPECT_TRUE(FormatReleaseLine({0, "has space", kToken}).empty());
  EXPECT_TRUE(FormatReleaseLine({0, "slurm-1.0.0", "not-a-token"}).empty());
}

TEST(ReleaseChannelTest, ForkedTasksReportToTheParent) {
  ReleaseChannel channel;
  ASSERT_TRUE(channel.Open());
  for (int task = 0; task < 3; ++task) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) _exit(channel.Send({task, "slurm-9.0." + std::to_string(task), kToken}) ? 0 : 1);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  channel.Collect();
  ReleaseEntry entry;
  ASSERT_TRUE(channel.Take(1, &entry));
  EXPECT_EQ(entry.job, "slurm-9.0.1");
  EXPECT_FALSE(channel.Take(1, &entry));  // taken once
  EXPECT_EQ(channel.TakeAll().size(), 2u);
  channel.Collect();  // nothing more: does not block
  EXPECT_TRUE(channel.TakeAll().empty());
}

}  // namespace
}  // namespace iashim::slurm
