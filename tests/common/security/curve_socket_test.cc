// A real CURVE handshake between two sockets of one process: the right server
// key gets a message through, a wrong one does not.
#include "common/security/curve_socket.h"

#include <gtest/gtest.h>

#include <chrono>
#include <zmq.hpp>

#include "common/security/curve.h"

#if defined(IASHIM_SANITIZE_THREAD)
// libzmq is not built with TSan: messages pass between this thread and
// ZeroMQ's I/O thread through libzmq's own lock-free pipes, which TSan cannot
// see. Suppress only reports with a libzmq frame (as transport_test does).
extern "C" const char* __tsan_default_suppressions() { return "race:libzmq.so\n"; }
#endif

namespace iashim::security {
namespace {

// Sends "hello" from a DEALER with `keys` to a CURVE ROUTER and says whether
// it arrived within `wait_ms`.
bool Delivered(const KeyPair& server, const ClientKeys& keys, int wait_ms) {
  zmq::context_t context(1);
  zmq::socket_t router(context, zmq::socket_type::router);
  zmq::socket_t dealer(context, zmq::socket_type::dealer);
  router.set(zmq::sockopt::linger, 0);
  dealer.set(zmq::sockopt::linger, 0);
  std::string error;
  EXPECT_TRUE(ApplyServerKey(router.handle(), server.secret_key, &error)) << error;
  EXPECT_TRUE(ApplyClientKeys(dealer.handle(), keys, &error)) << error;
  router.bind("tcp://127.0.0.1:*");
  dealer.connect(router.get(zmq::sockopt::last_endpoint));
  dealer.send(zmq::str_buffer("hello"), zmq::send_flags::none);
  zmq::pollitem_t items[] = {{router.handle(), 0, ZMQ_POLLIN, 0}};
  zmq::poll(items, 1, std::chrono::milliseconds(wait_ms));
  if ((items[0].revents & ZMQ_POLLIN) == 0) return false;
  zmq::message_t identity, body;
  EXPECT_TRUE(router.recv(identity).has_value());
  EXPECT_TRUE(router.recv(body).has_value());
  return body.to_string() == "hello";
}

TEST(CurveSocket, TheRightServerKeyConnects) {
  KeyPair server;
  std::string error;
  ASSERT_TRUE(NewKeyPair(&server, &error)) << error;
  EXPECT_TRUE(Delivered(server, ClientKeys{server.public_key, "", ""}, 10'000));
}

TEST(CurveSocket, AGivenClientPairConnects) {
  KeyPair server, client;
  std::string error;
  ASSERT_TRUE(NewKeyPair(&server, &error) && NewKeyPair(&client, &error)) << error;
  EXPECT_TRUE(Delivered(
      server, ClientKeys{server.public_key, client.public_key, client.secret_key}, 10'000));
}

TEST(CurveSocket, AWrongServerKeyGetsNothingThrough) {
  KeyPair server, other;
  std::string error;
  ASSERT_TRUE(NewKeyPair(&server, &error) && NewKeyPair(&other, &error)) << error;
  EXPECT_FALSE(Delivered(server, ClientKeys{other.public_key, "", ""}, 500));
}

TEST(CurveSocket, PlainTextClientGetsNothingThrough) {
  KeyPair server;
  std::string error;
  ASSERT_TRUE(NewKeyPair(&server, &error)) << error;
  EXPECT_FALSE(Delivered(server, ClientKeys{}, 500));
}

}  // namespace
}  // namespace iashim::security
