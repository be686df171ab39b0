// Who may do what (issue 7): a shim reports for, and gets budgets for, only
// the job whose token it holds; drain, undrain and priority changes need a
// sender with the admin key. The coordinator is driven directly, with a real
// StateStore in a temporary directory where a restart matters.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/text/names.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/policy/simple_placement.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/daemon/daemon_messages.h"
#include "tests/coordinator/daemon/test_state_dir.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
using testing::Admin;
using testing::Bytes;
using testing::Goodbye;
using testing::Gpus;
using testing::Hello;
using testing::KernelNames;
using testing::kSecond;
using testing::kTick;
using testing::kUnix;
using testing::LastPlaceReply;
using testing::Place;
using testing::PlaceResult;
using testing::ReceivedMessage;
using testing::Telemetry;

const Sender kAdmin{"admin-tool", true};
const Sender kTool{"plain-tool", false};

// Everything in `out` addressed to `identity`.
std::vector<ReceivedMessage> To(const std::vector<Outgoing>& out, std::string_view identity) {
  std::vector<ReceivedMessage> found;
  for (const Outgoing& o : out) {
    if (o.identity == identity) found.emplace_back(o.bytes);
  }
  return found;
}

// The kind of the last Advice to `identity` in `out`, with its text.
std::optional<std::pair<w::AdviceKind, std::string>> LastAdvice(const std::vector<Outgoing>& out,
                                                                 std::string_view identity) {
  std::optional<std::pair<w::AdviceKind, std::string>> last;
  for (const ReceivedMessage& m : To(out, identity)) {
    const w::Advice* a = m.envelope() ? m.envelope()->payload_as_Advice() : nullptr;
    if (a != nullptr) last = {{a->kind(), a->text() ? a->text()->str() : ""}};
  }
  return last;
}

int BudgetsTo(const std::vector<Outgoing>& out, std::string_view identity) {
  int n = 0;
  for (const ReceivedMessage& m : To(out, identity)) {
    n += m.envelope() && m.envelope()->payload_as_Budget();
  }
  return n;
}

class CoordinatorAuthorizationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestStateDir("iashim-authz-test");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Coordinator> Make(state::StateStore* store, int gpus = 1, int64_t now = 0) {
    return std::make_unique<Coordinator>(DaemonOptions{}, Gpus(gpus), store,
                                         std::make_unique<policy::SimplePlacement>(), now);
  }
  std::unique_ptr<state::StateStore> OpenStore() {
    auto s = state::StateStore::Open(dir_.string());
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }
  // The AdminReply (or ErrorReply) to `from` for `request`.
  std::pair<bool, std::string> Ask(Coordinator& c, const Sender& from, const std::string& request) {
    out_.clear();
    c.OnMessage(from, Bytes(request), kSecond, kUnix, &out_);
    EXPECT_EQ(out_.size(), 1u);
    if (out_.empty()) return {false, ""};
    EXPECT_EQ(out_[0].identity, from.identity);
    const ReceivedMessage m(out_[0].bytes);
    if (m.envelope() == nullptr) return {false, "undecodable"};
    if (const w::ErrorReply* e = m.envelope()->payload_as_ErrorReply()) {
      return {false, "ErrorReply: " + e->text()->str()};
    }
    const w::AdminReply* r = m.envelope()->payload_as_AdminReply();
    EXPECT_NE(r, nullptr);
    if (r == nullptr) return {false, ""};
    return {r->ok(), r->ok() ? r->text()->str() : r->error()->str()};
  }

  std::filesystem::path dir_;
  std::vector<Outgoing> out_;
};

