#include "coordinator/metrics/listen_address.h"

#include <string>

#include "gtest/gtest.h"

namespace iashim::metrics {
namespace {

TEST(ListenAddressTest, AcceptsHostsAndPorts) {
  struct Case {
    const char* text;
    const char* host;
    uint16_t port;
  };
  for (const Case& c : {Case{"127.0.0.1:9400", "127.0.0.1", 9400}, Case{"0.0.0.0:0", "0.0.0.0", 0},
                        Case{"[::1]:9400", "::1", 9400}, Case{"[::]:65535", "::", 65535},
                        Case{"localhost:80", "localhost", 80},
                        Case{"head-node.cluster.local:09400", "head-node.cluster.local", 9400}}) {
    absl::StatusOr<ListenAddress> a = ParseListenAddress(c.text);
    ASSERT_TRUE(a.ok()) << c.text << ": " << a.status();
    EXPECT_EQ(a->host, c.host);
    EXPECT_EQ(a->port, c.port);
  }
}

TEST(ListenAddressTest, PrintsBackInTheSameForm) {
  EXPECT_EQ((ListenAddress{"127.0.0.1", 9400}).ToString(), "127.0.0.1:9400");
  EXPECT_EQ((ListenAddress{"::1", 0}).ToString(), "[::1]:0");
  EXPECT_EQ((ListenAddress{"localhost", 80}).ToString(), "localhost:80");
}

// Found by tests/fuzz (listen_address): inet_pton reads a C string, so
// "[::1<NUL>junk]" was accepted with the junk in the host.
TEST(ListenAddressTest, RejectsNulInsideAnIpv6Address) {
  const std::string text("[::1\0junk]:9400", 15);
  absl::StatusOr<ListenAddress> a = ParseListenAddress(text);
  ASSERT_FALSE(a.ok()) << a->host;
  EXPECT_TRUE(absl::IsInvalidArgument(a.status()));
  EXPECT_NE(a.status().message().find("is not an IPv6 address"), std::string::npos) << a.status();
}

TEST(ListenAddressTest, RejectsWithAReason) {
  struct Case {
    const char* text;
    const char* why;
  };
  for (const Case& c : {
           Case{"", "expected HOST:PORT, such as 127.0.0.1:9400"},
           Case{"9400", "expected HOST:PORT, such as 127.0.0.1:9400"},
           Case{":9400", "missing HOST before ':' (0.0.0.0 listens on every interface)"},
           Case{"localhost:", "missing PORT after ':'"},
           Case{"localhost:65536", "PORT must be a number 0..65535"},
           Case{"localhost:123456", "PORT must be a number 0..65535"},
           Case{"localhost:-1", "PORT must be a number 0..65535"},
           Case{"localhost:80 ", "PORT must be a number 0..65535"},
           Case{"localhost:http", "PORT must be a number 0..65535"},
           Case{"::1:9400", "an IPv6 address goes in brackets, such as [::1]:9400"},
           Case{"[::1:9400", "missing ']' after the IPv6 address"},
           Case{"[::1]9400", "expected ':PORT' after ']'"},
           Case{"[::1]", "expected ':PORT' after ']'"},
           Case{"[127.0.0.1]:80", "'127.0.0.1' is not an IPv6 address"},
           Case{"256.1.1.1:80", "'256.1.1.1' is not an IPv4 address"},
           Case{"1.2.3:80", "'1.2.3' is not an IPv4 address"},
           Case{"bad_host:80", "'bad_host' is not a valid host name"},
           Case{"-host:80", "'-host' is not a valid host name"},
           Case{"a..b:80", "'a..b' is not a valid host name"},
           Case{" localhost:80", "' localhost' is not a valid host name"},
       }) {
    absl::StatusOr<ListenAddress> a = ParseListenAddress(c.text);
    ASSERT_FALSE(a.ok()) << "accepted '" << c.text << "'";
    EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(a.status().message(),
              std::string("invalid listen address '") + c.text + "': " + c.why);
  }
}

}  // namespace
}  // namespace iashim::metrics
