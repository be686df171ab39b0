#include "coordinator/top/options.h"

#include "gtest/gtest.h"

namespace iashim::top {
namespace {

TEST(ParseOptions, DefaultsToTheLocalCoordinator) {
  auto o = ParseOptions({});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->pub_endpoint, "tcp://127.0.0.1:5556");
  EXPECT_FALSE(o->help);
  EXPECT_FALSE(o->version);
}

TEST(ParseOptions, PubInBothForms) {
  auto a = ParseOptions({"--pub", "tcp://head:7000"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->pub_endpoint, "tcp://head:7000");
  auto b = ParseOptions({"--pub=ipc:///tmp/x/pub.sock"});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->pub_endpoint, "ipc:///tmp/x/pub.sock");
  auto c = ParseOptions({"--pub", "tcp://[::1]:5556"});
  EXPECT_TRUE(c.ok()) << c.status();
}

TEST(ParseOptions, HelpAndVersionWinOverEverythingElse) {
  auto h = ParseOptions({"--pub", "nonsense", "-h"});
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->help);
  auto v = ParseOptions({"--version"});
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->version);
}

TEST(ParseOptions, ErrorsSayWhatIsWrong) {
  auto missing = ParseOptions({"--pub"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("needs an ENDPOINT"), std::string::npos);

  auto unknown = ParseOptions({"--bogus"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("'--bogus'"), std::string::npos);

  auto positional = ParseOptions({"tcp://127.0.0.1:5556"});
  EXPECT_FALSE(positional.ok());
}

TEST(ValidateEndpoint, AcceptsWhatASubSocketCanConnectTo) {
  EXPECT_TRUE(ValidateEndpoint("tcp://127.0.0.1:5556").ok());
  EXPECT_TRUE(ValidateEndpoint("tcp://head-node.example:1").ok());
  EXPECT_TRUE(ValidateEndpoint("ipc:///run/iashim/pub").ok());
}

TEST(ValidateEndpoint, RejectsWithAReason) {
  for (const char* bad :
       {"", "127.0.0.1:5556", "udp://x:1", "tcp://", "tcp://host", "tcp://:5556", "tcp://host:0",
        "tcp://host:65536", "tcp://host:http", "tcp://host:*", "ipc://", "inproc://x"}) {
    const absl::Status s = ValidateEndpoint(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("tcp://HOST:PORT"), std::string::npos) << s;
  }
}

TEST(ParseOptions, CoordinatorKey) {
  absl::StatusOr<TopOptions> o = ParseOptions({"--coordinator-key", "/k/coordinator.key"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->coordinator_key, "/k/coordinator.key");
  o = ParseOptions({"--pub=tcp://10.0.0.7:5556", "--coordinator-key=/k/c.key"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->coordinator_key, "/k/c.key");
  EXPECT_EQ(ParseOptions({"--coordinator-key"}).status().message(),
            "--coordinator-key needs a FILE");
  EXPECT_EQ(ParseOptions({"--coordinator-key="}).status().message(),
            "--coordinator-key must not be empty");
}

TEST(Usage, MentionsTheOptionAndTheDefault) {
  const std::string u = Usage();
  EXPECT_NE(u.find("--pub ENDPOINT"), std::string::npos);
  EXPECT_NE(u.find("tcp://127.0.0.1:5556"), std::string::npos);
}

}  // namespace
}  // namespace iashim::top