TEST_F(CoordinatorAuthorizationTest, AShimWithoutTheTokenGetsNeitherTheJobNorItsBudgets) {
  auto c = Make(nullptr);
  c->OnMessage("cli", Bytes(Place({.job = "guard"})), 0, kUnix, &out_);
  const std::string guard_token = LastPlaceReply(out_).token;
  c->OnMessage("cli", Bytes(Place({.job = "filler", .priority = w::Priority::Opportunistic})), 0,
               kUnix, &out_);
  const std::string filler_token = LastPlaceReply(out_).token;
  ASSERT_TRUE(ValidJobToken(guard_token)) << guard_token;
  ASSERT_TRUE(ValidJobToken(filler_token)) << filler_token;
  EXPECT_NE(guard_token, filler_token);

  // Before the job's own shim connects: no token, then a wrong one.
  out_.clear();
  c->OnMessage("impostor", Bytes(Hello({.pid = 300, .job = "filler"})), 0, kUnix, &out_);
  ASSERT_TRUE(LastAdvice(out_, "impostor"));
  EXPECT_EQ(LastAdvice(out_, "impostor")->first, w::AdviceKind::Refused);
  EXPECT_NE(LastAdvice(out_, "impostor")->second.find("token"), std::string::npos);
  c->OnMessage("impostor", Bytes(Hello({.pid = 300, .job = "filler", .token = guard_token})), 0,
               kUnix, &out_);
  EXPECT_EQ(LastAdvice(out_, "impostor")->first, w::AdviceKind::Refused);
  EXPECT_FALSE(c->jobs().at("filler").connected);
  EXPECT_EQ(c->counters().refused_tokens, 2u);

  // The guaranteed job alone (its baseline), then slowed by the filler; the
  // impostor reports fast iterations for "filler" all along.
  c->OnMessage("shim-g", Bytes(Hello({.pid = 100, .job = "guard", .token = guard_token})), 0, kUnix,
               &out_);
  int64_t t = 0;
  uint64_t seq = 0;
  for (int i = 0; i < 30; ++i, t += kTick) {
    c->OnMessage("shim-g", Bytes(Telemetry({.seq = seq++, .start_ns = t, .iteration_ms = 100})), t,
                 kUnix + t, &out_);
    c->OnTick(t, kUnix + t, &out_);
  }
  c->OnMessage("shim-f",
               Bytes(Hello({.pid = 200,
                            .job = "filler",
                            .priority = w::Priority::Opportunistic,
                            .token = filler_token})),
               t, kUnix + t, &out_);
  EXPECT_TRUE(c->jobs().at("guard").connected);
  EXPECT_TRUE(c->jobs().at("filler").connected);
  EXPECT_EQ(c->counters().refused_claims, 2u);

  // While the job's shim is connected, with a wrong token.
  c->OnMessage("impostor",
               Bytes(Hello({.pid = 300, .job = "filler", .token = std::string(32, 'a')})), t,
               kUnix + t, &out_);
  EXPECT_EQ(c->counters().refused_tokens, 3u);
  EXPECT_EQ(c->jobs().at("filler").identity, "shim-f");
  out_.clear();
  uint64_t filler_batches = 0;
  for (int i = 0; i < 100; ++i, t += kTick) {
    c->OnMessage("shim-g", Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = 150})), t,
                 kUnix + t, &out_);
    c->OnMessage("shim-f",
                 Bytes(Telemetry({.seq = seq,
                                  .start_ns = t,
                                  .iteration_ms = 50,
                                  .share = c->jobs().at("filler").sent_share})),
                 t, kUnix + t, &out_);
    ++filler_batches;
    c->OnMessage("impostor", Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = 1})), t,
                 kUnix + t, &out_);
    c->OnMessage("impostor", Bytes(KernelNames({{.kernel = 0x1234, .name = "impostor_kernel"}})), t,
                 kUnix + t, &out_);
    ++seq;
    c->OnTick(t, kUnix + t, &out_);
  }
  EXPECT_GT(BudgetsTo(out_, "shim-f"), 0);
  EXPECT_EQ(BudgetsTo(out_, "impostor"), 0);
  for (const ReceivedMessage& m : To(out_, "impostor")) {
    ASSERT_NE(m.envelope(), nullptr);
    EXPECT_NE(m.envelope()->payload_as_Advice(), nullptr);  // SendHello, never anything else
  }
  EXPECT_EQ(c->jobs().at("filler").telemetry_batches, filler_batches);
  EXPECT_GE(c->counters().unbound_telemetry, 100u);
  EXPECT_LT(c->jobs().at("filler").sent_share, 1.0);

  // The impostor's Goodbye ends nothing.
  c->OnMessage("impostor", Bytes(Goodbye()), t, kUnix + t, &out_);
  EXPECT_EQ(c->jobs().count("filler"), 1u);
  EXPECT_NE(c->MetricsText(t).find("iashim_refused_tokens_total 3"), std::string::npos);
}

