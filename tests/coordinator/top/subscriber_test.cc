#include "coordinator/top/subscriber.h"

#include <chrono>
#include <optional>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "common/security/curve.h"
#include "gtest/gtest.h"
#include "tests/coordinator/top/snapshot_encoder.h"

#if defined(IASHIM_SANITIZE_THREAD)
// libzmq is not built with TSan: messages pass between this thread and
// ZeroMQ's I/O thread through libzmq's own lock-free pipes, which TSan cannot
// see. Suppress only reports with a libzmq frame (as transport_test does).
extern "C" const char* __tsan_default_suppressions() { return "race:libzmq.so\n"; }
#endif

namespace iashim::top {
namespace {

using test_support::EncodeHello;
using test_support::EncodeSnapshot;
using test_support::SampleCluster;

void Send(zmq::socket_t& pub, const std::vector<uint8_t>& bytes) {
  pub.send(zmq::const_buffer(bytes.data(), bytes.size()), zmq::send_flags::none);
}

// Drains until a snapshot with `seq` arrives or a generous deadline passes (a
// loaded machine delivers late, never early). PUB/SUB keeps order, so all
// sent before it have arrived by then.
std::optional<ClusterView> DrainUntilSeq(Subscriber& sub, uint64_t seq) {
  std::optional<ClusterView> newest;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!(newest && newest->seq == seq) && std::chrono::steady_clock::now() < deadline) {
    zmq::pollitem_t item = {static_cast<void*>(sub.socket()), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(50));
    if (auto v = sub.Drain()) newest = std::move(v);
  }
  return newest;
}

class SubscriberTest : public ::testing::Test {
 protected:
  SubscriberTest() : pub_(context_, zmq::socket_type::pub) {
    pub_.bind("inproc://snapshots");
    sub_.emplace(context_, "inproc://snapshots");
    // A subscription reaches the publisher asynchronously; until it has,
    // PUB drops. Publish until the first snapshot gets through.
    ClusterView hello_view;
    hello_view.seq = 1;
    const std::vector<uint8_t> first = EncodeSnapshot(hello_view);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (sub_->counts().snapshots == 0 && std::chrono::steady_clock::now() < deadline) {
      Send(pub_, first);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      sub_->Drain();
    }
    EXPECT_GT(sub_->counts().snapshots, 0u);
    base_ = sub_->counts();
  }

  zmq::context_t context_{1};
  zmq::socket_t pub_;
  std::optional<Subscriber> sub_;
  SubscriberCounts base_;
};

TEST_F(SubscriberTest, KeepsTheNewestAndCountsTheRest) {
  ClusterView older = SampleCluster();
  older.seq = 100;
  ClusterView newer = SampleCluster();
  newer.seq = 101;
  Send(pub_, EncodeSnapshot(older));
  const char junk[] = "junk";
  pub_.send(zmq::const_buffer(junk, sizeof(junk)), zmq::send_flags::none);
  Send(pub_, EncodeSnapshot(SampleCluster(), /*version=*/7));
  Send(pub_, EncodeHello());
  Send(pub_, EncodeSnapshot(newer));

  const std::optional<ClusterView> got = DrainUntilSeq(*sub_, 101);
  const SubscriberCounts& c = sub_->counts();
  // At least: a late copy of the fixture's first snapshot may still arrive.
  EXPECT_GE(c.received - base_.received, 5u);
  EXPECT_GE(c.snapshots - base_.snapshots, 2u);
  EXPECT_EQ(c.invalid, 1u);
  EXPECT_EQ(c.wrong_version, 1u);
  EXPECT_EQ(c.not_snapshot, 1u);
  EXPECT_EQ(c.dropped(), 3u);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->seq, 101u);
  ASSERT_EQ(got->gpus.size(), 1u);
  EXPECT_EQ(got->gpus[0].jobs.size(), 3u);
}

TEST_F(SubscriberTest, NothingQueuedGivesNothing) {
  EXPECT_FALSE(sub_->Drain().has_value());
  EXPECT_EQ(sub_->counts().received, base_.received);
}

TEST(Subscriber, RejectsAnEndpointZeroMqCannotUse) {
  zmq::context_t context(1);
  EXPECT_THROW(Subscriber(context, "nonsense://x"), zmq::error_t);
}

// A CURVE publisher (as the coordinator's PUB with --curve-secret-key): a
// subscriber with its public key gets snapshots, one with another key none.
uint64_t SnapshotsThroughCurve(const security::KeyPair& server, const std::string& key_given,
                               int wait_ms) {
  zmq::context_t context(1);
  zmq::socket_t pub(context, zmq::socket_type::pub);
  pub.set(zmq::sockopt::linger, 0);
  std::string error;
  EXPECT_TRUE(security::ApplyServerKey(pub.handle(), server.secret_key, &error)) << error;
  pub.bind("tcp://127.0.0.1:*");
  Subscriber sub(context, pub.get(zmq::sockopt::last_endpoint),
                 security::ClientKeys{key_given, "", ""});
  ClusterView view;
  view.seq = 1;
  const std::vector<uint8_t> bytes = EncodeSnapshot(view);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (sub.counts().snapshots == 0 && std::chrono::steady_clock::now() < deadline) {
    Send(pub, bytes);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    sub.Drain();
  }
  return sub.counts().received;
}

TEST(CurveSubscriber, GetsSnapshotsWithTheCoordinatorsKey) {
  security::KeyPair server;
  std::string error;
  ASSERT_TRUE(security::NewKeyPair(&server, &error)) << error;
  EXPECT_GT(SnapshotsThroughCurve(server, server.public_key, 20'000), 0u);
}

TEST(CurveSubscriber, GetsNothingWithAnotherKey) {
  security::KeyPair server, other;
  std::string error;
  ASSERT_TRUE(security::NewKeyPair(&server, &error) && security::NewKeyPair(&other, &error))
      << error;
  EXPECT_EQ(SnapshotsThroughCurve(server, other.public_key, 500), 0u);
}

}  // namespace
}  // namespace iashim::top
