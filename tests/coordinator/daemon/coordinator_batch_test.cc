// What the Slurm integration relies on: allowed_gpus, batch ids, dry runs
// and ReleaseRequest, driven through Coordinator::OnMessage.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "coordinator/cli/status_format.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/policy/simple_placement.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/daemon/daemon_messages.h"
#include "tests/coordinator/daemon/test_state_dir.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
using testing::Bytes;
using testing::Gpus;
using testing::Hello;
using testing::kSecond;
using testing::kUnix;
using testing::LastPlaceReply;
using testing::Place;
using testing::PlaceResult;
using testing::PlaceSpec;
using testing::ReceivedMessage;
using testing::Release;
using testing::TwoNodes;

// Most jobs here are opportunistic: they fit beside a guaranteed one.
constexpr w::Priority kOpportunistic = w::Priority::Opportunistic;

struct ReleaseResult {
  bool released = false;
  std::string message;
};

class CoordinatorBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestStateDir("iashim-coord-batch-test");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Coordinator> Make(state::StateStore* store, policy::Cluster cluster = Gpus(2),
                                    int64_t now = 0) {
    return std::make_unique<Coordinator>(DaemonOptions{}, std::move(cluster), store,
                                         std::make_unique<policy::SimplePlacement>(), now);
  }
  std::unique_ptr<state::StateStore> OpenStore() {
    auto s = state::StateStore::Open(dir_.string());
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  PlaceResult Ask(Coordinator& c, const PlaceSpec& spec) {
    out_.clear();
    c.OnMessage("cli", Bytes(Place(spec)), kSecond, kUnix, &out_);
    EXPECT_EQ(out_.size(), 1u);
    const PlaceResult r = LastPlaceReply(out_);
    if (!r.replied) ADD_FAILURE() << "no PlaceReply";
    return r;
  }

  ReleaseResult AskRelease(Coordinator& c, const std::string& job, const std::string& token) {
    out_.clear();
    c.OnMessage("slurm", Bytes(Release(job, token)), 2 * kSecond, kUnix, &out_);
    EXPECT_EQ(out_.size(), 1u);
    ReleaseResult r;
    if (out_.empty()) {
      ADD_FAILURE() << "no ReleaseReply";
      return r;
    }
    const ReceivedMessage m(out_.back().bytes);
    const w::ReleaseReply* reply = m.envelope() ? m.envelope()->payload_as_ReleaseReply() : nullptr;
    if (reply == nullptr) {
      ADD_FAILURE() << "no ReleaseReply";
      return r;
    }
    r.released = reply->released();
    r.message = reply->message() ? reply->message()->str() : "";
    return r;
  }

  std::filesystem::path dir_;
  std::vector<Outgoing> out_;
};

// GPU 0 of a two-GPU node is busy: allowed_gpus decides where the next job goes.
TEST_F(CoordinatorBatchTest, AllowedGpusRestrictTheGpuChosen) {
  auto c = Make(nullptr);
  const PlaceResult busy = Ask(*c, {.job = "busy", .gpu = 0});
  ASSERT_TRUE(busy.ok) << busy.error;
  ASSERT_EQ(busy.gpu, 0);

  const PlaceResult on0 =
      Ask(*c, {.job = "a0", .priority = kOpportunistic, .allowed_gpus = std::vector<int>{0}});
  EXPECT_TRUE(on0.ok) << on0.error;
  EXPECT_EQ(on0.gpu, 0);
  const PlaceResult any =
      Ask(*c, {.job = "any", .priority = kOpportunistic, .allowed_gpus = std::vector<int>{}});
  EXPECT_TRUE(any.ok) << any.error;
  EXPECT_EQ(any.gpu, 1);  // the empty GPU
  const PlaceResult on1 =
      Ask(*c, {.job = "a1", .priority = kOpportunistic, .allowed_gpus = std::vector<int>{1}});
  EXPECT_TRUE(on1.ok) << on1.error;
  EXPECT_EQ(on1.gpu, 1);
  ASSERT_EQ(c->jobs().count("a0"), 1u);
  EXPECT_EQ(c->jobs().at("a0").gpu, (policy::GpuId{"node1", 0}));
  EXPECT_EQ(c->jobs().at("a1").gpu, (policy::GpuId{"node1", 1}));
}

