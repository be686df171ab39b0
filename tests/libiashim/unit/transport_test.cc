// Transport against a real ZeroMQ ROUTER (the coordinator's socket type) on an
// ipc:// endpoint in a private temporary directory. Every wait is a bounded
// polling loop on a condition; nothing asserts on how long delivery takes.
#include "libiashim/src/transport.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "libiashim/src/cycle_clock.h"
#include "libiashim/src/telemetry_encoder.h"

#if defined(IASHIM_SANITIZE_THREAD)
// libzmq is not built with TSan: message buffers pass between this thread and
// ZeroMQ's I/O thread through libzmq's own lock-free pipes, which TSan cannot
// see, so it reports "races" on memory libzmq allocates, copies and frees.
// Suppress only reports with a libzmq frame; races in our code still show.
extern "C" const char* __tsan_default_suppressions() { return "race:libzmq.so\n"; }
#endif

namespace iashim {
namespace {

namespace fs = std::filesystem;

// Generous: only a broken transport comes near it.
constexpr auto kDeadline = std::chrono::seconds(20);

Message Numbered(uint32_t n) {
  Message m(16, uint8_t(n));
  m[0] = uint8_t(n >> 24);
  m[1] = uint8_t(n >> 16);
  m[2] = uint8_t(n >> 8);
  m[3] = uint8_t(n);
  return m;
}

class TransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "iashim_zmq_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    endpoint_ = "ipc://" + dir_ + "/coordinator.sock";
  }
  void TearDown() override {
    router_.reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  void BindRouter() {
    router_ = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::router);
    router_->set(zmq::sockopt::linger, 0);
    router_->set(zmq::sockopt::rcvtimeo, 10);  // the polling step of every wait below
    router_->bind(endpoint_);
  }

  // One message from a dealer: its routing id and payload. False on timeout.
  bool RouterReceive(std::string* identity, Message* payload) {
    zmq::message_t id;
    if (!router_->recv(id)) return false;
    EXPECT_TRUE(id.more());
    zmq::message_t body;
    EXPECT_TRUE(router_->recv(body, zmq::recv_flags::dontwait));
    EXPECT_FALSE(body.more());
    *identity = id.to_string();
    const uint8_t* p = static_cast<const uint8_t*>(body.data());
    payload->assign(p, p + body.size());
    return true;
  }

  // Pumps `t` and drains the router until `done` holds or the deadline passes.
  bool PumpUntil(Transport& t, std::vector<Message>* received, std::string* identity,
                 const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + kDeadline;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      t.Pump();
      Message m;
      std::string id;
      if (router_ != nullptr && RouterReceive(&id, &m)) {
        if (identity != nullptr) *identity = id;
        if (received != nullptr) received->push_back(std::move(m));
      }
    }
    return true;
  }

  zmq::context_t context_{1};
  std::unique_ptr<zmq::socket_t> router_;
  std::string dir_;
  std::string endpoint_;
};

TEST_F(TransportTest, DeliversInOrder) {
  BindRouter();
  Transport t(endpoint_, 64);
  ASSERT_TRUE(t.Connect());
  constexpr uint32_t kCount = 40;
  for (uint32_t i = 0; i < kCount; ++i) t.Enqueue(Numbered(i));
  std::vector<Message> received;
  ASSERT_TRUE(PumpUntil(t, &received, nullptr, [&] { return received.size() == kCount; }))
      << "received " << received.size();
  for (uint32_t i = 0; i < kCount; ++i) EXPECT_EQ(received[i], Numbered(i)) << i;
  EXPECT_EQ(t.sent(), kCount);
  EXPECT_EQ(t.queued(), 0u);
  EXPECT_EQ(t.dropped(), 0u);
}

TEST_F(TransportTest, RealEnvelopesArriveIntact) {
  BindRouter();
  Transport t(endpoint_, 8);
  ASSERT_TRUE(t.Connect());
  HelloInfo hello;
  hello.pid = 1234;
  hello.job = "job-a";
  const std::vector<Message> sent = {EncodeHello(hello), EncodeKernelNames(1234, {{7, "k"}}),
                                     EncodeGoodbye(1234, 99, 0)};
  for (const Message& m : sent) t.Enqueue(m);
  std::vector<Message> received;
  ASSERT_TRUE(PumpUntil(t, &received, nullptr, [&] { return received.size() == sent.size(); }));
  EXPECT_EQ(received, sent);
}