TEST_F(CoordinatorAuthorizationTest, ARestartedCoordinatorStillChecksTheToken) {
  std::string token;
  {
    auto store = OpenStore();
    auto c = Make(store.get());
    c->OnMessage("cli", Bytes(Place({.job = "guard"})), kSecond, kUnix, &out_);
    token = LastPlaceReply(out_).token;
    c->OnMessage("shim-g", Bytes(Hello({.pid = 100, .job = "guard", .token = token})), kSecond,
                 kUnix, &out_);
    ASSERT_TRUE(c->jobs().at("guard").connected);
  }
  auto store = OpenStore();
  auto c = Make(store.get(), 1, 50 * kSecond);
  ASSERT_EQ(c->jobs().count("guard"), 1u);
  EXPECT_EQ(c->jobs().at("guard").token, token);
  EXPECT_FALSE(c->jobs().at("guard").connected);
  out_.clear();
  c->OnMessage("shim-x", Bytes(Hello({.pid = 100, .job = "guard"})), 50 * kSecond, kUnix, &out_);
  EXPECT_EQ(LastAdvice(out_, "shim-x")->first, w::AdviceKind::Refused);
  std::string wrong = token;
  wrong[31] = wrong[31] == '0' ? '1' : '0';
  c->OnMessage("shim-x", Bytes(Hello({.pid = 100, .job = "guard", .token = wrong})), 50 * kSecond,
               kUnix, &out_);
  EXPECT_EQ(LastAdvice(out_, "shim-x")->first, w::AdviceKind::Refused);
  EXPECT_FALSE(c->jobs().at("guard").connected);
  c->OnMessage("shim-g", Bytes(Hello({.pid = 100, .job = "guard", .token = token})), 50 * kSecond,
               kUnix, &out_);
  EXPECT_TRUE(c->jobs().at("guard").connected);
  EXPECT_EQ(c->jobs().at("guard").identity, "shim-g");
  EXPECT_EQ(c->counters().refused_tokens, 2u);
}

TEST_F(CoordinatorAuthorizationTest, AJobCreatedByAHelloGetsItsTokenAndThenNeedsIt) {
  std::string token;
  {
    auto store = OpenStore();
    auto c = Make(store.get());
    c->OnMessage("shim-a", Bytes(Hello({.pid = 100, .job = "by-hand"})), kSecond, kUnix, &out_);
    ASSERT_TRUE(LastAdvice(out_, "shim-a"));
    EXPECT_EQ(LastAdvice(out_, "shim-a")->first, w::AdviceKind::Token);
    token = LastAdvice(out_, "shim-a")->second;
    ASSERT_TRUE(ValidJobToken(token)) << token;
    // The shim's periodic Hello now carries it: accepted, and no new token.
    out_.clear();
    c->OnMessage("shim-a", Bytes(Hello({.pid = 100, .job = "by-hand", .token = token})),
                 2 * kSecond, kUnix, &out_);
    EXPECT_TRUE(out_.empty());
    // Its process went quiet: disconnected, not forgotten. Another process
    // naming the job without the token is refused all the same.
    c->OnTick(10 * kSecond, kUnix, &out_);
    ASSERT_FALSE(c->jobs().at("by-hand").connected);
    out_.clear();
    c->OnMessage("shim-b", Bytes(Hello({.pid = 200, .job = "by-hand"})), 10 * kSecond, kUnix,
                 &out_);
    EXPECT_EQ(LastAdvice(out_, "shim-b")->first, w::AdviceKind::Refused);
    EXPECT_FALSE(c->jobs().at("by-hand").connected);
  }
  // After a restart, the token it was given is still the job's.
  auto store = OpenStore();
  auto c = Make(store.get(), 1, 20 * kSecond);
  out_.clear();
  c->OnMessage("shim-b", Bytes(Hello({.pid = 200, .job = "by-hand"})), 20 * kSecond, kUnix, &out_);
  EXPECT_EQ(LastAdvice(out_, "shim-b")->first, w::AdviceKind::Refused);
  c->OnMessage("shim-a2", Bytes(Hello({.pid = 100, .job = "by-hand", .token = token})),
               20 * kSecond, kUnix, &out_);
  EXPECT_TRUE(c->jobs().at("by-hand").connected);
  EXPECT_EQ(c->jobs().at("by-hand").identity, "shim-a2");
}

