// The key options of `iashim`: --coordinator-key and --admin-key on every
// command that talks to the coordinator, how they resolve (ResolveToolKeys),
// and `iashim keygen`'s command line.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "coordinator/cli/cli_options.h"
#include "coordinator/client/job_environment.h"
#include "coordinator/cli/keygen_options.h"
#include "coordinator/cli/tool_keys.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace iashim::cli {
namespace {

using ::testing::HasSubstr;

constexpr char kKey[] = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";

TEST(KeyOptions, EveryCoordinatorCommandTakesThem) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"status"}, {"place"}, {"run", "--", "true"}, {"drain", "node1"}}) {
    args.insert(args.begin() + 1, {"--coordinator-key", "/k/coordinator.key",
                                   "--admin-key=/k/admin.key_secret"});
    absl::StatusOr<CliOptions> o = ParseCommandLine(args, nullptr);
    ASSERT_TRUE(o.ok()) << args[0] << ": " << o.status();
    EXPECT_EQ(o->coordinator_key, "/k/coordinator.key");
    EXPECT_EQ(o->admin_key_file, "/k/admin.key_secret");
    // Nothing is read while parsing.
    EXPECT_FALSE(o->keys.curve());
  }
  absl::StatusOr<CliOptions> o = ParseCommandLine({"status", "--coordinator-key="}, nullptr);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "--coordinator-key must not be empty");
}

TEST(ToolKeys, LoopbackWithoutAKeyIsPlainText) {
  CliOptions options;
  ASSERT_TRUE(ResolveToolKeys(options, nullptr).ok());
  EXPECT_FALSE(options.keys.curve());
}

TEST(ToolKeys, BeyondLoopbackNeedsAKey) {
  CliOptions options;
  options.coordinator = "tcp://10.0.0.7:5555";
  absl::Status s = ResolveToolKeys(options, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("the coordinator tcp://10.0.0.7:5555 is beyond this machine"));
  ASSERT_TRUE(ResolveToolKeys(options, kKey).ok());
  EXPECT_EQ(options.keys.server_public, kKey);
}

TEST(ToolKeys, TheOptionReplacesTheEnvironment) {
  CliOptions options;
  options.coordinator = "tcp://10.0.0.7:5555";
  options.coordinator_key = kKey;
  ASSERT_TRUE(ResolveToolKeys(options, "/not/read").ok());
  EXPECT_EQ(options.keys.server_public, kKey);
}

TEST(ToolKeys, ErrorsSayWhereTheKeyCameFrom) {
  CliOptions options;
  absl::Status s = ResolveToolKeys(options, "/nonexistent.key");
  EXPECT_EQ(s.message(),
            "IASHIM_COORDINATOR_KEY: the coordinator's public key: cannot read the key file "
            "/nonexistent.key: No such file or directory");
  options.coordinator_key = "/nonexistent.key";
  s = ResolveToolKeys(options, nullptr);
  EXPECT_THAT(std::string(s.message()), HasSubstr("--coordinator-key: the coordinator's"));
}

TEST(ToolKeys, RunForwardsTheKeyToTheJob) {
  CliOptions options;
  options.coordinator = "tcp://10.0.0.7:5555";
  ASSERT_TRUE(ResolveToolKeys(options, kKey).ok());
  const std::vector<client::EnvChange> env = client::ManagedEnvironment(options.job_request(), client::Placement{}, client::JobLibraries{"/lib/libiashim.so", ""},
      [](const char*) -> const char* { return nullptr; }, nullptr);
  bool forwarded = false;
  for (const client::EnvChange& change : env) {
    if (change.name == "IASHIM_COORDINATOR_KEY") forwarded = change.value == std::string(kKey);
  }
  EXPECT_TRUE(forwarded);
}

TEST(KeygenOptions, Defaults) {
  absl::StatusOr<KeygenOptions> o = ParseKeygenOptions({}, "/xdg", "/home/u");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->dir, "/xdg/iashim");
  EXPECT_FALSE(o->admin);
  EXPECT_FALSE(o->force);
  EXPECT_EQ(o->file_name(), "coordinator.key");
  o = ParseKeygenOptions({}, nullptr, "/home/u");
  EXPECT_EQ(o->dir, "/home/u/.config/iashim");
  // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
  o = ParseKeygenOptions({}, "rel", "/home/u");
  EXPECT_EQ(o->dir, "/home/u/.config/iashim");
  o = ParseKeygenOptions({}, nullptr, nullptr);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(),
            "neither XDG_CONFIG_HOME nor HOME is an absolute path: pass --dir DIR");
}

TEST(KeygenOptions, Values) {
  absl::StatusOr<KeygenOptions> o =
      ParseKeygenOptions({"--admin", "--force", "--dir", "/etc/iashim/"}, nullptr, nullptr);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->dir, "/etc/iashim");
  EXPECT_TRUE(o->admin);
  EXPECT_TRUE(o->force);
  EXPECT_EQ(o->file_name(), "admin.key");
  o = ParseKeygenOptions({"--dir=keys"}, nullptr, nullptr);
  EXPECT_EQ(o->dir, "keys");
}

TEST(KeygenOptions, Errors) {
  EXPECT_EQ(ParseKeygenOptions({"--dir"}, "/x", nullptr).status().message(),
            "--dir needs a value (DIR)");
  EXPECT_EQ(ParseKeygenOptions({"--dir="}, "/x", nullptr).status().message(),
            "--dir must not be empty");
  EXPECT_EQ(ParseKeygenOptions({"--bits", "4096"}, "/x", nullptr).status().message(),
            "unknown option '--bits' for 'iashim keygen'");
  EXPECT_TRUE(ParseKeygenOptions({"--help"}, nullptr, nullptr)->help);
}

}  // namespace
}  // namespace iashim::cli
