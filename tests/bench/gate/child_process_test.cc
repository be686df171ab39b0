#include "bench/gate/child_process.h"

#include <signal.h>
#include <sys/wait.h>

#include <string>

#include "gtest/gtest.h"

namespace iashim::gatebench {
namespace {

TEST(ChildProcessTest, CapturesOutputAndExitStatus) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> c = ChildProcess::Start(
      "/bin/sh", {"sh", "-c", "echo out:$GREETING; echo err >&2; exit 3"}, {"GREETING=hi"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE((*c)->WaitExit(10));
  EXPECT_EQ((*c)->DescribeStatus(), "exit 3");
  EXPECT_EQ((*c)->Stdout(), "out:hi\n");
  EXPECT_EQ((*c)->Stderr(), "err\n");
}

TEST(ChildProcessTest, SignalStopsAndDestructorKills) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> c =
      ChildProcess::Start("/bin/sleep", {"sleep", "30"}, {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE((*c)->Running());
  EXPECT_FALSE((*c)->WaitExit(0.05));
  (*c)->Signal(SIGINT);
  ASSERT_TRUE((*c)->WaitExit(10));
  EXPECT_EQ((*c)->DescribeStatus(), "signal 2");

  c = ChildProcess::Start("/bin/sleep", {"sleep", "30"}, {});
  ASSERT_TRUE(c.ok());
  const pid_t pid = (*c)->pid();
  c->reset();  // kills and reaps
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);
}

TEST(ChildProcessTest, ExecFailureIsExit127) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> c =
      ChildProcess::Start("/nonexistent/program", {"program"}, {});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE((*c)->WaitExit(10));
  EXPECT_EQ((*c)->DescribeStatus(), "exit 127");
}

}  // namespace
}  // namespace iashim::gatebench
