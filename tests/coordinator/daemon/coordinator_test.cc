// The coordinator's logic driven directly: messages in, messages out.
#include "coordinator/daemon/coordinator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "coordinator/daemon/wire_convert.h"
#include "coordinator/policy/simple_placement.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/daemon/daemon_messages.h"
#include "tests/coordinator/daemon/test_state_dir.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
using testing::Bytes;
using testing::Goodbye;
using testing::Gpus;
using testing::Hello;
using ::testing::IsEmpty;
using testing::kSecond;
using testing::kTick;
using testing::kUnix;
using testing::LastPlaceReply;
using testing::Place;
using testing::PlaceResult;
using testing::ReceivedMessage;
using ::testing::StartsWith;
using testing::Telemetry;

class CoordinatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestStateDir("iashim-coord-test");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Coordinator> Make(state::StateStore* store, int64_t now = 0,
                                    DaemonOptions options = {}) {
    return std::make_unique<Coordinator>(options, Gpus(1), store,
                                         std::make_unique<policy::SimplePlacement>(), now);
  }
  std::unique_ptr<state::StateStore> OpenStore() {
    auto s = state::StateStore::Open(dir_.string());
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  std::filesystem::path dir_;
  std::vector<Outgoing> out_;
};

TEST_F(CoordinatorTest, HelloRegistersAndGoodbyeRemoves) {
  auto c = Make(nullptr);
  c->OnMessage("shim-a", Bytes(Hello({.pid = 100, .job = "job-a"})), kSecond, kUnix, &out_);
  ASSERT_EQ(c->jobs().count("job-a"), 1u);
  EXPECT_TRUE(c->jobs().at("job-a").connected);
  // The node has one GPU: a shim nobody placed is on it.
  ASSERT_TRUE(c->jobs().at("job-a").gpu.has_value());
  c->OnMessage("shim-a", Bytes(Goodbye()), 2 * kSecond, kUnix, &out_);
  EXPECT_EQ(c->jobs().count("job-a"), 0u);
}

TEST_F(CoordinatorTest, AShimClaimingAnotherJobsIdIsRefused) {
  auto c = Make(nullptr);
  c->OnMessage("shim-a", Bytes(Hello({.pid = 100, .job = "train"})), kSecond, kUnix, &out_);
  out_.clear();
  c->OnMessage("shim-b", Bytes(Hello({.pid = 200, .job = "train"})), kSecond, kUnix, &out_);
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].identity, "shim-b");
  const ReceivedMessage reply(out_[0].bytes);
  const w::Envelope* e = reply.envelope();
  ASSERT_NE(e, nullptr);
  ASSERT_NE(e->payload_as_Advice(), nullptr);
  EXPECT_EQ(e->payload_as_Advice()->kind(), w::AdviceKind::Refused);
  EXPECT_EQ(c->jobs().at("train").pid, 100);  // the first owner keeps it
  EXPECT_EQ(c->counters().refused_claims, 1u);
  // Telemetry from the refused shim is not counted as the job's.
  out_.clear();
  c->OnMessage("shim-b", Bytes(Telemetry({.seq = 0, .start_ns = kSecond, .iteration_ms = 100})),
               2 * kSecond, kUnix, &out_);
  EXPECT_EQ(c->jobs().at("train").telemetry_batches, 0u);
}