TEST_F(CoordinatorBatchTest, AllowedGpusOfAnotherNodeAreNotUsed) {
  auto c = Make(nullptr, TwoNodes());
  // node2:0 is empty, node1's GPUs are not; still only node1:1 is allowed.
  ASSERT_TRUE(Ask(*c, {.job = "x", .gpu = 0}).ok);
  const PlaceResult r =
      Ask(*c, {.job = "y", .priority = kOpportunistic, .allowed_gpus = std::vector<int>{1}});
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.host, "node1");
  EXPECT_EQ(r.gpu, 1);
  // A host with no GPUs the coordinator knows, in a cluster of several nodes.
  const PlaceResult unknown = Ask(*c, {.job = "z",
                                       .priority = kOpportunistic,
                                       .host = "node9",
                                       .allowed_gpus = std::vector<int>{0}});
  EXPECT_FALSE(unknown.ok);
  EXPECT_NE(unknown.error.find("node9"), std::string::npos) << unknown.error;
}

TEST_F(CoordinatorBatchTest, BadAllowedGpusAreRefusedWithAReason) {
  auto c = Make(nullptr);
  struct Case {
    PlaceSpec spec;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {{.job = "neg", .priority = kOpportunistic, .allowed_gpus = std::vector<int>{-1}},
       "allowed_gpus entry -1"},
      {{.job = "big", .priority = kOpportunistic, .allowed_gpus = std::vector<int>{256}},
       "allowed_gpus entry 256"},
      {{.job = "many", .priority = kOpportunistic, .allowed_gpus = std::vector<int>(257, 0)},
       "more than 256"},
      {{.job = "nohost",
        .priority = kOpportunistic,
        .host = "",
        .allowed_gpus = std::vector<int>{0}},
       "needs host"},
      {{.job = "notin", .priority = kOpportunistic, .gpu = 0, .allowed_gpus = std::vector<int>{1}},
       "gpu 0 is not in allowed_gpus"},
      {{.job = "none", .priority = kOpportunistic, .allowed_gpus = std::vector<int>{5}},
       "none of allowed_gpus"},
  };
  for (const Case& k : cases) {
    const PlaceResult r = Ask(*c, k.spec);
    EXPECT_FALSE(r.ok) << k.spec.job;
    EXPECT_FALSE(r.queued) << k.spec.job;
    EXPECT_NE(r.error.find(k.reason), std::string::npos) << k.spec.job << ": " << r.error;
  }
  EXPECT_TRUE(c->jobs().empty());
  // 256 entries are fine.
  std::vector<int> all(256);
  for (int i = 0; i < 256; ++i) all[size_t(i)] = i;
  EXPECT_TRUE(Ask(*c, {.job = "all", .priority = kOpportunistic, .allowed_gpus = all}).ok);
}

TEST_F(CoordinatorBatchTest, BadBatchIdsAreRefusedNamingTheField) {
  auto c = Make(nullptr);
  const std::vector<std::pair<BatchIds, std::string>> cases = {
      {{"", "1", "0", 0}, "batch.system"},
      {{"Slurm", "1", "0", 0}, "batch.system"},
      {{std::string(33, 's'), "1", "0", 0}, "batch.system"},
      {{"slurm", "", "0", 0}, "batch.job"},
      {{"slurm", "12 34", "0", 0}, "batch.job"},
      {{"slurm", std::string(65, '1'), "0", 0}, "batch.job"},
      {{"slurm", "1", "", 0}, "batch.step"},
      {{"slurm", "1", "ba\ttch", 0}, "batch.step"},
      {{"slurm", "1", "0", -2}, "batch.task"},
      {{"slurm", "1", "0", 65536}, "batch.task"},
  };
  int n = 0;
  for (const auto& [batch, field] : cases) {
    const PlaceResult r =
        Ask(*c, {.job = "j" + std::to_string(n++), .priority = kOpportunistic, .batch = batch});
    EXPECT_FALSE(r.ok) << field;
    EXPECT_NE(r.error.find(field), std::string::npos) << field << ": " << r.error;
  }
  EXPECT_TRUE(c->jobs().empty());
  const PlaceResult ok =
      Ask(*c, {.job = "fine",
               .priority = kOpportunistic,
               .batch = BatchIds{"slurm", std::string(64, '9'), "batch", 65535}});
  EXPECT_TRUE(ok.ok) << ok.error;
  ASSERT_EQ(c->jobs().count("fine"), 1u);
  EXPECT_EQ(c->jobs().at("fine").batch.step, "batch");
  EXPECT_EQ(c->jobs().at("fine").batch.task, 65535);
}

