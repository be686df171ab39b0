#include "common/security/loopback.h"

#include <gtest/gtest.h>

namespace iashim::security {
namespace {

TEST(Loopback, LocalEndpoints) {
  for (const char* endpoint :
       {"tcp://127.0.0.1:5555", "tcp://127.1.2.3:1", "tcp://127.255.255.255:65535",
        "tcp://[::1]:5555", "tcp://localhost:5555", "ipc:///tmp/iashim.sock", "inproc://x"}) {
    EXPECT_TRUE(IsLoopbackEndpoint(endpoint)) << endpoint;
  }
}

TEST(Loopback, EndpointsOtherMachinesReach) {
  for (const char* endpoint :
       {"tcp://*:5555", "tcp://0.0.0.0:5555", "tcp://10.0.0.7:5555", "tcp://128.0.0.1:5555",
        "tcp://[::]:5555", "tcp://[::ffff:127.0.0.1]:5555", "tcp://eth0:5555", "tcp://lo:5555",
        "tcp://head-node:5555", "tcp://localhost.example.com:5555", "tcp://127.0.0:5555",
        "tcp://127.0.0.1.5:5555", "tcp://127.0.0.256:5555", "tcp://127.0.0.1;10.0.0.7:5555",
        "tcp://127.0.0.1", "tcp://127.0.0.1:", "tcp://127.0.0.1:x", "udp://127.0.0.1:5555",
        "pgm://127.0.0.1:5555", ""}) {
    EXPECT_FALSE(IsLoopbackEndpoint(endpoint)) << endpoint;
  }
}

TEST(Loopback, Hosts) {
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_TRUE(IsLoopbackHost("[::1]"));
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("::"));
  EXPECT_FALSE(IsLoopbackHost("192.168.1.2"));
  EXPECT_FALSE(IsLoopbackHost(""));
}

}  // namespace
}  // namespace iashim::security
