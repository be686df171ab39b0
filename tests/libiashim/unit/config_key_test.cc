// IASHIM_COORDINATOR_KEY and the rule that the shim never sends plain text
// beyond loopback: every failure is one message and an unmanaged job.
#include <stdlib.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "libiashim/src/config.h"

namespace iashim {
namespace {

constexpr char kKey[] = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";

Config Parse(std::map<std::string, std::string> vars, std::vector<std::string>* errors) {
  return ParseConfig(
      [&vars](const char* name) -> const char* {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
      },
      errors);
}

TEST(ConfigKey, LoopbackWithoutAKeyIsPlainText) {
  std::vector<std::string> errors;
  const Config c = Parse({{"IASHIM_COORDINATOR", "tcp://127.0.0.1:5555"}}, &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(c.coordinator, "tcp://127.0.0.1:5555");
  EXPECT_TRUE(c.coordinator_key.empty());
}

TEST(ConfigKey, BeyondLoopbackWithoutAKeySendsNothing) {
  std::vector<std::string> errors;
  const Config c = Parse({{"IASHIM_COORDINATOR", "tcp://10.0.0.7:5555"}}, &errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0],
            "IASHIM_COORDINATOR='tcp://10.0.0.7:5555' is beyond this machine and "
            "IASHIM_COORDINATOR_KEY is not set (the coordinator's public key, from `iashim "
            "keygen`); telemetry is not sent in plain text");
  EXPECT_TRUE(c.coordinator.empty());
}

TEST(ConfigKey, AKeyGivenInline) {
  std::vector<std::string> errors;
  const Config c = Parse(
      {{"IASHIM_COORDINATOR", "tcp://10.0.0.7:5555"}, {"IASHIM_COORDINATOR_KEY", kKey}}, &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(c.coordinator, "tcp://10.0.0.7:5555");
  EXPECT_EQ(c.coordinator_key, kKey);
}

TEST(ConfigKey, AKeyGivenAsAFile) {
  char path[] = "/tmp/iashim-config-key-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text = std::string(kKey) + "\n";
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  std::vector<std::string> errors;
  const Config c = Parse(
      {{"IASHIM_COORDINATOR", "tcp://10.0.0.7:5555"}, {"IASHIM_COORDINATOR_KEY", path}}, &errors);
  unlink(path);
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(c.coordinator_key, kKey);
}

TEST(ConfigKey, ABadKeyMeansUnmanagedEvenOnLoopback) {
  std::vector<std::string> errors;
  const Config c = Parse({{"IASHIM_COORDINATOR", "tcp://127.0.0.1:5555"},
                          {"IASHIM_COORDINATOR_KEY", "/nonexistent/coordinator.key"}},
                         &errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0],
            "IASHIM_COORDINATOR_KEY='/nonexistent/coordinator.key': cannot read the key file "
            "/nonexistent/coordinator.key: No such file or directory; telemetry is not sent");
  EXPECT_TRUE(c.coordinator.empty());
  EXPECT_TRUE(c.coordinator_key.empty());
}

}  // namespace
}  // namespace iashim