TEST_F(CoordinatorAuthorizationTest, APlaceRequestCannotTakeOverAJobId) {
  auto c = Make(nullptr, 2);
  c->OnMessage("cli", Bytes(Place({.job = "train"})), kSecond, kUnix, &out_);
  const PlaceResult first = LastPlaceReply(out_);
  ASSERT_TRUE(first.ok) << first.error;
  // Placed, its shim not yet connected.
  c->OnMessage("cli", Bytes(Place({.job = "train"})), kSecond, kUnix, &out_);
  const PlaceResult again = LastPlaceReply(out_);
  EXPECT_FALSE(again.ok);
  EXPECT_FALSE(again.queued);
  EXPECT_TRUE(again.token.empty());
  EXPECT_NE(again.error.find("'train' exists"), std::string::npos) << again.error;
  EXPECT_EQ(c->jobs().at("train").token, first.token);
  // Connected.
  c->OnMessage("shim-t", Bytes(Hello({.pid = 100, .job = "train", .token = first.token})), kSecond,
               kUnix, &out_);
  c->OnMessage("cli", Bytes(Place({.job = "train", .priority = w::Priority::Opportunistic})),
               kSecond, kUnix, &out_);
  EXPECT_FALSE(LastPlaceReply(out_).ok);
  EXPECT_EQ(c->jobs().at("train").priority, policy::Priority::kGuaranteed);
  // A job its own Hello created.
  c->OnMessage("shim-h", Bytes(Hello({.pid = 200, .job = "by-hand"})), kSecond, kUnix, &out_);
  c->OnMessage("cli", Bytes(Place({.job = "by-hand"})), kSecond, kUnix, &out_);
  EXPECT_FALSE(LastPlaceReply(out_).ok);
  EXPECT_EQ(c->jobs().at("by-hand").identity, "shim-h");
}

// Since a known id cannot be placed again, a finished job must really be gone,
// from the store too, for its id to be free after a restart.
TEST_F(CoordinatorAuthorizationTest, AFinishedJobsIdIsFreeAgainAfterARestart) {
  // Longer than the small-string buffer: the id lives on the heap (an id
  // read after its job was erased was once how this failed).
  const std::string kId = "a-finished-training-job-with-a-long-id";
  {
    auto store = OpenStore();
    auto c = Make(store.get());
    c->OnMessage("cli", Bytes(Place({.job = kId})), kSecond, kUnix, &out_);
    c->OnMessage("shim-t",
                 Bytes(Hello({.pid = 100, .job = kId, .token = LastPlaceReply(out_).token})),
                 kSecond, kUnix, &out_);
    c->OnMessage("shim-t", Bytes(Goodbye()), 2 * kSecond, kUnix, &out_);
    EXPECT_EQ(c->jobs().count(kId), 0u);
    EXPECT_EQ(store->state().jobs.count(kId), 0u);
  }
  auto store = OpenStore();
  auto c = Make(store.get(), 1, 10 * kSecond);
  EXPECT_EQ(c->jobs().count(kId), 0u);
  c->OnMessage("cli", Bytes(Place({.job = kId})), 10 * kSecond, kUnix, &out_);
  EXPECT_TRUE(LastPlaceReply(out_).ok) << LastPlaceReply(out_).error;
}

