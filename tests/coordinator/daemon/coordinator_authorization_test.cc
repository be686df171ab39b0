// Who may do what (issue 7): a shim reports for, and gets budgets for, only
// the job whose token it holds; drain, undrain and priority changes need a
// sender with the admin key. The coordinator is driven directly, with a real
// StateStore in a temporary directory where a restart matters.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/text/names.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/wire_convert.h"
#include "coordinator/policy/simple_placement.h"
#include "schemas/telemetry_generated.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kTick = 100'000'000;
constexpr int64_t kUnix = 1'800'000'000LL * kSecond;
const Sender kAdmin{"admin-tool", true};
const Sender kTool{"plain-tool", false};

policy::Cluster Gpus(int count) {
  policy::Cluster c;
  for (int i = 0; i < count; ++i) {
    c.gpus.push_back({{"node1", i}, "v100", "Tesla V100", "GPU-" + std::to_string(i), 32ULL << 30});
  }
  return c;
}

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string Hello(int pid, const std::string& job, const std::string& token,
                  w::Priority priority = w::Priority::Guaranteed) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto h = w::CreateHelloDirect(fbb, pid, "node1", job.c_str(), "train.py", "0.1.0", 100, 0,
                                      0, 0, priority, 1.0, token.c_str());
  return EnvelopeBytes(fbb, w::Payload::Hello, h.Union());
}

// One 100 ms window holding one iteration of `iteration_ms`.
std::string Batch(uint64_t seq, int64_t start_ns, double iteration_ms, double share = 1.0) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<w::KernelStats>> kernels = {
      w::CreateKernelStats(fbb, 0xabcdef, 100, 80, 1, 1, 128, 1, 1, 0, 8000, 10, 10'000'000,
                           1'000'000, 1'000'000)};
  const auto b = w::CreateTelemetryBatchDirect(
      fbb, seq, start_ns, start_ns + kTick, 100, 0, 1, 1, uint64_t(iteration_ms * 1e6), 10,
      &kernels, nullptr, 0, 0, share, 0, 0, 1.0, -1.0);
  return EnvelopeBytes(fbb, w::Payload::TelemetryBatch, b.Union());
}

std::string KernelNames() {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<w::KernelName>> names = {
      w::CreateKernelNameDirect(fbb, 0x1234, "impostor_kernel")};
  return EnvelopeBytes(fbb, w::Payload::KernelNames, w::CreateKernelNamesDirect(fbb, &names).Union());
}

std::string Goodbye() {
  flatbuffers::FlatBufferBuilder fbb;
  return EnvelopeBytes(fbb, w::Payload::Goodbye, w::CreateGoodbye(fbb, 10, 0).Union());
}

std::string Place(const std::string& job, bool opportunistic, uint64_t mem, int gpu = -1) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto p = w::CreatePlaceRequestDirect(
      fbb, job.c_str(), opportunistic ? w::Priority::Opportunistic : w::Priority::Guaranteed, mem,
      gpu, "node1", "python train.py", 0.1);
  return EnvelopeBytes(fbb, w::Payload::PlaceRequest, p.Union());
}

std::string Admin(w::AdminAction action, const std::string& host, int gpu, const std::string& job,
                  w::Priority priority = w::Priority::Guaranteed) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto r = w::CreateAdminRequestDirect(fbb, action, host.c_str(), gpu, job.c_str(), priority);
  return EnvelopeBytes(fbb, w::Payload::AdminRequest, r.Union());
}

// A decoded message, with the storage it lives in.
struct Message {
  std::vector<uint64_t> buffer;
  const w::Envelope* envelope = nullptr;
};

Message Decode(const Outgoing& o) {
  Message m;
  m.envelope = wire::OpenEnvelope(o.bytes.data(), o.bytes.size(), &m.buffer).envelope;
  return m;
}

// Everything in `out` addressed to `identity`.
std::vector<Message> To(const std::vector<Outgoing>& out, std::string_view identity) {
  std::vector<Message> found;
  for (const Outgoing& o : out) {
    if (o.identity == identity) found.push_back(Decode(o));
  }
  return found;
}

struct PlaceResult {
  bool ok = false;
  std::string error;
  std::string token;
  int gpu = -1;
  bool queued = false;
};

