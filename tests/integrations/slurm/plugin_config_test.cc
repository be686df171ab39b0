#include "integrations/slurm/plugin_config.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace iashim::slurm {
namespace {

using ::testing::HasSubstr;

TEST(PluginConfigTest, NoArgumentsGiveTheDefaults) {
  absl::StatusOr<PluginConfig> c = ParsePluginArgs({});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->coordinator, "tcp://127.0.0.1:5555");
  EXPECT_EQ(c->timeout_s, 2.0);
  EXPECT_EQ(c->queue_wait_s, 0.0);
  EXPECT_EQ(c->device_prefix, "/dev/nvidia");
  EXPECT_TRUE(c->shim.empty());
}

TEST(PluginConfigTest, EveryKeyIsRead) {
  absl::StatusOr<PluginConfig> c =
      ParsePluginArgs({"coordinator=ipc:///run/iashim/router", "timeout_s=0.5", "queue_wait_s=600",
                       "shim=/opt/iashim/lib/libiashim.so", "coordinator_key=/etc/iashim/c.pub",
                       "device_prefix=/tmp/fake/nvidia"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->coordinator, "ipc:///run/iashim/router");
  EXPECT_EQ(c->timeout_s, 0.5);
  EXPECT_EQ(c->queue_wait_s, 600);
  EXPECT_EQ(c->shim, "/opt/iashim/lib/libiashim.so");
  EXPECT_EQ(c->coordinator_key, "/etc/iashim/c.pub");
  EXPECT_EQ(c->device_prefix, "/tmp/fake/nvidia");
}

TEST(PluginConfigTest, BadArgumentsAreNamed) {
  struct Case {
    const char* arg;
    const char* says;
  } cases[] = {
      {"coordinator", "expected key=value"},
      {"coordinator=tcp://*:5555", "tcp://HOST:PORT"},
      {"timeout_s=0", "[0.05, 60]"},
      {"timeout_s=nan", "[0.05, 60]"},
      {"queue_wait_s=-1", "0: wait until placed"},
      {"shim=libiashim.so", "absolute path"},
      {"coordinator_key=", "key file"},
      {"device_prefix=nvidia", "absolute path prefix"},
      {"colour=blue", "unknown key"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<PluginConfig> parsed = ParsePluginArgs({c.arg});
    ASSERT_FALSE(parsed.ok()) << c.arg;
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(c.arg));
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(c.says));
  }
}

}  // namespace
}  // namespace iashim::slurm
