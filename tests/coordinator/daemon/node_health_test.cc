// Lost nodes: a node whose every job fell silent without a Goodbye is shown
// lost, with its jobs, while the other nodes' jobs run on; it is back once a
// shim on it is heard. Driven through Coordinator::OnMessage and OnTick.
#include "coordinator/daemon/node_health.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "coordinator/daemon/coordinator.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/daemon/daemon_messages.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
using testing::Bytes;
using ::testing::Contains;
using ::testing::ElementsAre;
using testing::Goodbye;
using ::testing::HasSubstr;
using testing::Hello;
using testing::kSecond;
using testing::kTick;
using testing::kUnix;
using testing::LastPlaceReply;
using testing::Place;
using testing::ReceivedMessage;
using ::testing::StartsWith;
using testing::Telemetry;

TEST(NodeHealth, LostOnlyWhenNoJobOfTheNodeIsLeftAndBackWhenHeard) {
  NodeHealth nodes;
  EXPECT_FALSE(nodes.LostForS("n1", 0).has_value());
  nodes.JobWentSilent("n1", false);  // never heard: nothing to lose
  EXPECT_FALSE(nodes.LostForS("n1", 0).has_value());
  nodes.Heard("n1", 1 * kSecond);
  nodes.JobWentSilent("n1", /*others_connected=*/true);
  EXPECT_FALSE(nodes.LostForS("n1", 5 * kSecond).has_value());
  nodes.JobWentSilent("n1", false);
  ASSERT_TRUE(nodes.LostForS("n1", 5 * kSecond).has_value());
  EXPECT_DOUBLE_EQ(*nodes.LostForS("n1", 5 * kSecond), 4.0);  // since last heard
  EXPECT_EQ(nodes.lost_count(), 1u);
  nodes.Heard("n1", 6 * kSecond);
  EXPECT_FALSE(nodes.LostForS("n1", 7 * kSecond).has_value());
  EXPECT_EQ(nodes.lost_count(), 0u);
}

class LostNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    c_ = std::make_unique<Coordinator>(DaemonOptions{}, testing::TwoNodes(), nullptr, nullptr, 0);
    Start("a", "node1", "shim-a", 10);
    Start("b", "node2", "shim-b", 20);
  }
  void Start(const std::string& job, const std::string& host, const std::string& shim, int pid,
             w::Priority priority = w::Priority::Guaranteed) {
    out_.clear();
    c_->OnMessage("cli", Bytes(Place({.job = job, .priority = priority, .host = host})), kSecond,
                  kUnix, &out_);
    const testing::PlaceResult placed = LastPlaceReply(out_);
    ASSERT_TRUE(placed.ok) << placed.error;
    ASSERT_EQ(placed.host, host);
    c_->OnMessage(shim,
                  Bytes(Hello({.pid = pid, .host = host, .job = job, .priority = priority,
                               .token = placed.token})),
                  kSecond, kUnix, &out_);
    tokens_.push_back(placed.token);
  }
  // Runs the clock to `until`, `shims` sending telemetry every window.
  void Run(int64_t until, const std::vector<std::string>& shims) {
    for (; t_ < until; t_ += kTick) {
      for (const std::string& shim : shims) {
        c_->OnMessage(shim, Bytes(Telemetry({.seq = seq_, .start_ns = t_})), t_, kUnix + t_, &out_);
      }
      ++seq_;
      c_->OnTick(t_, kUnix + t_, &out_);
    }
  }
  const w::StateSnapshot* Snapshot() {
    snapshot_bytes_ = c_->EncodeSnapshot(t_, kUnix + t_);
    snapshot_ = std::make_unique<ReceivedMessage>(snapshot_bytes_);
    return snapshot_->envelope()->payload_as_StateSnapshot();
  }
  const w::GpuState* Gpu(const w::StateSnapshot* s, const std::string& host) {
    for (const w::GpuState* g : *s->gpus()) {
      if (g->host()->str() == host && g->id() == 0) return g;
    }
    return nullptr;
  }

  std::unique_ptr<Coordinator> c_;
  std::vector<Outgoing> out_;
  std::vector<std::string> tokens_;
  int64_t t_ = kSecond;
  uint64_t seq_ = 0;
  std::string snapshot_bytes_;
  std::unique_ptr<ReceivedMessage> snapshot_;
};

TEST_F(LostNodeTest, ANodeWhoseJobsFallSilentIsLostAndItsJobsWithIt) {
  Run(3 * kSecond, {"shim-a", "shim-b"});
  // node2 stops abruptly: its shim says nothing more, not even Goodbye.
  const int64_t stopped = t_;
  Run(stopped + 5 * kSecond, {"shim-a"});
  const w::StateSnapshot* s = Snapshot();
  const w::GpuState* node2 = Gpu(s, "node2");
  const w::GpuState* node1 = Gpu(s, "node1");
  ASSERT_NE(node2, nullptr);
  ASSERT_NE(node1, nullptr);
  // Lost once the heartbeat timeout (3 s) passed: shown with the time since last heard.
  EXPECT_NEAR(node2->node_lost_s(), 5.0, 0.2);
  EXPECT_LT(node1->node_lost_s(), 0);
  ASSERT_EQ(node2->jobs()->size(), 1u);
  EXPECT_TRUE(node2->jobs()->Get(0)->lost());
  EXPECT_FALSE(node2->jobs()->Get(0)->connected());
  EXPECT_TRUE(node1->jobs()->Get(0)->connected());
  EXPECT_FALSE(node1->jobs()->Get(0)->lost());
  EXPECT_THAT(c_->MetricsText(t_), HasSubstr("iashim_nodes_lost 1"));

  // The node comes back and its job's process says Hello again: alive.
  c_->OnMessage("shim-b2", Bytes(Hello({.pid = 21, .host = "node2", .job = "b", .token = tokens_[1]})),
                t_, kUnix + t_, &out_);
  Run(t_ + kSecond, {"shim-a", "shim-b2"});
  s = Snapshot();
  EXPECT_LT(Gpu(s, "node2")->node_lost_s(), 0);
  EXPECT_FALSE(Gpu(s, "node2")->jobs()->Get(0)->lost());
  EXPECT_THAT(c_->MetricsText(t_), HasSubstr("iashim_nodes_lost 0"));
}