PlaceResult PlaceReplyIn(const std::vector<Outgoing>& out) {
  PlaceResult r;
  if (out.empty()) return r;
  const Message m = Decode(out.back());
  const w::PlaceReply* reply = m.envelope ? m.envelope->payload_as_PlaceReply() : nullptr;
  if (reply == nullptr) return r;
  r.ok = reply->ok();
  r.error = reply->error() ? reply->error()->str() : "";
  r.token = reply->token() ? reply->token()->str() : "";
  r.gpu = reply->gpu();
  r.queued = reply->queued();
  return r;
}

// The kind of the last Advice to `identity` in `out`, with its text.
std::optional<std::pair<w::AdviceKind, std::string>> LastAdvice(const std::vector<Outgoing>& out,
                                                                 std::string_view identity) {
  std::optional<std::pair<w::AdviceKind, std::string>> last;
  for (const Message& m : To(out, identity)) {
    const w::Advice* a = m.envelope ? m.envelope->payload_as_Advice() : nullptr;
    if (a != nullptr) last = {{a->kind(), a->text() ? a->text()->str() : ""}};
  }
  return last;
}

int BudgetsTo(const std::vector<Outgoing>& out, std::string_view identity) {
  int n = 0;
  for (const Message& m : To(out, identity)) n += m.envelope && m.envelope->payload_as_Budget();
  return n;
}

class CoordinatorAuthorizationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("iashim-authz-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
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
    const Message m = Decode(out_[0]);
    if (m.envelope == nullptr) return {false, "undecodable"};
    if (const w::ErrorReply* e = m.envelope->payload_as_ErrorReply()) {
      return {false, "ErrorReply: " + e->text()->str()};
    }
    const w::AdminReply* r = m.envelope->payload_as_AdminReply();
    EXPECT_NE(r, nullptr);
    if (r == nullptr) return {false, ""};
    return {r->ok(), r->ok() ? r->text()->str() : r->error()->str()};
  }

  std::filesystem::path dir_;
  std::vector<Outgoing> out_;
};

