#include "coordinator/daemon/daemon_options.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace iashim::daemon {
namespace {

TEST(DaemonOptionsTest, Defaults) {
  absl::StatusOr<DaemonOptions> o = ParseDaemonOptions({});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->listen, "tcp://127.0.0.1:5555");
  EXPECT_TRUE(o->control);
  EXPECT_TRUE(o->probe);
  EXPECT_FALSE(o->state_dir.empty());
  EXPECT_EQ(o->placement, "interference");
  EXPECT_TRUE(o->packing);
  EXPECT_FALSE(o->join_busy_gpus);
  EXPECT_DOUBLE_EQ(o->reservation_ttl_s, 30);
}

TEST(DaemonOptionsTest, ReservationTtl) {
  for (const auto& [args, ttl] : std::vector<std::pair<std::vector<std::string>, double>>{
           {{"--reservation-ttl-s", "0"}, 0},
           {{"--reservation-ttl-s=12.5"}, 12.5},
           {{"--reservation-ttl-s", "3600"}, 3600}}) {
    absl::StatusOr<DaemonOptions> o = ParseDaemonOptions(args);
    ASSERT_TRUE(o.ok()) << o.status();
    EXPECT_DOUBLE_EQ(o->reservation_ttl_s, ttl) << args.back();
  }
  for (const std::string bad : {"-1", "3601", "abc", "", "nan", "30s"}) {
    absl::StatusOr<DaemonOptions> o = ParseDaemonOptions({"--reservation-ttl-s", bad});
    ASSERT_FALSE(o.ok()) << bad;
    EXPECT_EQ(o.status().message(),
              "--reservation-ttl-s '" + bad + "' is not a number in [0, 3600]");
  }
  absl::StatusOr<DaemonOptions> o = ParseDaemonOptions({"--reservation-ttl-s"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "--reservation-ttl-s needs a value");
  EXPECT_NE(DaemonUsage().find("--reservation-ttl-s S"), std::string::npos);
}

TEST(DaemonOptionsTest, MovingJobsNeedsACommandThatRuns) {
  absl::StatusOr<DaemonOptions> o = ParseDaemonOptions({});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->move_command.empty());  // off by default
  o = ParseDaemonOptions({"--move-command", "/bin/true", "--move-after-empty-s=3"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->move_command, "/bin/true");
  EXPECT_DOUBLE_EQ(o->move_after_empty_s, 3);
  o = ParseDaemonOptions({"--move-command", "/nonexistent/iashim-move-job"});
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("'/nonexistent/iashim-move-job' is not a program"),
            std::string::npos)
      << o.status();
  o = ParseDaemonOptions({"--move-after-empty-s", "3"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "--move-after-empty-s needs --move-command (what moves a job)");
  o = ParseDaemonOptions({"--move-command", "/bin/true", "--move-after-empty-s", "0"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "--move-after-empty-s '0' is not a number in (0, 3600]");
  EXPECT_NE(DaemonUsage().find("--move-command PATH"), std::string::npos);
}

TEST(DaemonOptionsTest, Values) {
  absl::StatusOr<DaemonOptions> o =
      ParseDaemonOptions({"--listen", "ipc:///tmp/x", "--pub=tcp://127.0.0.2:7000", "--no-control",
                          "--no-probe", "--no-run-target", "--slowdown-target", "0.2",
                          "--state-dir", "/tmp/s", "--placement", "simple", "--min-gain=0.2",
                          "--no-packing", "--gang-budgets", "independent", "--join-busy-gpus"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->listen, "ipc:///tmp/x");
  EXPECT_EQ(o->pub, "tcp://127.0.0.2:7000");
  EXPECT_FALSE(o->control);
  EXPECT_FALSE(o->probe);
  EXPECT_FALSE(o->run_target);
  EXPECT_DOUBLE_EQ(o->slowdown_target, 0.2);
  EXPECT_EQ(o->state_dir, "/tmp/s");
  EXPECT_EQ(o->placement, "simple");
  EXPECT_DOUBLE_EQ(o->min_gain, 0.2);
  EXPECT_FALSE(o->packing);
  EXPECT_TRUE(o->join_busy_gpus);
  EXPECT_EQ(o->gang_budgets, "independent");
}

TEST(DaemonOptionsTest, BadInputIsNamed) {
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  };
  for (const Case& c : {Case{{"--listen", "http://x"}, "--listen 'http://x'"},
                        Case{{"--slowdown-target", "0"}, "--slowdown-target '0'"},
                        Case{{"--slowdown-target", "abc"}, "--slowdown-target 'abc'"},
                        Case{{"--heartbeat-timeout-s"}, "needs a value"},
                        Case{{"--bogus"}, "unknown option '--bogus'"},
                        Case{{"--placement", "best"}, "--placement must be 'interference' or"},
                        Case{{"--min-gain", "2"}, "--min-gain '2'"},
                        Case{{"--gang-budgets", "per-gpu"}, "--gang-budgets must be 'straggler',"},
                        Case{{"--state-dir", ""}, "must not be empty"},
                        Case{{"--listen", "tcp://a:1", "--pub", "tcp://a:1"}, "different"}}) {
    absl::StatusOr<DaemonOptions> o = ParseDaemonOptions(c.args);
    ASSERT_FALSE(o.ok()) << c.expect;
    EXPECT_NE(o.status().message().find(c.expect), std::string::npos) << o.status();
  }
}

}  // namespace
}  // namespace iashim::daemon