TEST_F(CoordinatorTest, GarbageIsCountedAndDroppedWithoutHarm) {
  auto c = Make(nullptr);
  c->OnMessage("shim-a", Bytes(Hello({.pid = 100, .job = "job-a"})), kSecond, kUnix, &out_);
  const std::string good = Telemetry({.seq = 0, .start_ns = kSecond, .iteration_ms = 100});
  std::mt19937 rng(42);
  for (int i = 0; i < 100; ++i) {
    std::string m;
    switch (i % 4) {
      case 0:  // random bytes
        m.resize(rng() % 300);
        for (char& ch : m) ch = char(rng());
        break;
      case 1:  // a valid message, truncated
        m = good.substr(0, rng() % good.size());
        break;
      case 2: {  // a valid message with flipped bytes
        m = good;
        for (int k = 0; k < 4; ++k) m[rng() % m.size()] ^= char(1 + rng() % 255);
        break;
      }
      default: {  // wrong schema version
        flatbuffers::FlatBufferBuilder fbb;
        fbb.Finish(w::CreateEnvelope(fbb, static_cast<w::Version>(99), 1, w::Payload::Goodbye,
                                     w::CreateGoodbye(fbb, 1, 0).Union()));
        m.assign(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
      }
    }
    c->OnMessage("shim-a", Bytes(m), kSecond + i, kUnix, &out_);
  }
  const CoordinatorCounters& n = c->counters();
  EXPECT_EQ(n.messages, 101u);
  EXPECT_GE(n.invalid + n.wrong_version + n.unexpected + n.telemetry_batches, 50u);
  EXPECT_EQ(n.wrong_version, 25u);
  // The job is still there and still takes good telemetry.
  ASSERT_EQ(c->jobs().count("job-a"), 1u);
  c->OnMessage("shim-a", Bytes(Telemetry({.seq = 1, .start_ns = 3 * kSecond, .iteration_ms = 100})),
               4 * kSecond, kUnix, &out_);
  EXPECT_TRUE(c->jobs().at("job-a").connected);
}

// A union type without its table passes the FlatBuffers verifier; the
// coordinator_message fuzzer found a handler reading the missing table.
TEST_F(CoordinatorTest, APayloadTypeWithoutItsTableIsInvalid) {
  auto c = Make(nullptr);
  const w::Payload types[] = {w::Payload::Hello,        w::Payload::TelemetryBatch,
                              w::Payload::KernelNames,  w::Payload::Goodbye,
                              w::Payload::PlaceRequest, w::Payload::StatusRequest,
                              w::Payload::AdminRequest};
  for (w::Payload type : types) {
    flatbuffers::FlatBufferBuilder fbb;
    w::EnvelopeBuilder b(fbb);
    b.add_payload_type(type);
    fbb.Finish(b.Finish());
    const std::string m(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
    c->OnMessage(Sender{"tool", true}, Bytes(m), kSecond, kUnix, &out_);
  }
  EXPECT_EQ(c->counters().invalid, std::size(types));
  EXPECT_TRUE(out_.empty());
  EXPECT_TRUE(c->jobs().empty());
}

TEST_F(CoordinatorTest, SilentJobsAreDisconnectedThenForgotten) {
  DaemonOptions o;
  o.heartbeat_timeout_s = 3;
  o.forget_after_s = 10;
  auto c = Make(nullptr, 0, o);
  c->OnMessage("shim-a", Bytes(Hello({.pid = 100, .job = "job-a"})), kSecond, kUnix, &out_);
  c->OnTick(3 * kSecond, kUnix, &out_);
  EXPECT_TRUE(c->jobs().at("job-a").connected);
  c->OnTick(5 * kSecond, kUnix, &out_);
  EXPECT_FALSE(c->jobs().at("job-a").connected);
  c->OnTick(16 * kSecond, kUnix, &out_);
  EXPECT_EQ(c->jobs().count("job-a"), 0u);
}

TEST_F(CoordinatorTest, PlacementRepliesWithAJobAndAGpu) {
  auto c = Make(nullptr);
  c->OnMessage("cli", Bytes(Place({.job = "", .mem_bytes = 8ULL << 30})), kSecond, kUnix, &out_);
  ASSERT_EQ(out_.size(), 1u);
  const PlaceResult r = LastPlaceReply(out_);
  ASSERT_TRUE(r.replied);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.gpu, 0);
  EXPECT_EQ(r.mem_limit_bytes, 8ULL << 30);
  ASSERT_FALSE(r.job.empty());
  EXPECT_EQ(c->jobs().count(r.job), 1u);
  // Placed jobs are reserved: a second whole-GPU job must wait.
  out_.clear();
  c->OnMessage("cli", Bytes(Place({.job = "big", .mem_bytes = 0})), kSecond, kUnix, &out_);
  ASSERT_EQ(out_.size(), 1u);
  const PlaceResult big = LastPlaceReply(out_);
  ASSERT_TRUE(big.replied);
  EXPECT_FALSE(big.ok);
  EXPECT_TRUE(big.queued);
}

// The daemon's log says where a job went and why one waits, once: a queued
// `iashim run` asks again every few seconds. Dry runs (job_submit.lua's
// questions) place nothing and say nothing.
TEST_F(CoordinatorTest, TheEventLogSaysWhereAJobWentAndWhyOneWaitsOnce) {
  auto c = Make(nullptr);
  c->OnMessage("slurmctld", Bytes(Place({.job = "asked", .dry_run = true})), kSecond, kUnix, &out_);
  EXPECT_THAT(c->TakeEvents(kUnix), IsEmpty());
  c->OnMessage("cli", Bytes(Place({.job = "first", .mem_bytes = 0})), kSecond, kUnix, &out_);
  for (int i = 0; i < 3; ++i) {
    c->OnMessage("cli", Bytes(Place({.job = "big", .mem_bytes = 0})), kSecond, kUnix, &out_);
  }
  const std::vector<std::string> events = c->TakeEvents(kUnix);
  ASSERT_EQ(events.size(), 2u) << ::testing::PrintToString(events);
  EXPECT_THAT(events[0], StartsWith("placed first (guaranteed) on "));
  EXPECT_THAT(events[1], StartsWith("queued big (guaranteed): "));
}

// `iashim status --events`: the events the log wrote, with their time, all
// of them or one job's (those about it and those placing a job beside it);
// only when asked.
TEST_F(CoordinatorTest, StatusAskedForEventsShowsWhatTheLogWrote) {
  auto c = Make(nullptr);
  c->OnMessage("cli", Bytes(Place({.job = "first", .mem_bytes = 0})), kSecond, kUnix, &out_);
  c->OnMessage("cli", Bytes(Place({.job = "big", .mem_bytes = 0})), kSecond, kUnix, &out_);
  c->TakeEvents(kUnix + 7);
  const auto ask = [&](bool events, const std::string& of) {
    flatbuffers::FlatBufferBuilder fbb;
    const auto request = w::CreateStatusRequestDirect(fbb, false, events, of.c_str());
    out_.clear();
    const std::string message = EnvelopeBytes(fbb, w::Payload::StatusRequest, request.Union());
    c->OnMessage("cli", Bytes(message), kSecond, kUnix, &out_);
    EXPECT_EQ(out_.size(), 1u);
    return out_.empty() ? std::string() : out_[0].bytes;
  };
  const auto texts = [](const std::string& bytes) {
    const ReceivedMessage m(bytes);
    std::vector<std::string> found;
    const auto* events = m.envelope()->payload_as_StateSnapshot()->events();
    if (events == nullptr) return std::vector<std::string>{"(none)"};
    for (const w::LoggedEvent* e : *events) {
      EXPECT_EQ(e->unix_ns(), uint64_t(kUnix + 7));
      found.push_back(e->text()->str());
    }
    return found;
  };
  EXPECT_THAT(texts(ask(false, "")), ::testing::ElementsAre("(none)"));
  const std::vector<std::string> all = texts(ask(true, ""));
  ASSERT_EQ(all.size(), 2u);
  EXPECT_THAT(all[0], StartsWith("placed first (guaranteed) on "));
  EXPECT_THAT(all[1], StartsWith("queued big (guaranteed): "));
  const std::vector<std::string> big = texts(ask(true, "big"));
  ASSERT_EQ(big.size(), 1u);
  EXPECT_THAT(big[0], StartsWith("queued big"));
  EXPECT_THAT(texts(ask(true, "nobody")), IsEmpty());
}

TEST_F(CoordinatorTest, RestartKeepsJobsAndAsksUnknownShimsToSayHello) {
  std::string guard_token;
  {
    auto store = OpenStore();
    auto c = Make(store.get());
    c->OnMessage("cli", Bytes(Place({.job = "guard"})), kSecond, kUnix, &out_);
    guard_token = LastPlaceReply(out_).token;
    c->OnMessage("cli", Bytes(Place({.job = "filler", .priority = w::Priority::Opportunistic})),
                 kSecond, kUnix, &out_);
    const std::string filler_token = LastPlaceReply(out_).token;
    c->OnMessage("shim-g", Bytes(Hello({.pid = 100, .job = "guard", .token = guard_token})),
                 kSecond, kUnix, &out_);
    c->OnMessage("shim-f",
                 Bytes(Hello({.pid = 200,
                              .job = "filler",
                              .priority = w::Priority::Opportunistic,
                              .token = filler_token})),
                 kSecond, kUnix, &out_);
    EXPECT_EQ(c->counters().refused_claims, 0u);
    ASSERT_EQ(c->jobs().size(), 2u);
    // No clean shutdown: the store is dropped as a killed process would leave it.
  }
  auto store = OpenStore();
  auto c = Make(store.get(), 50 * kSecond);
  ASSERT_EQ(c->jobs().size(), 2u);
  EXPECT_EQ(c->jobs().at("filler").priority, policy::Priority::kOpportunistic);
  EXPECT_EQ(c->jobs().at("guard").pid, 100);
  EXPECT_FALSE(c->jobs().at("guard").connected);
  // The shim's connection is new to this coordinator: its telemetry gets a
  // SendHello advice, and its Hello binds it to its job again.
  out_.clear();
  c->OnMessage("shim-g",
               Bytes(Telemetry({.seq = 7, .start_ns = 50 * kSecond, .iteration_ms = 100})),
               50 * kSecond, kUnix, &out_);
  ASSERT_EQ(out_.size(), 1u);
  const ReceivedMessage advice(out_[0].bytes);
  const w::Envelope* e = advice.envelope();
  ASSERT_NE(e->payload_as_Advice(), nullptr);
  EXPECT_EQ(e->payload_as_Advice()->kind(), w::AdviceKind::SendHello);
  c->OnMessage("shim-g", Bytes(Hello({.pid = 100, .job = "guard", .token = guard_token})),
               50 * kSecond, kUnix, &out_);
  EXPECT_TRUE(c->jobs().at("guard").connected);
}

// The guaranteed job slows down while the opportunistic one runs at share 1:
// the control loop sends the opportunistic job smaller shares.
TEST_F(CoordinatorTest, ControlLoopCutsTheOpportunisticShareWhenTheGuaranteedJobSuffers) {
  auto c = Make(nullptr);
  c->OnMessage("cli", Bytes(Place({.job = "guard"})), 0, kUnix, &out_);
  c->OnMessage("shim-g",
               Bytes(Hello({.pid = 100, .job = "guard", .token = LastPlaceReply(out_).token})), 0,
               kUnix, &out_);
  int64_t t = 0;
  // Alone: 100 ms iterations (the solo baseline).
  for (uint64_t seq = 0; seq < 30; ++seq, t += kTick) {
    c->OnMessage("shim-g", Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = 100})), t,
                 kUnix, &out_);
    c->OnTick(t, kUnix + t, &out_);
  }
  ASSERT_TRUE(c->jobs().at("guard").profile.baseline_iteration_ns().has_value());
  c->OnMessage("cli", Bytes(Place({.job = "filler", .priority = w::Priority::Opportunistic})), t,
               kUnix, &out_);
  c->OnMessage("shim-f",
               Bytes(Hello({.pid = 200,
                            .job = "filler",
                            .priority = w::Priority::Opportunistic,
                            .token = LastPlaceReply(out_).token})),
               t, kUnix, &out_);
  // Together: 150 ms iterations, 50% slower.
  double last_share = 1.0;
  int budgets = 0;
  for (uint64_t seq = 30; seq < 130; ++seq, t += kTick) {
    out_.clear();
    c->OnMessage("shim-g", Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = 150})), t,
                 kUnix + t, &out_);
    c->OnMessage(
        "shim-f",
        Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = 50, .share = last_share})), t,
        kUnix + t, &out_);
    c->OnTick(t, kUnix + t, &out_);
    for (const Outgoing& o : out_) {
      const ReceivedMessage m(o.bytes);
      const w::Envelope* e = m.envelope();
      if (e == nullptr || e->payload_as_Budget() == nullptr) continue;
      EXPECT_EQ(o.identity, "shim-f");
      EXPECT_EQ(e->payload_as_Budget()->priority(), w::Priority::Opportunistic);
      EXPECT_GT(e->payload_as_Budget()->ttl_ms(), 0u);
      last_share = e->payload_as_Budget()->share();
      ++budgets;
    }
  }
  EXPECT_GT(budgets, 0);
  EXPECT_LT(last_share, 0.5);
}