TEST_F(CoordinatorAuthorizationTest, AShimWithoutTheTokenGetsNeitherTheJobNorItsBudgets) {
  auto c = Make(nullptr);
  c->OnMessage("cli", Bytes(Place("guard", false, 4ULL << 30)), 0, kUnix, &out_);
  const std::string guard_token = PlaceReplyIn(out_).token;
  c->OnMessage("cli", Bytes(Place("filler", true, 4ULL << 30)), 0, kUnix, &out_);
  const std::string filler_token = PlaceReplyIn(out_).token;
  ASSERT_TRUE(ValidJobToken(guard_token)) << guard_token;
  ASSERT_TRUE(ValidJobToken(filler_token)) << filler_token;
  EXPECT_NE(guard_token, filler_token);

  // Before the job's own shim connects: no token, then a wrong one.
  out_.clear();
  c->OnMessage("impostor", Bytes(Hello(300, "filler", "")), 0, kUnix, &out_);
  ASSERT_TRUE(LastAdvice(out_, "impostor"));
  EXPECT_EQ(LastAdvice(out_, "impostor")->first, w::AdviceKind::Refused);
  EXPECT_NE(LastAdvice(out_, "impostor")->second.find("token"), std::string::npos);
  c->OnMessage("impostor", Bytes(Hello(300, "filler", guard_token)), 0, kUnix, &out_);
  EXPECT_EQ(LastAdvice(out_, "impostor")->first, w::AdviceKind::Refused);
  EXPECT_FALSE(c->jobs().at("filler").connected);
  EXPECT_EQ(c->counters().refused_tokens, 2u);

  // The guaranteed job alone (its baseline), then slowed by the filler; the
  // impostor reports fast iterations for "filler" all along.
  c->OnMessage("shim-g", Bytes(Hello(100, "guard", guard_token)), 0, kUnix, &out_);
  int64_t t = 0;
  uint64_t seq = 0;
  for (int i = 0; i < 30; ++i, t += kTick) {
    c->OnMessage("shim-g", Bytes(Batch(seq++, t, 100)), t, kUnix + t, &out_);
    c->OnTick(t, kUnix + t, &out_);
  }
  c->OnMessage("shim-f", Bytes(Hello(200, "filler", filler_token, w::Priority::Opportunistic)), t,
               kUnix + t, &out_);
  EXPECT_TRUE(c->jobs().at("guard").connected);
  EXPECT_TRUE(c->jobs().at("filler").connected);
  EXPECT_EQ(c->counters().refused_claims, 2u);

  // While the job's shim is connected, with a wrong token.
  c->OnMessage("impostor", Bytes(Hello(300, "filler", std::string(32, 'a'))), t, kUnix + t, &out_);
  EXPECT_EQ(c->counters().refused_tokens, 3u);
  EXPECT_EQ(c->jobs().at("filler").identity, "shim-f");
  out_.clear();
  uint64_t filler_batches = 0;
  for (int i = 0; i < 100; ++i, t += kTick) {
    c->OnMessage("shim-g", Bytes(Batch(seq, t, 150)), t, kUnix + t, &out_);
    c->OnMessage("shim-f", Bytes(Batch(seq, t, 50, c->jobs().at("filler").sent_share)), t,
                 kUnix + t, &out_);
    ++filler_batches;
    c->OnMessage("impostor", Bytes(Batch(seq, t, 1)), t, kUnix + t, &out_);
    c->OnMessage("impostor", Bytes(KernelNames()), t, kUnix + t, &out_);
    ++seq;
    c->OnTick(t, kUnix + t, &out_);
  }
  EXPECT_GT(BudgetsTo(out_, "shim-f"), 0);
  EXPECT_EQ(BudgetsTo(out_, "impostor"), 0);
  for (const Message& m : To(out_, "impostor")) {
    ASSERT_NE(m.envelope, nullptr);
    EXPECT_NE(m.envelope->payload_as_Advice(), nullptr);  // SendHello, never anything else
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
    c->OnMessage("cli", Bytes(Place("guard", false, 4ULL << 30)), kSecond, kUnix, &out_);
    token = PlaceReplyIn(out_).token;
    c->OnMessage("shim-g", Bytes(Hello(100, "guard", token)), kSecond, kUnix, &out_);
    ASSERT_TRUE(c->jobs().at("guard").connected);
  }
  auto store = OpenStore();
  auto c = Make(store.get(), 1, 50 * kSecond);
  ASSERT_EQ(c->jobs().count("guard"), 1u);
  EXPECT_EQ(c->jobs().at("guard").token, token);
  EXPECT_FALSE(c->jobs().at("guard").connected);
  out_.clear();
  c->OnMessage("shim-x", Bytes(Hello(100, "guard", "")), 50 * kSecond, kUnix, &out_);
  EXPECT_EQ(LastAdvice(out_, "shim-x")->first, w::AdviceKind::Refused);
  std::string wrong = token;
  wrong[31] = wrong[31] == '0' ? '1' : '0';
  c->OnMessage("shim-x", Bytes(Hello(100, "guard", wrong)), 50 * kSecond, kUnix, &out_);
  EXPECT_EQ(LastAdvice(out_, "shim-x")->first, w::AdviceKind::Refused);
  EXPECT_FALSE(c->jobs().at("guard").connected);
  c->OnMessage("shim-g", Bytes(Hello(100, "guard", token)), 50 * kSecond, kUnix, &out_);
  EXPECT_TRUE(c->jobs().at("guard").connected);
  EXPECT_EQ(c->jobs().at("guard").identity, "shim-g");
  EXPECT_EQ(c->counters().refused_tokens, 2u);
}