TEST_F(CoordinatorAuthorizationTest, AdminActionsNeedTheAdminKey) {
  auto c = Make(nullptr, 2);
  c->OnMessage("shim-a", Bytes(Hello({.pid = 100, .job = "job-a"})), kSecond, kUnix, &out_);
  auto [ok, text] =
      Ask(*c, kTool, Admin({.action = w::AdminAction::Drain, .host = "node1", .gpu = 0}));
  EXPECT_FALSE(ok);
  EXPECT_NE(text.find("ErrorReply: `iashim drain` needs the admin key"), std::string::npos) << text;
  EXPECT_NE(text.find("iashim keygen --admin"), std::string::npos) << text;
  EXPECT_NE(text.find("--admin-key"), std::string::npos) << text;
  EXPECT_FALSE(c->drained({"node1", 0}));
  std::tie(ok, text) = Ask(*c, kTool,
                           Admin({.action = w::AdminAction::SetPriority,
                                  .job = "job-a",
                                  .priority = w::Priority::Opportunistic}));
  EXPECT_FALSE(ok);
  EXPECT_NE(text.find("`iashim priority` needs the admin key"), std::string::npos) << text;
  EXPECT_EQ(c->jobs().at("job-a").priority, policy::Priority::kGuaranteed);
  // The old entry point is a sender without the key.
  out_.clear();
  c->OnMessage("old-api", Bytes(Admin({.action = w::AdminAction::Undrain, .host = "node1"})),
               kSecond, kUnix, &out_);
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_NE(ReceivedMessage(out_[0].bytes).envelope()->payload_as_ErrorReply(), nullptr);
  EXPECT_EQ(c->counters().admin_refused, 3u);
  EXPECT_NE(c->MetricsText(kSecond).find(
                "iashim_admin_requests_total{outcome=\"refused_no_admin_key\"} 3"),
            std::string::npos);

  std::tie(ok, text) =
      Ask(*c, kAdmin, Admin({.action = w::AdminAction::Drain, .host = "node1", .gpu = 0}));
  EXPECT_TRUE(ok) << text;
  EXPECT_TRUE(c->drained({"node1", 0}));
  std::tie(ok, text) = Ask(*c, kAdmin,
                           Admin({.action = w::AdminAction::SetPriority,
                                  .job = "job-a",
                                  .priority = w::Priority::Opportunistic}));
  EXPECT_TRUE(ok) << text;
  EXPECT_EQ(c->jobs().at("job-a").priority, policy::Priority::kOpportunistic);
  EXPECT_EQ(c->counters().admin_actions, 2u);
}

TEST_F(CoordinatorAuthorizationTest, AdminRequestsNameWhatIsWrong) {
  auto c = Make(nullptr, 2);
  auto expect_error = [&](const std::string& request, const std::string& error) {
    auto [ok, text] = Ask(*c, kAdmin, request);
    EXPECT_FALSE(ok);
    EXPECT_NE(text.find(error), std::string::npos) << text;
  };
  expect_error(Admin({.action = w::AdminAction::Drain}), "drain needs a host");
  expect_error(Admin({.action = w::AdminAction::Drain, .host = "node9"}),
               "no GPU on host 'node9' (the cluster's hosts: node1)");
  expect_error(Admin({.action = w::AdminAction::Undrain, .host = "node1", .gpu = 5}),
               "host 'node1' has no GPU 5 (it has 0, 1)");
  expect_error(Admin({.action = w::AdminAction::Drain, .host = "node1", .gpu = -7}),
               "has no GPU -7");
  expect_error(Admin({.action = w::AdminAction::SetPriority}), "priority needs a job id");
  expect_error(Admin({.action = w::AdminAction::SetPriority, .job = "nobody"}), "no job 'nobody'");
  c->OnMessage("shim-a", Bytes(Hello({.pid = 100, .job = "job-a"})), kSecond, kUnix, &out_);
  expect_error(Admin({.action = w::AdminAction::SetPriority,
                      .job = "job-a",
                      .priority = static_cast<w::Priority>(7)}),
               "priority 7 is neither guaranteed (0) nor opportunistic (1)");
  expect_error(Admin({.action = static_cast<w::AdminAction>(9), .host = "node1"}),
               "unknown admin action 9");
  EXPECT_EQ(c->counters().admin_actions, 0u);
  EXPECT_FALSE(c->drained({"node1", 0}));
}