// Messages enqueued between pumps keep their order with those already queued.
TEST_F(TransportTest, InterleavedEnqueueAndPumpKeepOrder) {
  BindRouter();
  Transport t(endpoint_, 1000);
  ASSERT_TRUE(t.Connect());
  std::vector<Message> received;
  for (uint32_t i = 0; i < 100; ++i) {
    t.Enqueue(Numbered(i));
    if (i % 7 == 0) t.Pump();
  }
  ASSERT_TRUE(PumpUntil(t, &received, nullptr, [&] { return received.size() == 100; }));
  for (uint32_t i = 0; i < 100; ++i) EXPECT_EQ(received[i], Numbered(i)) << i;
}

// Nobody binds the endpoint: the queue holds the newest max_queued messages
// and counts every older one as dropped.
TEST_F(TransportTest, NoPeerBoundsTheQueueAndDropsOldest) {
  Transport t("ipc://" + dir_ + "/nobody.sock", 4);
  ASSERT_TRUE(t.Connect());
  for (uint32_t i = 0; i < 10; ++i) {
    t.Enqueue(Numbered(i));
    t.Pump();
    EXPECT_LE(t.queued(), 4u);
  }
  EXPECT_EQ(t.queued(), 4u);
  EXPECT_EQ(t.dropped(), 6u);
  EXPECT_EQ(t.sent(), 0u);
  for (uint32_t i = 10; i < 1010; ++i) t.Enqueue(Numbered(i));
  EXPECT_EQ(t.queued(), 4u);
  EXPECT_EQ(t.dropped(), 1006u);
}

// When the coordinator finally appears, what was kept (the newest) goes out,
// oldest first.
TEST_F(TransportTest, KeptMessagesGoOutWhenThePeerAppears) {
  Transport t(endpoint_, 3);
  ASSERT_TRUE(t.Connect());
  for (uint32_t i = 0; i < 8; ++i) {
    t.Enqueue(Numbered(i));
    t.Pump();
  }
  ASSERT_EQ(t.dropped(), 5u);
  BindRouter();
  std::vector<Message> received;
  ASSERT_TRUE(PumpUntil(t, &received, nullptr, [&] { return received.size() == 3; }));
  EXPECT_EQ(received[0], Numbered(5));
  EXPECT_EQ(received[1], Numbered(6));
  EXPECT_EQ(received[2], Numbered(7));
  EXPECT_EQ(t.dropped(), 5u);
  EXPECT_EQ(t.sent(), 3u);
}

TEST_F(TransportTest, ZeroMaxQueuedKeepsOne) {
  Transport t("ipc://" + dir_ + "/nobody.sock", 0);
  ASSERT_TRUE(t.Connect());
  for (uint32_t i = 0; i < 3; ++i) t.Enqueue(Numbered(i));
  EXPECT_EQ(t.queued(), 1u);
  EXPECT_EQ(t.dropped(), 2u);
}

// Without a socket (never connected, or Connect failed) every message is
// dropped at once and counted; Pump and Drain do nothing.
TEST_F(TransportTest, NotConnectedDropsEverything) {
  Transport t(endpoint_, 8);
  for (uint32_t i = 0; i < 5; ++i) t.Enqueue(Numbered(i));
  t.Pump();
  t.Drain(1000);
  EXPECT_EQ(t.queued(), 0u);
  EXPECT_EQ(t.dropped(), 5u);
  EXPECT_EQ(t.sent(), 0u);
}

TEST_F(TransportTest, ConnectFailureDropsEverything) {
  Transport t("bogus://nowhere", 8);
  EXPECT_FALSE(t.Connect());  // logs one warning
  for (uint32_t i = 0; i < 3; ++i) t.Enqueue(Numbered(i));
  t.Pump();
  EXPECT_EQ(t.queued(), 0u);
  EXPECT_EQ(t.dropped(), 3u);
}