TEST_F(CoordinatorAuthorizationTest, AJobCreatedByAHelloGetsItsTokenAndThenNeedsIt) {
  std::string token;
  {
    auto store = OpenStore();
    auto c = Make(store.get());
    c->OnMessage("shim-a", Bytes(Hello(100, "by-hand", "")), kSecond, kUnix, &out_);
    ASSERT_TRUE(LastAdvice(out_, "shim-a"));
    EXPECT_EQ(LastAdvice(out_, "shim-a")->first, w::AdviceKind::Token);
    token = LastAdvice(out_, "shim-a")->second;
    ASSERT_TRUE(ValidJobToken(token)) << token;
    // The shim's periodic Hello now carries it: accepted, and no new token.
    out_.clear();
    c->OnMessage("shim-a", Bytes(Hello(100, "by-hand", token)), 2 * kSecond, kUnix, &out_);
    EXPECT_TRUE(out_.empty());
    // Its process went quiet: disconnected, not forgotten. Another process
    // naming the job without the token is refused all the same.
    c->OnTick(10 * kSecond, kUnix, &out_);
    ASSERT_FALSE(c->jobs().at("by-hand").connected);
    out_.clear();
    c->OnMessage("shim-b", Bytes(Hello(200, "by-hand", "")), 10 * kSecond, kUnix, &out_);
    EXPECT_EQ(LastAdvice(out_, "shim-b")->first, w::AdviceKind::Refused);
    EXPECT_FALSE(c->jobs().at("by-hand").connected);
  }
  // After a restart, the token it was given is still the job's.
  auto store = OpenStore();
  auto c = Make(store.get(), 1, 20 * kSecond);
  out_.clear();
  c->OnMessage("shim-b", Bytes(Hello(200, "by-hand", "")), 20 * kSecond, kUnix, &out_);
  EXPECT_EQ(LastAdvice(out_, "shim-b")->first, w::AdviceKind::Refused);
  c->OnMessage("shim-a2", Bytes(Hello(100, "by-hand", token)), 20 * kSecond, kUnix, &out_);
  EXPECT_TRUE(c->jobs().at("by-hand").connected);
  EXPECT_EQ(c->jobs().at("by-hand").identity, "shim-a2");
}

TEST_F(CoordinatorAuthorizationTest, APlaceRequestCannotTakeOverAJobId) {
  auto c = Make(nullptr, 2);
  c->OnMessage("cli", Bytes(Place("train", false, 4ULL << 30)), kSecond, kUnix, &out_);
  const PlaceResult first = PlaceReplyIn(out_);
  ASSERT_TRUE(first.ok) << first.error;
  // Placed, its shim not yet connected.
  c->OnMessage("cli", Bytes(Place("train", false, 4ULL << 30)), kSecond, kUnix, &out_);
  const PlaceResult again = PlaceReplyIn(out_);
  EXPECT_FALSE(again.ok);
  EXPECT_FALSE(again.queued);
  EXPECT_TRUE(again.token.empty());
  EXPECT_NE(again.error.find("'train' exists"), std::string::npos) << again.error;
  EXPECT_EQ(c->jobs().at("train").token, first.token);
  // Connected.
  c->OnMessage("shim-t", Bytes(Hello(100, "train", first.token)), kSecond, kUnix, &out_);
  c->OnMessage("cli", Bytes(Place("train", true, 4ULL << 30)), kSecond, kUnix, &out_);
  EXPECT_FALSE(PlaceReplyIn(out_).ok);
  EXPECT_EQ(c->jobs().at("train").priority, policy::Priority::kGuaranteed);
  // A job its own Hello created.
  c->OnMessage("shim-h", Bytes(Hello(200, "by-hand", "")), kSecond, kUnix, &out_);
  c->OnMessage("cli", Bytes(Place("by-hand", false, 4ULL << 30)), kSecond, kUnix, &out_);
  EXPECT_FALSE(PlaceReplyIn(out_).ok);
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
    c->OnMessage("cli", Bytes(Place(kId, false, 4ULL << 30)), kSecond, kUnix, &out_);
    c->OnMessage("shim-t", Bytes(Hello(100, kId, PlaceReplyIn(out_).token)), kSecond, kUnix,
                 &out_);
    c->OnMessage("shim-t", Bytes(Goodbye()), 2 * kSecond, kUnix, &out_);
    EXPECT_EQ(c->jobs().count(kId), 0u);
    EXPECT_EQ(store->state().jobs.count(kId), 0u);
  }
  auto store = OpenStore();
  auto c = Make(store.get(), 1, 10 * kSecond);
  EXPECT_EQ(c->jobs().count(kId), 0u);
  c->OnMessage("cli", Bytes(Place(kId, false, 4ULL << 30)), 10 * kSecond, kUnix, &out_);
  EXPECT_TRUE(PlaceReplyIn(out_).ok) << PlaceReplyIn(out_).error;
}