TEST_F(CoordinatorAuthorizationTest, ADrainedGpuGetsNoNewJobsAndStaysDrainedAfterARestart) {
  {
    auto store = OpenStore();
    auto c = Make(store.get(), 2);
    c->OnMessage("cli", Bytes(Place({.job = "before", .gpu = 0})), kSecond, kUnix, &out_);
    ASSERT_TRUE(LastPlaceReply(out_).ok);
    const std::string before_token = LastPlaceReply(out_).token;
    auto [ok, text] =
        Ask(*c, kAdmin, Admin({.action = w::AdminAction::Drain, .host = "node1", .gpu = 0}));
    ASSERT_TRUE(ok) << text;
    EXPECT_NE(text.find("drained node1:0"), std::string::npos) << text;
    // The job already there runs on, and its shim may still connect.
    c->OnMessage("shim-b", Bytes(Hello({.pid = 100, .job = "before", .token = before_token})),
                 kSecond, kUnix, &out_);
    EXPECT_TRUE(c->jobs().at("before").connected);
    EXPECT_EQ(c->jobs().at("before").gpu, (policy::GpuId{"node1", 0}));
    // New jobs: GPU 1 only; asked for GPU 0 by name: refused, saying why.
    c->OnMessage("cli", Bytes(Place({.job = "next", .mem_bytes = 0})), kSecond, kUnix, &out_);
    ASSERT_TRUE(LastPlaceReply(out_).ok) << LastPlaceReply(out_).error;
    EXPECT_EQ(LastPlaceReply(out_).gpu, 1);
    c->OnMessage("cli",
                 Bytes(Place({.job = "pinned",
                              .priority = w::Priority::Opportunistic,
                              .mem_bytes = 1ULL << 30,
                              .gpu = 0})),
                 kSecond, kUnix, &out_);
    EXPECT_FALSE(LastPlaceReply(out_).ok);
    EXPECT_NE(LastPlaceReply(out_).error.find("GPU node1:0 is drained"), std::string::npos);
    // Status shows it.
    const std::string snapshot = c->EncodeSnapshot(kSecond, kUnix);
    const ReceivedMessage status(snapshot);
    const w::StateSnapshot* s = status.envelope()->payload_as_StateSnapshot();
    ASSERT_NE(s, nullptr);
    ASSERT_EQ(s->gpus()->size(), 2u);
    EXPECT_TRUE(s->gpus()->Get(0)->drained());
    EXPECT_FALSE(s->gpus()->Get(1)->drained());
  }
  auto store = OpenStore();
  auto c = Make(store.get(), 2, 10 * kSecond);
  EXPECT_TRUE(c->drained({"node1", 0}));
  EXPECT_FALSE(c->drained({"node1", 1}));
  // GPU 1 holds a whole-GPU job, GPU 0 is drained: nowhere to go.
  c->OnMessage(
      "cli",
      Bytes(
          Place({.job = "later", .priority = w::Priority::Opportunistic, .mem_bytes = 1ULL << 30})),
      10 * kSecond, kUnix, &out_);
  EXPECT_FALSE(LastPlaceReply(out_).ok);
  auto [ok, text] = Ask(*c, kAdmin, Admin({.action = w::AdminAction::Undrain, .host = "node1"}));
  ASSERT_TRUE(ok) << text;
  EXPECT_FALSE(c->drained({"node1", 0}));
  c->OnMessage(
      "cli",
      Bytes(
          Place({.job = "later", .priority = w::Priority::Opportunistic, .mem_bytes = 1ULL << 30})),
      10 * kSecond, kUnix, &out_);
  ASSERT_TRUE(LastPlaceReply(out_).ok) << LastPlaceReply(out_).error;
  EXPECT_EQ(LastPlaceReply(out_).gpu, 0);
  // Draining a whole host drains each of its GPUs.
  std::tie(ok, text) = Ask(*c, kAdmin, Admin({.action = w::AdminAction::Drain, .host = "node1"}));
  ASSERT_TRUE(ok) << text;
  EXPECT_TRUE(c->drained({"node1", 0}));
  EXPECT_TRUE(c->drained({"node1", 1}));
}