TEST_F(CoordinatorBatchTest, DryRunRegistersNothingAndMintsNoToken) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto c = Make(store.get());
  ASSERT_TRUE(Ask(*c, {.job = "busy", .gpu = 0}).ok);
  const uint64_t placements = c->counters().placements;
  const PlaceResult dry = Ask(*c, {.job = "try",
                                   .priority = kOpportunistic,
                                   .allowed_gpus = std::vector<int>{1},
                                   .batch = BatchIds{"slurm", "7", "0", 0},
                                   .dry_run = true});
  EXPECT_TRUE(dry.ok) << dry.error;
  EXPECT_TRUE(dry.dry_run);
  EXPECT_EQ(dry.job, "try");
  EXPECT_EQ(dry.host, "node1");
  EXPECT_EQ(dry.gpu, 1);
  EXPECT_TRUE(dry.token.empty());
  EXPECT_EQ(c->jobs().count("try"), 0u);
  EXPECT_EQ(store->state().jobs.count("try"), 0u);
  EXPECT_EQ(c->counters().placements, placements);
  EXPECT_EQ(c->counters().dry_runs, 1u);
  // The same decision as a real request: the name is still free, and the
  // real one lands where the dry run said.
  const PlaceResult real =
      Ask(*c, {.job = "try", .priority = kOpportunistic, .allowed_gpus = std::vector<int>{1}});
  EXPECT_TRUE(real.ok) << real.error;
  EXPECT_FALSE(real.dry_run);
  EXPECT_EQ(real.gpu, 1);
  EXPECT_FALSE(real.token.empty());
  // A dry run is refused like a real one (the id is taken now)...
  const PlaceResult taken = Ask(*c, {.job = "try", .priority = kOpportunistic, .dry_run = true});
  EXPECT_FALSE(taken.ok);
  EXPECT_TRUE(taken.dry_run);
  // ...and queued like one (more memory than GPU 1 has free now), with no token.
  const PlaceResult full = Ask(*c, {.job = "huge",
                                    .priority = kOpportunistic,
                                    .mem_bytes = 30ULL << 30,
                                    .gpu = 1,
                                    .dry_run = true});
  EXPECT_FALSE(full.ok);
  EXPECT_TRUE(full.token.empty());
  EXPECT_EQ(c->jobs().count("huge"), 0u);
}

TEST_F(CoordinatorBatchTest, BatchIdsSurviveARestartAndShowInStatus) {
  std::string token;
  {
    auto store = OpenStore();
    ASSERT_NE(store, nullptr);
    auto c = Make(store.get());
    const PlaceResult r = Ask(*c, {.job = "step",
                                   .priority = kOpportunistic,
                                   .allowed_gpus = std::vector<int>{0, 1},
                                   .batch = BatchIds{"slurm", "1234", "0", 0}});
    ASSERT_TRUE(r.ok) << r.error;
    token = r.token;
    ASSERT_TRUE(Ask(*c, {.job = "plain", .priority = kOpportunistic}).ok);
    // No clean shutdown: the store is dropped as a killed process would leave it.
  }
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto c = Make(store.get(), Gpus(2), 50 * kSecond);
  ASSERT_EQ(c->jobs().count("step"), 1u);
  const BatchIds& b = c->jobs().at("step").batch;
  EXPECT_EQ(b.system, "slurm");
  EXPECT_EQ(b.job, "1234");
  EXPECT_EQ(b.step, "0");
  EXPECT_EQ(b.task, 0);
  EXPECT_EQ(c->jobs().at("step").token, token);
  EXPECT_TRUE(c->jobs().at("plain").batch.system.empty());

  const std::string snap = c->EncodeSnapshot(51 * kSecond, kUnix);
  const ReceivedMessage status(snap);
  const w::Envelope* e = status.envelope();
  ASSERT_NE(e, nullptr);
  ASSERT_NE(e->payload_as_StateSnapshot(), nullptr);
  const std::string json = cli::FormatStatusJson(*e->payload_as_StateSnapshot());
  EXPECT_NE(json.find("\"batch\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"system\": \"slurm\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"job\": \"1234\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"step\": \"0\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"task\": 0"), std::string::npos) << json;
  // Only the job that has batch ids has a "batch" key.
  EXPECT_EQ(json.find("\"batch\""), json.rfind("\"batch\"")) << json;
  const std::string table = cli::FormatStatusTable(*e->payload_as_StateSnapshot());
  EXPECT_NE(table.find("step [slurm 1234.0.0]"), std::string::npos) << table;
}