// Two jobs on one GPU whose shims report its energy counter rising 250 J/s:
// each is attributed half (same GPU time), 12.5 J per 100 ms iteration, and
// the GPU shows 250 W, in the snapshot and the metrics.
TEST_F(CoordinatorTest, EachGpusEnergyIsSplitAmongItsJobsByGpuTime) {
  auto c = Make(nullptr, 0, DaemonOptions{.control = false});
  for (const char* job : {"job-a", "job-b"}) {
    c->OnMessage("cli", Bytes(Place({.job = job})), 0, kUnix, &out_);
    c->OnMessage(std::string("shim-") + job,
                 Bytes(Hello({.pid = job[4] == 'a' ? 100 : 200,
                              .job = job,
                              .token = LastPlaceReply(out_).token})),
                 0, kUnix, &out_);
  }
  int64_t t = 0;
  for (uint64_t seq = 0; seq < 100; ++seq, t += kTick) {
    const double counter = 1000 + 250.0 * double(t) / kSecond;
    for (const char* shim : {"shim-job-a", "shim-job-b"}) {
      c->OnMessage(shim, Bytes(Telemetry({.seq = seq, .start_ns = t, .gpu_energy_j = counter})),
                   t, kUnix + t, &out_);
    }
    c->OnTick(t, kUnix + t, &out_);
  }
  const std::string snap = c->EncodeSnapshot(t, kUnix + t);
  const ReceivedMessage snapshot(snap);
  const w::StateSnapshot* s = snapshot.envelope()->payload_as_StateSnapshot();
  ASSERT_NE(s, nullptr);
  const w::GpuState* gpu = s->gpus()->Get(0);
  EXPECT_NEAR(gpu->power_w(), 250.0, 1.0);
  ASSERT_EQ(gpu->jobs()->size(), 2u);
  for (const w::JobState* job : *gpu->jobs()) {
    // Attributed at control ticks, each second from the first with a
    // reading (t = 0) to the last (t = 9 s): 2,250 J, half each.
    EXPECT_NEAR(job->energy_j(), 1125.0, 1.0) << job->job()->str();
    EXPECT_NEAR(job->energy_per_iteration_j(), 12.5, 0.1) << job->job()->str();
  }
  const std::string metrics = c->MetricsText(t);
  EXPECT_NE(metrics.find("iashim_job_energy_joules{job=\"job-a\""), std::string::npos);
  EXPECT_NE(metrics.find("iashim_job_energy_per_iteration_joules{job=\"job-b\""),
            std::string::npos);
}

TEST_F(CoordinatorTest, SnapshotListsGpusAndJobs) {
  auto c = Make(nullptr);
  c->OnMessage("shim-a", Bytes(Hello({.pid = 100, .job = "job-a"})), kSecond, kUnix, &out_);
  const std::string snap = c->EncodeSnapshot(2 * kSecond, kUnix);
  const ReceivedMessage snapshot(snap);
  const w::Envelope* e = snapshot.envelope();
  ASSERT_NE(e, nullptr);
  const w::StateSnapshot* s = e->payload_as_StateSnapshot();
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->gpus()->size(), 1u);
  ASSERT_EQ(s->gpus()->Get(0)->jobs()->size(), 1u);
  EXPECT_EQ(s->gpus()->Get(0)->jobs()->Get(0)->job()->str(), "job-a");
  EXPECT_NE(c->MetricsText(2 * kSecond).find("iashim_jobs{state=\"connected\"} 1"),
            std::string::npos);
}

}  // namespace
}  // namespace iashim::daemon