TEST_F(CoordinatorAuthorizationTest, AdminActionsNeedTheAdminKey) {
  auto c = Make(nullptr, 2);
  c->OnMessage("shim-a", Bytes(Hello(100, "job-a", "")), kSecond, kUnix, &out_);
  auto [ok, text] = Ask(*c, kTool, Admin(w::AdminAction::Drain, "node1", 0, ""));
  EXPECT_FALSE(ok);
  EXPECT_NE(text.find("ErrorReply: `iashim drain` needs the admin key"), std::string::npos) << text;
  EXPECT_NE(text.find("iashim keygen --admin"), std::string::npos) << text;
  EXPECT_NE(text.find("--admin-key"), std::string::npos) << text;
  EXPECT_FALSE(c->drained({"node1", 0}));
  std::tie(ok, text) =
      Ask(*c, kTool, Admin(w::AdminAction::SetPriority, "", -1, "job-a", w::Priority::Opportunistic));
  EXPECT_FALSE(ok);
  EXPECT_NE(text.find("`iashim priority` needs the admin key"), std::string::npos) << text;
  EXPECT_EQ(c->jobs().at("job-a").priority, policy::Priority::kGuaranteed);
  // The old entry point is a sender without the key.
  out_.clear();
  c->OnMessage("old-api", Bytes(Admin(w::AdminAction::Undrain, "node1", -1, "")), kSecond, kUnix,
               &out_);
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_NE(Decode(out_[0]).envelope->payload_as_ErrorReply(), nullptr);
  EXPECT_EQ(c->counters().admin_refused, 3u);
  EXPECT_NE(c->MetricsText(kSecond).find(
                "iashim_admin_requests_total{outcome=\"refused_no_admin_key\"} 3"),
            std::string::npos);

  std::tie(ok, text) = Ask(*c, kAdmin, Admin(w::AdminAction::Drain, "node1", 0, ""));
  EXPECT_TRUE(ok) << text;
  EXPECT_TRUE(c->drained({"node1", 0}));
  std::tie(ok, text) =
      Ask(*c, kAdmin, Admin(w::AdminAction::SetPriority, "", -1, "job-a", w::Priority::Opportunistic));
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
  expect_error(Admin(w::AdminAction::Drain, "", -1, ""), "drain needs a host");
  expect_error(Admin(w::AdminAction::Drain, "node9", -1, ""),
               "no GPU on host 'node9' (the cluster's hosts: node1)");
  expect_error(Admin(w::AdminAction::Undrain, "node1", 5, ""), "host 'node1' has no GPU 5 (it has 0, 1)");
  expect_error(Admin(w::AdminAction::Drain, "node1", -7, ""), "has no GPU -7");
  expect_error(Admin(w::AdminAction::SetPriority, "", -1, ""), "priority needs a job id");
  expect_error(Admin(w::AdminAction::SetPriority, "", -1, "nobody"), "no job 'nobody'");
  c->OnMessage("shim-a", Bytes(Hello(100, "job-a", "")), kSecond, kUnix, &out_);
  expect_error(Admin(w::AdminAction::SetPriority, "", -1, "job-a", static_cast<w::Priority>(7)),
               "priority 7 is neither guaranteed (0) nor opportunistic (1)");
  expect_error(Admin(static_cast<w::AdminAction>(9), "node1", -1, ""), "unknown admin action 9");
  EXPECT_EQ(c->counters().admin_actions, 0u);
  EXPECT_FALSE(c->drained({"node1", 0}));
}