// At exit: Drain sends what is queued, then closes the socket with a linger so
// what ZeroMQ holds still reaches the coordinator.
TEST_F(TransportTest, DrainSendsEverythingThenCloses) {
  BindRouter();
  Transport t(endpoint_, 64);
  ASSERT_TRUE(t.Connect());
  for (uint32_t i = 0; i < 10; ++i) t.Enqueue(Numbered(i));
  t.Drain(20'000);  // returns as soon as the queue is empty
  EXPECT_EQ(t.queued(), 0u);
  EXPECT_EQ(t.sent(), 10u);
  EXPECT_EQ(t.dropped(), 0u);
  std::vector<Message> received;
  ASSERT_TRUE(PumpUntil(t, &received, nullptr, [&] { return received.size() == 10; }));
  for (uint32_t i = 0; i < 10; ++i) EXPECT_EQ(received[i], Numbered(i)) << i;
  // The socket is closed: later messages are dropped, not queued.
  t.Enqueue(Numbered(10));
  EXPECT_EQ(t.queued(), 0u);
  EXPECT_EQ(t.dropped(), 1u);
}

// Nobody to send to: what is still queued when Drain gives up counts as dropped.
TEST_F(TransportTest, DrainWithoutPeerCountsTheRestAsDropped) {
  Transport t("ipc://" + dir_ + "/nobody.sock", 8);
  ASSERT_TRUE(t.Connect());
  for (uint32_t i = 0; i < 12; ++i) t.Enqueue(Numbered(i));
  ASSERT_EQ(t.dropped(), 4u);
  t.Drain(20);
  EXPECT_EQ(t.queued(), 0u);
  EXPECT_EQ(t.sent(), 0u);
  EXPECT_EQ(t.dropped(), 12u);
}

// At exit the shim waits for its last messages only where a coordinator has
// taken one: with none there, a process that has tried for 250 ms exits at
// once instead of 200 ms late; one younger than that may still be connecting.
TEST_F(TransportTest, TheExitWaitsOnlyForACoordinatorThatWasThere) {
  Transport nobody("ipc://" + dir_ + "/nobody.sock", 8);
  EXPECT_EQ(nobody.ExitDrainMs(200, MonotonicNs()), 0);  // no socket yet
  ASSERT_TRUE(nobody.Connect());
  nobody.Enqueue(Numbered(0));
  nobody.Pump();
  const uint64_t now = MonotonicNs();
  EXPECT_EQ(nobody.ExitDrainMs(200, now), 200);
  EXPECT_EQ(nobody.ExitDrainMs(200, now + Transport::kConnectGraceNs), 0);

  BindRouter();
  Transport t(endpoint_, 8);
  ASSERT_TRUE(t.Connect());
  t.Enqueue(Numbered(1));
  std::vector<Message> received;
  ASSERT_TRUE(PumpUntil(t, &received, nullptr, [&] { return received.size() == 1; }));
  EXPECT_EQ(t.ExitDrainMs(200, MonotonicNs() + 10 * Transport::kConnectGraceNs), 200);
}

// The coordinator sends nothing the shim understands yet: garbage counts as
// invalid, a well-formed Envelope as ignored; neither disturbs sending.
TEST_F(TransportTest, IncomingMessagesAreVerifiedAndCounted) {
  BindRouter();
  Transport t(endpoint_, 8);
  ASSERT_TRUE(t.Connect());
  t.Enqueue(Numbered(1));
  std::vector<Message> received;
  std::string identity;
  ASSERT_TRUE(PumpUntil(t, &received, &identity, [&] { return received.size() == 1; }));
  ASSERT_FALSE(identity.empty());

  auto send_to_dealer = [&](const void* data, size_t size) {
    ASSERT_TRUE(router_->send(zmq::buffer(identity), zmq::send_flags::sndmore));
    ASSERT_TRUE(router_->send(zmq::const_buffer(data, size), zmq::send_flags::none));
  };
  const std::string garbage = "definitely not a flatbuffer";
  send_to_dealer(garbage.data(), garbage.size());
  send_to_dealer("", 0);
  const Message valid = EncodeGoodbye(1, 2, 3);
  send_to_dealer(valid.data(), valid.size());
  ASSERT_TRUE(PumpUntil(t, nullptr, nullptr, [&] {
    return t.received_invalid() + t.received_ignored() == 3;
  }));
  EXPECT_EQ(t.received_invalid(), 2u);
  EXPECT_EQ(t.received_ignored(), 1u);

  // Sending still works afterwards.
  t.Enqueue(Numbered(2));
  received.clear();
  ASSERT_TRUE(PumpUntil(t, &received, nullptr, [&] { return received.size() == 1; }));
  EXPECT_EQ(received[0], Numbered(2));
}

}  // namespace
}  // namespace iashim