// A shim started by hand next to a placed guaranteed job is guaranteed too;
// made opportunistic, the control loop throttles it; made guaranteed again,
// it is sent an unthrottled budget. Each change survives a restart.
TEST_F(CoordinatorAuthorizationTest, APriorityChangeChangesBudgetsAndSurvivesARestart) {
  std::string guard_token, other_token;
  int64_t t = 0;
  uint64_t seq = 0;
  auto run = [&](Coordinator& c, int ticks) {
    out_.clear();
    for (int i = 0; i < ticks; ++i, t += kTick, ++seq) {
      c.OnMessage("shim-g", Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = 150})), t,
                  kUnix + t, &out_);
      c.OnMessage("shim-o",
                  Bytes(Telemetry({.seq = seq,
                                   .start_ns = t,
                                   .iteration_ms = 50,
                                   .share = c.jobs().at("other").sent_share})),
                  t, kUnix + t, &out_);
      c.OnTick(t, kUnix + t, &out_);
    }
  };
  auto shares_to_other = [&] {
    std::vector<std::pair<double, w::Priority>> shares;
    for (const ReceivedMessage& m : To(out_, "shim-o")) {
      if (const w::Budget* b = m.envelope() ? m.envelope()->payload_as_Budget() : nullptr) {
        shares.push_back({b->share(), b->priority()});
      }
    }
    return shares;
  };
  {
    auto store = OpenStore();
    auto c = Make(store.get());
    c->OnMessage("cli", Bytes(Place({.job = "guard"})), 0, kUnix, &out_);
    guard_token = LastPlaceReply(out_).token;
    c->OnMessage("shim-g", Bytes(Hello({.pid = 100, .job = "guard", .token = guard_token})), 0,
                 kUnix, &out_);
    for (int i = 0; i < 30; ++i, t += kTick) {  // alone: the solo baseline
      c->OnMessage("shim-g", Bytes(Telemetry({.seq = seq++, .start_ns = t, .iteration_ms = 100})),
                   t, kUnix + t, &out_);
      c->OnTick(t, kUnix + t, &out_);
    }
    out_.clear();
    c->OnMessage("shim-o", Bytes(Hello({.pid = 200, .job = "other"})), t, kUnix + t, &out_);
    ASSERT_EQ(LastAdvice(out_, "shim-o")->first, w::AdviceKind::Token);
    other_token = LastAdvice(out_, "shim-o")->second;
    ASSERT_EQ(c->jobs().at("other").gpu, c->jobs().at("guard").gpu);
    run(*c, 30);
    EXPECT_TRUE(shares_to_other().empty());  // two guaranteed jobs: nobody throttled

    auto [ok, text] = Ask(*c, kAdmin,
                          Admin({.action = w::AdminAction::SetPriority,
                                 .job = "other",
                                 .priority = w::Priority::Opportunistic}));
    ASSERT_TRUE(ok) << text;
    run(*c, 100);
    const auto shares = shares_to_other();
    ASSERT_FALSE(shares.empty());
    EXPECT_LT(shares.back().first, 1.0);
    EXPECT_EQ(shares.back().second, w::Priority::Opportunistic);
  }
  auto store = OpenStore();
  auto c = Make(store.get(), 1, t);
  EXPECT_EQ(c->jobs().at("other").priority, policy::Priority::kOpportunistic);
  EXPECT_LT(c->jobs().at("other").sent_share, 1.0);
  c->OnMessage("shim-g", Bytes(Hello({.pid = 100, .job = "guard", .token = guard_token})), t,
               kUnix + t, &out_);
  c->OnMessage("shim-o", Bytes(Hello({.pid = 200, .job = "other", .token = other_token})), t,
               kUnix + t, &out_);
  ASSERT_TRUE(c->jobs().at("other").connected);
  auto [ok, text] = Ask(*c, kAdmin,
                        Admin({.action = w::AdminAction::SetPriority,
                               .job = "other",
                               .priority = w::Priority::Guaranteed}));
  ASSERT_TRUE(ok) << text;
  run(*c, 20);
  const auto shares = shares_to_other();
  ASSERT_EQ(shares.size(), 1u);  // one unthrottling budget, then none: guaranteed jobs get none
  EXPECT_EQ(shares[0].first, 1.0);
  EXPECT_EQ(shares[0].second, w::Priority::Guaranteed);
  c.reset();
  store.reset();
  store = OpenStore();
  c = Make(store.get(), 1, t);
  EXPECT_EQ(c->jobs().at("other").priority, policy::Priority::kGuaranteed);
}

}  // namespace
}  // namespace iashim::daemon
