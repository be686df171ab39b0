// The ZAP handler with real CURVE handshakes: every client key is let in, and
// only messages from an --admin-key client carry the admin mark.
#include "coordinator/daemon/zap_handler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>

#include "common/security/curve.h"
#include "common/security/curve_socket.h"

#if defined(IASHIM_SANITIZE_THREAD)
// libzmq is not built with TSan: messages pass between this thread and
// ZeroMQ's I/O thread through libzmq's own lock-free pipes, which TSan cannot
// see. Suppress only reports with a libzmq frame (as transport_test does).
extern "C" const char* __tsan_default_suppressions() { return "race:libzmq.so\n"; }
#endif

namespace iashim::daemon {
namespace {

class ZapHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(security::NewKeyPair(&server_, &error)) << error;
    ASSERT_TRUE(security::NewKeyPair(&admin_, &error)) << error;
    absl::StatusOr<std::unique_ptr<ZapHandler>> zap =
        ZapHandler::Start(context_, {admin_.public_key});
    ASSERT_TRUE(zap.ok()) << zap.status();
    zap_ = std::move(*zap);
    router_.set(zmq::sockopt::linger, 0);
    ASSERT_TRUE(security::ApplyServerKey(router_.handle(), server_.secret_key, &error)) << error;
    router_.bind("tcp://127.0.0.1:*");
    endpoint_ = router_.get(zmq::sockopt::last_endpoint);
  }

  // Sends "hi" with `keys` and returns whether the server saw it as from the
  // admin; nullopt if nothing arrived in 10 s (or 0.5 s when `expect_none`).
  std::optional<bool> SendAndCheck(const security::ClientKeys& keys, bool expect_none = false) {
    zmq::socket_t dealer(context_, zmq::socket_type::dealer);
    dealer.set(zmq::sockopt::linger, 0);
    std::string error;
    EXPECT_TRUE(security::ApplyClientKeys(dealer.handle(), keys, &error)) << error;
    dealer.connect(endpoint_);
    dealer.send(zmq::str_buffer("hi"), zmq::send_flags::none);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(expect_none ? 500 : 10'000);
    while (std::chrono::steady_clock::now() < deadline) {
      zmq::pollitem_t items[] = {{router_.handle(), 0, ZMQ_POLLIN, 0},
                                 {zap_->socket().handle(), 0, ZMQ_POLLIN, 0}};
      zmq::poll(items, 2, std::chrono::milliseconds(20));
      zap_->HandlePending();
      zmq::message_t identity, body;
      if (router_.recv(identity, zmq::recv_flags::dontwait)) {
        EXPECT_TRUE(router_.recv(body).has_value());
        return FromAdmin(body);
      }
    }
    return std::nullopt;
  }

  zmq::context_t context_{1};
  zmq::socket_t router_{context_, zmq::socket_type::router};
  std::unique_ptr<ZapHandler> zap_;
  security::KeyPair server_, admin_;
  std::string endpoint_;
};

TEST_F(ZapHandlerTest, AThrowawayKeyIsAcceptedButNotAdmin) {
  EXPECT_EQ(SendAndCheck({server_.public_key, "", ""}), std::optional<bool>(false));
  EXPECT_EQ(zap_->accepted(), 1u);
  EXPECT_EQ(zap_->admins(), 0u);
}

TEST_F(ZapHandlerTest, TheAdminKeyIsAdmin) {
  EXPECT_EQ(SendAndCheck({server_.public_key, admin_.public_key, admin_.secret_key}),
            std::optional<bool>(true));
  EXPECT_EQ(zap_->admins(), 1u);
}

TEST_F(ZapHandlerTest, AnotherFixedKeyIsNotAdmin) {
  security::KeyPair other;
  std::string error;
  ASSERT_TRUE(security::NewKeyPair(&other, &error)) << error;
  EXPECT_EQ(SendAndCheck({server_.public_key, other.public_key, other.secret_key}),
            std::optional<bool>(false));
}

TEST_F(ZapHandlerTest, TheWrongServerKeyGetsNothingThrough) {
  security::KeyPair other;
  std::string error;
  ASSERT_TRUE(security::NewKeyPair(&other, &error)) << error;
  EXPECT_EQ(SendAndCheck({other.public_key, admin_.public_key, admin_.secret_key}, true),
            std::nullopt);
}

TEST(ZapHandler, RejectsAnAdminKeyThatIsNotZ85) {
  zmq::context_t context(1);
  absl::StatusOr<std::unique_ptr<ZapHandler>> zap = ZapHandler::Start(context, {"short"});
  ASSERT_FALSE(zap.ok());
  EXPECT_EQ(zap.status().message(), "admin key 'short' has 5 characters, a key has 40");
}

}  // namespace
}  // namespace iashim::daemon