TEST_F(CoordinatorAuthorizationTest, ADrainedGpuGetsNoNewJobsAndStaysDrainedAfterARestart) {
  {
    auto store = OpenStore();
    auto c = Make(store.get(), 2);
    c->OnMessage("cli", Bytes(Place("before", false, 4ULL << 30, 0)), kSecond, kUnix, &out_);
    ASSERT_TRUE(PlaceReplyIn(out_).ok);
    const std::string before_token = PlaceReplyIn(out_).token;
    auto [ok, text] = Ask(*c, kAdmin, Admin(w::AdminAction::Drain, "node1", 0, ""));
    ASSERT_TRUE(ok) << text;
    EXPECT_NE(text.find("drained node1:0"), std::string::npos) << text;
    // The job already there runs on, and its shim may still connect.
    c->OnMessage("shim-b", Bytes(Hello(100, "before", before_token)), kSecond, kUnix, &out_);
    EXPECT_TRUE(c->jobs().at("before").connected);
    EXPECT_EQ(c->jobs().at("before").gpu, (policy::GpuId{"node1", 0}));
    // New jobs: GPU 1 only; asked for GPU 0 by name: refused, saying why.
    c->OnMessage("cli", Bytes(Place("next", false, 0)), kSecond, kUnix, &out_);
    ASSERT_TRUE(PlaceReplyIn(out_).ok) << PlaceReplyIn(out_).error;
    EXPECT_EQ(PlaceReplyIn(out_).gpu, 1);
    c->OnMessage("cli", Bytes(Place("pinned", true, 1ULL << 30, 0)), kSecond, kUnix, &out_);
    EXPECT_FALSE(PlaceReplyIn(out_).ok);
    EXPECT_NE(PlaceReplyIn(out_).error.find("GPU node1:0 is drained"), std::string::npos);
    // Status shows it.
    std::vector<uint64_t> buf;
    const std::string snapshot = c->EncodeSnapshot(kSecond, kUnix);
    const w::StateSnapshot* s = wire::OpenEnvelope(snapshot.data(), snapshot.size(), &buf).envelope->payload_as_StateSnapshot();
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
  c->OnMessage("cli", Bytes(Place("later", true, 1ULL << 30)), 10 * kSecond, kUnix, &out_);
  EXPECT_FALSE(PlaceReplyIn(out_).ok);
  auto [ok, text] = Ask(*c, kAdmin, Admin(w::AdminAction::Undrain, "node1", -1, ""));
  ASSERT_TRUE(ok) << text;
  EXPECT_FALSE(c->drained({"node1", 0}));
  c->OnMessage("cli", Bytes(Place("later", true, 1ULL << 30)), 10 * kSecond, kUnix, &out_);
  ASSERT_TRUE(PlaceReplyIn(out_).ok) << PlaceReplyIn(out_).error;
  EXPECT_EQ(PlaceReplyIn(out_).gpu, 0);
  // Draining a whole host drains each of its GPUs.
  std::tie(ok, text) = Ask(*c, kAdmin, Admin(w::AdminAction::Drain, "node1", -1, ""));
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
      c.OnMessage("shim-g", Bytes(Batch(seq, t, 150)), t, kUnix + t, &out_);
      c.OnMessage("shim-o", Bytes(Batch(seq, t, 50, c.jobs().at("other").sent_share)), t,
                  kUnix + t, &out_);
      c.OnTick(t, kUnix + t, &out_);
    }
  };
  auto shares_to_other = [&] {
    std::vector<std::pair<double, w::Priority>> shares;
    for (const Message& m : To(out_, "shim-o")) {
      if (const w::Budget* b = m.envelope ? m.envelope->payload_as_Budget() : nullptr) {
        shares.push_back({b->share(), b->priority()});
      }
    }
    return shares;
  };
  {
    auto store = OpenStore();
    auto c = Make(store.get());
    c->OnMessage("cli", Bytes(Place("guard", false, 4ULL << 30)), 0, kUnix, &out_);
    guard_token = PlaceReplyIn(out_).token;
    c->OnMessage("shim-g", Bytes(Hello(100, "guard", guard_token)), 0, kUnix, &out_);
    for (int i = 0; i < 30; ++i, t += kTick) {  // alone: the solo baseline
      c->OnMessage("shim-g", Bytes(Batch(seq++, t, 100)), t, kUnix + t, &out_);
      c->OnTick(t, kUnix + t, &out_);
    }
    out_.clear();
    c->OnMessage("shim-o", Bytes(Hello(200, "other", "")), t, kUnix + t, &out_);
    ASSERT_EQ(LastAdvice(out_, "shim-o")->first, w::AdviceKind::Token);
    other_token = LastAdvice(out_, "shim-o")->second;
    ASSERT_EQ(c->jobs().at("other").gpu, c->jobs().at("guard").gpu);
    run(*c, 30);
    EXPECT_TRUE(shares_to_other().empty());  // two guaranteed jobs: nobody throttled

    auto [ok, text] = Ask(*c, kAdmin,
                          Admin(w::AdminAction::SetPriority, "", -1, "other", w::Priority::Opportunistic));
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
  c->OnMessage("shim-g", Bytes(Hello(100, "guard", guard_token)), t, kUnix + t, &out_);
  c->OnMessage("shim-o", Bytes(Hello(200, "other", other_token)), t, kUnix + t, &out_);
  ASSERT_TRUE(c->jobs().at("other").connected);
  auto [ok, text] =
      Ask(*c, kAdmin, Admin(w::AdminAction::SetPriority, "", -1, "other", w::Priority::Guaranteed));
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