// The daemon's log tells the same story, one line per change, with the
// node and the time it allowed.
TEST_F(LostNodeTest, TheEventLogSaysWhatWasPlacedLostAndHeardAgain) {
  std::vector<std::string> events = c_->TakeEvents(kUnix);
  EXPECT_THAT(events, Contains(StartsWith("placed a (guaranteed) on node1:0")));
  EXPECT_THAT(events, Contains("a connected: pid 10 on node1"));
  Run(3 * kSecond, {"shim-a", "shim-b"});
  Run(t_ + 5 * kSecond, {"shim-a"});
  EXPECT_THAT(c_->TakeEvents(kUnix),
              ElementsAre("b lost: not heard from on node2 for 3 s, and no Goodbye",
                          "node node2 lost: every job on it fell silent"));
  c_->OnMessage("shim-b2",
                Bytes(Hello({.pid = 21, .host = "node2", .job = "b", .token = tokens_[1]})), t_,
                kUnix + t_, &out_);
  EXPECT_THAT(c_->TakeEvents(kUnix),
              ElementsAre("b heard again: pid 21 on node2", "node node2 heard again"));
  c_->OnMessage("shim-b2", Bytes(Goodbye()), t_, kUnix + t_, &out_);
  EXPECT_THAT(c_->TakeEvents(kUnix), ElementsAre("b ended (its last process said Goodbye)"));
}

TEST_F(LostNodeTest, AJobThatEndsWithAGoodbyeLosesNothing) {
  Run(2 * kSecond, {"shim-a", "shim-b"});
  c_->OnMessage("shim-b", Bytes(Goodbye()), t_, kUnix + t_, &out_);
  Run(t_ + 5 * kSecond, {"shim-a"});
  EXPECT_LT(Gpu(Snapshot(), "node2")->node_lost_s(), 0);
}

TEST_F(LostNodeTest, OneSilentJobOfSeveralLosesNotItsNode) {
  Start("b2", "node2", "shim-b2", 22, w::Priority::Opportunistic);
  Run(2 * kSecond, {"shim-a", "shim-b", "shim-b2"});
  Run(t_ + 5 * kSecond, {"shim-a", "shim-b2"});  // b's process froze; b2 runs on
  const w::StateSnapshot* s = Snapshot();
  EXPECT_LT(Gpu(s, "node2")->node_lost_s(), 0);
  bool b_lost = false;
  for (const w::GpuState* g : *s->gpus()) {
    for (const w::JobState* j : *g->jobs()) {
      if (j->job()->str() == "b") b_lost = j->lost();
    }
  }
  EXPECT_TRUE(b_lost);
}

// job_submit.lua binds a job to the node its dry run names: a lost node
// would hold the job pending until Slurm marks the node down and for as long
// as it stays down. A dry run that names no node is never sent to one.
TEST_F(LostNodeTest, ADryRunIsNeverSentToALostNode) {
  // Both of node1's GPUs hold a guaranteed job; node2's GPU an opportunistic
  // one: a guaranteed newcomer can only go to node2.
  c_ = std::make_unique<Coordinator>(DaemonOptions{}, testing::TwoNodes(), nullptr, nullptr, 0);
  Start("a", "node1", "shim-a", 10);
  Start("a2", "node1", "shim-a2", 11);
  Start("b", "node2", "shim-b", 20, w::Priority::Opportunistic);
  auto dry_run = [&](const std::string& host) {
    out_.clear();
    c_->OnMessage("slurmctld", Bytes(Place({.job = "new", .host = host, .dry_run = true})), t_,
                  kUnix + t_, &out_);
    return LastPlaceReply(out_);
  };
  Run(3 * kSecond, {"shim-a", "shim-a2", "shim-b"});
  testing::PlaceResult answer = dry_run("");
  ASSERT_TRUE(answer.ok) << answer.error;
  EXPECT_EQ(answer.host, "node2");
  // Until its hold on node2's GPU expires (--reservation-ttl-s).
  Run(t_ + int64_t(DaemonOptions{}.reservation_ttl_s + 1) * kSecond, {"shim-a", "shim-a2", "shim-b"});

  Run(t_ + 5 * kSecond, {"shim-a", "shim-a2"});  // node2 stops abruptly
  ASSERT_EQ(Snapshot()->gpus()->size(), 3u);
  ASSERT_GT(Gpu(Snapshot(), "node2")->node_lost_s(), 0);
  answer = dry_run("");
  EXPECT_FALSE(answer.ok);
  EXPECT_TRUE(answer.queued);
  EXPECT_THAT(answer.error, HasSubstr("left out, not heard from: node2"));
  // A question about node2 itself is answered as before...
  answer = dry_run("node2");
  EXPECT_TRUE(answer.ok) << answer.error;
  EXPECT_EQ(answer.host, "node2");
  // ...and so is a job Slurm started there: its request comes from the node.
  out_.clear();
  c_->OnMessage("spank", Bytes(Place({.job = "started", .host = "node2"})), t_, kUnix + t_, &out_);
  answer = LastPlaceReply(out_);
  EXPECT_TRUE(answer.ok) << answer.error;
  EXPECT_EQ(answer.host, "node2");
}

}  // namespace
}  // namespace iashim::daemon