TEST_F(CoordinatorBatchTest, ReleaseNeedsTheJobsToken) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto c = Make(store.get());
  const PlaceResult r = Ask(
      *c,
      {.job = "step", .priority = kOpportunistic, .batch = BatchIds{"slurm", "9", "batch", -1}});
  ASSERT_TRUE(r.ok) << r.error;
  c->OnMessage(
      "shim",
      Bytes(Hello({.pid = 100, .job = "step", .priority = kOpportunistic, .token = r.token})),
      kSecond, kUnix, &out_);
  ASSERT_TRUE(c->jobs().at("step").connected);

  ReleaseResult rel = AskRelease(*c, "step", "0123456789abcdef0123456789abcdef");
  EXPECT_FALSE(rel.released);
  EXPECT_EQ(rel.message, "token does not match job 'step'");
  rel = AskRelease(*c, "step", "");
  EXPECT_FALSE(rel.released);
  EXPECT_EQ(rel.message, "token does not match job 'step'");
  EXPECT_EQ(c->jobs().count("step"), 1u);
  EXPECT_EQ(c->counters().release_refused, 2u);
  EXPECT_EQ(c->counters().refused_tokens, 2u);

  rel = AskRelease(*c, "step", r.token);
  EXPECT_TRUE(rel.released) << rel.message;
  EXPECT_EQ(c->jobs().count("step"), 0u);
  EXPECT_EQ(store->state().jobs.count("step"), 0u);
  EXPECT_EQ(c->counters().releases, 1u);

  rel = AskRelease(*c, "step", r.token);
  EXPECT_FALSE(rel.released);
  EXPECT_EQ(rel.message, "job 'step' is not known (already gone)");
  rel = AskRelease(*c, "never", r.token);
  EXPECT_EQ(rel.message, "job 'never' is not known (already gone)");
  EXPECT_EQ(c->counters().release_unknown, 2u);
  const std::string metrics = c->MetricsText(3 * kSecond);
  EXPECT_NE(metrics.find("iashim_releases_total{outcome=\"released\"} 1"), std::string::npos)
      << metrics;
}

TEST_F(CoordinatorBatchTest, AReleasedJobsEndingProcessDoesNotTakeItsNameFromItsRestart) {
  // Slurm requeues a job: the plugin releases it at once while its process
  // is still ending (SIGTERM's grace), and that process, no longer bound,
  // says Hello again. Seen live (j150): it took the name back, and the
  // job's restart a moment later was refused and failed.
  auto c = Make(nullptr);
  const PlaceSpec spec{.job = "slurm-18.batch.0",
                       .priority = kOpportunistic,
                       .batch = BatchIds{"slurm", "18", "batch", 0}};
  const PlaceResult first = Ask(*c, spec);
  ASSERT_TRUE(first.ok) << first.error;
  const std::string hello =
      Hello({.pid = 100, .job = spec.job, .priority = kOpportunistic, .token = first.token});
  c->OnMessage("old", Bytes(hello), kSecond, kUnix, &out_);
  ASSERT_TRUE(AskRelease(*c, spec.job, first.token).released);
  out_.clear();
  c->OnMessage("old", Bytes(hello), 3 * kSecond, kUnix, &out_);
  EXPECT_EQ(c->jobs().count(spec.job), 0u);
  ASSERT_EQ(out_.size(), 1u);
  const ReceivedMessage m(out_[0].bytes);
  ASSERT_NE(m.envelope(), nullptr);
  const w::Advice* advice = m.envelope()->payload_as_Advice();
  ASSERT_NE(advice, nullptr);
  EXPECT_EQ(advice->kind(), w::AdviceKind::Refused);
  // Its restart is placed under the name, and its new process connects.
  const PlaceResult again = Ask(*c, spec);
  ASSERT_TRUE(again.ok) << again.error;
  c->OnMessage(
      "new",
      Bytes(Hello({.pid = 200, .job = spec.job, .priority = kOpportunistic, .token = again.token})),
      4 * kSecond, kUnix, &out_);
  EXPECT_EQ(c->jobs().at(spec.job).pid, 200);
  // A name released long ago is a shim's to take again.
  ASSERT_TRUE(AskRelease(*c, spec.job, again.token).released);
  c->OnMessage("later", Bytes(Hello({.pid = 300, .job = spec.job, .priority = kOpportunistic})),
               70 * kSecond, kUnix, &out_);
  EXPECT_EQ(c->jobs().at(spec.job).pid, 300);
}

}  // namespace
}  // namespace iashim::daemon
