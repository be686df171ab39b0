// Gangs in the live coordinator: a PlaceRequest for several GPUs placed on
// GPUs of one node (the policy library's best fit), queued or refused as a
// whole, released as a whole and restored after a restart; and a gang's
// processes told apart by rank, each with its own rates, the gang running at
// its slowest rank's. Driven through Coordinator::OnMessage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/wire/kernel_id.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/policy/simple_placement.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/daemon/daemon_messages.h"
#include "tests/coordinator/daemon/test_state_dir.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
using ::testing::AllOf;
using testing::Bytes;
using ::testing::Contains;
using ::testing::ElementsAre;
using testing::Goodbye;
using testing::Gpus;
using ::testing::HasSubstr;
using testing::Hello;
using ::testing::IsEmpty;
using testing::KernelNames;
using testing::kSecond;
using testing::kTick;
using testing::kUnix;
using testing::LastPlaceReply;
using testing::Place;
using testing::PlaceResult;
using testing::PlaceSpec;
using testing::ReceivedMessage;
using testing::Release;
using ::testing::StartsWith;
using testing::Telemetry;

// node1 with four GPUs, node2 with two: best fit puts a gang of two on node2.
policy::Cluster FourAndTwo() {
  policy::Cluster cluster = Gpus(4);
  for (int i = 0; i < 2; ++i) {
    cluster.gpus.push_back({{"node2", i}, "v100", "Tesla V100", "GPU-n2-" + std::to_string(i),
                            uint64_t{32} << 30});
  }
  return cluster;
}

class CoordinatorGangTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestStateDir("iashim-coord-gang-test");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The daemon's own placement (InterferenceAwarePlacement over its model).
  std::unique_ptr<Coordinator> Make(policy::Cluster cluster, state::StateStore* store = nullptr,
                                    int64_t now = 0) {
    return std::make_unique<Coordinator>(DaemonOptions{}, std::move(cluster), store, nullptr, now);
  }
  std::unique_ptr<state::StateStore> OpenStore() {
    auto s = state::StateStore::Open(dir_.string());
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  PlaceResult Ask(Coordinator& c, PlaceSpec spec, int64_t now = kSecond) {
    out_.clear();
    c.OnMessage("cli", Bytes(Place(spec)), now, kUnix + now, &out_);
    EXPECT_EQ(out_.size(), 1u);
    const PlaceResult r = LastPlaceReply(out_);
    if (!r.replied) ADD_FAILURE() << "no PlaceReply";
    return r;
  }

  // A Hello from `shim`; the Advice it got back, if any ("" when none).
  std::string SayHello(Coordinator& c, const std::string& shim, testing::HelloSpec spec) {
    out_.clear();
    c.OnMessage(shim, Bytes(Hello(spec)), kSecond, kUnix, &out_);
    for (const Outgoing& o : out_) {
      const ReceivedMessage m(o.bytes);
      if (m.envelope() && m.envelope()->payload_as_Advice()) {
        const auto* text = m.envelope()->payload_as_Advice()->text();
        return text ? text->str() : "";
      }
    }
    return "";
  }

  std::filesystem::path dir_;
  std::vector<Outgoing> out_;
};

TEST_F(CoordinatorGangTest, AGangGetsItsGpusOnOneNodeByBestFit) {
  auto c = Make(FourAndTwo());
  const PlaceResult r = Ask(*c, {.job = "ddp", .mem_bytes = 0, .host = "", .gpus = 2});
  ASSERT_TRUE(r.ok) << r.error;
  // node2 has the fewest empty GPUs that still has two: node1 stays whole.
  EXPECT_EQ(r.host, "node2");
  EXPECT_THAT(r.gpu_indices, ElementsAre(0, 1));
  EXPECT_THAT(r.gpu_uuids, ElementsAre("GPU-n2-0", "GPU-n2-1"));
  // The first GPU is also where a client from before gangs looks.
  EXPECT_EQ(r.gpu, 0);
  const Job& job = c->jobs().at("ddp");
  ASSERT_EQ(job.gang_gpus.size(), 2u);
  EXPECT_EQ(job.gang_gpus[1], (policy::GpuId{"node2", 1}));
  EXPECT_EQ(*job.gpu, (policy::GpuId{"node2", 0}));

  const PlaceResult four = Ask(*c, {.job = "big", .mem_bytes = 0, .host = "", .gpus = 4});
  ASSERT_TRUE(four.ok) << four.error;
  EXPECT_EQ(four.host, "node1");
  EXPECT_THAT(four.gpu_indices, ElementsAre(0, 1, 2, 3));
  // The daemon's log names each gang's node once, and its GPUs.
  EXPECT_THAT(c->TakeEvents(kUnix),
              ElementsAre(StartsWith("placed ddp (guaranteed, 2 GPUs) on node2:0,1"),
                          StartsWith("placed big (guaranteed, 4 GPUs) on node1:0,1,2,3")));
}

TEST_F(CoordinatorGangTest, AOneGpuJobsReplyListsItsOneGpu) {
  auto c = Make(Gpus(2));
  const PlaceResult r = Ask(*c, {.job = "solo"});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.gpu_indices, ElementsAre(r.gpu));
  EXPECT_THAT(r.gpu_uuids, ElementsAre("GPU-" + std::to_string(r.gpu + 1)));
  EXPECT_TRUE(c->jobs().at("solo").gang_gpus.empty());
}

TEST_F(CoordinatorGangTest, AGangWaitsForEnoughGpusOfOneNode) {
  auto c = Make(Gpus(4));
  ASSERT_TRUE(Ask(*c, {.job = "whole", .mem_bytes = 0}).ok);  // one GPU, all of it
  const PlaceResult r = Ask(*c, {.job = "ddp", .mem_bytes = 0, .gpus = 4});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.queued) << r.error;
  EXPECT_FALSE(c->jobs().contains("ddp"));
  // Three GPUs are still free: a gang of three fits now.
  const PlaceResult three = Ask(*c, {.job = "ddp3", .mem_bytes = 0, .gpus = 3});
  ASSERT_TRUE(three.ok) << three.error;
  EXPECT_THAT(three.gpu_indices,
              ::testing::Not(::testing::Contains(c->jobs().at("whole").gpu->index)));
  // Every GPU is held now: a one-GPU job waits too.
  EXPECT_TRUE(Ask(*c, {.job = "late", .mem_bytes = 0}).queued);
}

TEST_F(CoordinatorGangTest, AGangNoNodeCanHoldIsRefusedSayingSo) {
  auto c = Make(FourAndTwo());
  const PlaceResult r = Ask(*c, {.job = "huge", .host = "", .gpus = 8});
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.queued);
  // Wider than any node: whole nodes of 4, of which the cluster has one.
  EXPECT_THAT(r.error, HasSubstr("a job of 8 GPUs needs 2 whole nodes of 4"));
  EXPECT_THAT(r.error, HasSubstr("the cluster has 1"));
  // Out of range: refused before placement, naming the field.
  const PlaceResult bad = Ask(*c, {.job = "bad", .gpus = 65});
  EXPECT_FALSE(bad.ok);
  EXPECT_THAT(bad.error, HasSubstr("gpus must be 1..64"));
}

TEST_F(CoordinatorGangTest, AllowedGpusLimitAGangsChoice) {
  auto c = Make(Gpus(4));
  const PlaceResult r = Ask(
      *c, {.job = "step", .mem_bytes = 0, .allowed_gpus = std::vector<int>{1, 3}, .gpus = 2});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.gpu_indices, ElementsAre(1, 3));
  // Both allowed GPUs are taken now: the next gang on them waits.
  const PlaceResult again = Ask(
      *c, {.job = "step2", .mem_bytes = 0, .allowed_gpus = std::vector<int>{1, 3}, .gpus = 2});
  EXPECT_TRUE(again.queued) << again.error;
}

// Slurm 22.05 gives a gang's gpu:k GPUs whose shards are in use and starts
// no shard job there until the gang ends: waiting for them to empty would
// hold them idle. The gang starts beside the jobs there, in the memory they
// leave, under the control loop.
TEST_F(CoordinatorGangTest, AGangOnTheGpusSlurmGaveItStartsBesideTheJobsThere) {
  auto c = Make(Gpus(4));
  const uint64_t shard = uint64_t{8} << 30;
  ASSERT_TRUE(Ask(*c, {.job = "shard",
                       .priority = w::Priority::Opportunistic,
                       .mem_bytes = shard,
                       .allowed_gpus = std::vector<int>{1}})
                  .ok);
  const PlaceResult gang =
      Ask(*c, {.job = "gang", .mem_bytes = 0, .allowed_gpus = std::vector<int>{0, 1}, .gpus = 2});
  ASSERT_TRUE(gang.ok) << gang.error;
  EXPECT_THAT(gang.gpu_indices, ElementsAre(0, 1));
  EXPECT_THAT(gang.error, HasSubstr("the scheduler's GPUs node1:0, node1:1, beside shard"));
  // What the shard job leaves of GPU 1 (32 GiB), not the whole GPU.
  EXPECT_EQ(gang.mem_limit_bytes, (uint64_t{32} << 30) - shard);
  // It holds them whole: nothing else joins while it runs.
  EXPECT_TRUE(Ask(*c, {.job = "late",
                       .priority = w::Priority::Opportunistic,
                       .mem_bytes = shard,
                       .allowed_gpus = std::vector<int>{1}})
                  .queued);
  // On empty GPUs it holds them whole, no quota, as before.
  const PlaceResult alone =
      Ask(*c, {.job = "gang2", .mem_bytes = 0, .allowed_gpus = std::vector<int>{2, 3}, .gpus = 2});
  ASSERT_TRUE(alone.ok) << alone.error;
  EXPECT_EQ(alone.mem_limit_bytes, 0u);
}

// A gang that states its memory (--iashim-mem) joins the GPUs Slurm gave it
// in that much of what their jobs leave, and waits where less is left.
TEST_F(CoordinatorGangTest, AGangStatingItsMemoryStartsBesideTheJobsWhereThatMuchIsLeft) {
  auto c = Make(Gpus(4));
  ASSERT_TRUE(Ask(*c, {.job = "shard",
                       .priority = w::Priority::Opportunistic,
                       .mem_bytes = uint64_t{24} << 30,
                       .allowed_gpus = std::vector<int>{1}})
                  .ok);
  const PlaceResult big = Ask(*c, {.job = "big",
                                   .mem_bytes = uint64_t{12} << 30,
                                   .allowed_gpus = std::vector<int>{0, 1},
                                   .gpus = 2});
  EXPECT_TRUE(big.queued);
  EXPECT_THAT(big.error, HasSubstr("node1:1 has 8.0 GiB free of 32.0 GiB"));
  const PlaceResult fits = Ask(*c, {.job = "fits",
                                    .mem_bytes = uint64_t{8} << 30,
                                    .allowed_gpus = std::vector<int>{0, 1},
                                    .gpus = 2});
  ASSERT_TRUE(fits.ok) << fits.error;
  EXPECT_THAT(fits.gpu_indices, ElementsAre(0, 1));
  EXPECT_THAT(fits.error, HasSubstr("the scheduler's GPUs node1:0, node1:1, beside shard"));
  EXPECT_EQ(fits.mem_limit_bytes, uint64_t{8} << 30);  // what it asked
}

// Two targets cannot both be defended: a guaranteed gang Slurm puts beside
// a guaranteed job runs there, rather than hold its GPUs idle, and neither
// is held for the other (it once yielded, held as an opportunistic gang
// until the job ended); status names the job it is beside until then.
TEST_F(CoordinatorGangTest, AGuaranteedGangBesideAGuaranteedJobIsHeldForNeither) {
  auto c = Make(Gpus(4));
  const PlaceResult g = Ask(*c, {.job = "g", .allowed_gpus = std::vector<int>{0}});
  ASSERT_TRUE(g.ok) << g.error;
  const PlaceResult gang =
      Ask(*c, {.job = "gang", .mem_bytes = 0, .allowed_gpus = std::vector<int>{0, 1}, .gpus = 2});
  ASSERT_TRUE(gang.ok) << gang.error;
  EXPECT_THAT(gang.error, HasSubstr("beside guaranteed g: neither held for the other"));
  EXPECT_DOUBLE_EQ(gang.share, 1.0);  // not cut for g
  const Job& placed = c->jobs().at("gang");
  EXPECT_THAT(c->GuaranteedBeside(placed), ElementsAre("g"));
  EXPECT_EQ(placed.priority, policy::Priority::kGuaranteed);
  c->OnTick(1 * kSecond, kUnix + 1 * kSecond, &out_);
  EXPECT_DOUBLE_EQ(c->jobs().at("gang").sent_share, 1.0);
  c->OnMessage("slurm", Bytes(Release("g", g.token)), 2 * kSecond, kUnix + 2 * kSecond, &out_);
  ASSERT_FALSE(c->jobs().contains("g"));
  c->OnTick(3 * kSecond, kUnix + 3 * kSecond, &out_);
  EXPECT_TRUE(c->GuaranteedBeside(c->jobs().at("gang")).empty());
}

TEST_F(CoordinatorGangTest, AGangTheCoordinatorPlacesStillWaitsForWholeGpus) {
  auto c = Make(Gpus(4));
  ASSERT_TRUE(Ask(*c, {.job = "shard",
                       .priority = w::Priority::Opportunistic,
                       .allowed_gpus = std::vector<int>{1}})
                  .ok);
  // No GPUs given (`iashim run --gpus 4`), or more allowed than asked: the
  // coordinator's choice, whole GPUs.
  EXPECT_TRUE(Ask(*c, {.job = "run", .mem_bytes = 0, .gpus = 4}).queued);
  EXPECT_THAT(
      Ask(*c,
          {.job = "more", .mem_bytes = 0, .allowed_gpus = std::vector<int>{0, 1, 2, 3}, .gpus = 3})
          .gpu_indices,
      ElementsAre(0, 2, 3));
}

// The coordinator's rules still hold on the GPUs Slurm gave: a gang joins
// in the memory their jobs leave. While such a gang waits, no job the
// coordinator places (a dry run's reservation neither) takes its GPUs: that
// would only make it wait longer.
TEST_F(CoordinatorGangTest, AWaitingGangsGpusAreKeptForIt) {
  const auto with_guaranteed_on_0 = [&] {
    auto c = Make(Gpus(4));
    EXPECT_TRUE(Ask(*c, {.job = "g", .mem_bytes = 0, .allowed_gpus = std::vector<int>{0}}).ok);
    return c;
  };
  const PlaceSpec free_job = {.job = "free", .priority = w::Priority::Opportunistic};
  // Without a waiting gang, the coordinator's job takes empty GPU 1.
  EXPECT_THAT(Ask(*with_guaranteed_on_0(), free_job).gpu_indices, ElementsAre(1));

  auto c = with_guaranteed_on_0();
  const PlaceSpec gang_spec = {
      .job = "gang", .mem_bytes = 0, .allowed_gpus = std::vector<int>{0, 1}, .gpus = 2};
  const PlaceResult gang = Ask(*c, gang_spec);
  EXPECT_TRUE(gang.queued) << gang.error;
  EXPECT_THAT(gang.error, HasSubstr("the GPUs the scheduler gave it cannot take it yet"));
  EXPECT_THAT(gang.error, HasSubstr("who leave it no memory"));
  PlaceSpec dry = free_job;
  dry.job = "dry";
  dry.host = "";
  dry.dry_run = true;
  const PlaceResult d = Ask(*c, dry);
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_THAT(d.gpu_indices, ElementsAre(2));
  // The real request takes over the dry run's reservation; again not GPU 1.
  EXPECT_THAT(Ask(*c, free_job).gpu_indices, ElementsAre(2));
  EXPECT_THAT(Ask(*c, {.job = "next", .priority = w::Priority::Opportunistic}).gpu_indices,
              ElementsAre(3));
  // Slurm's own decision (allowed_gpus) is not the coordinator's to refuse.
  EXPECT_TRUE(Ask(*c, {.job = "slurm",
                       .priority = w::Priority::Opportunistic,
                       .allowed_gpus = std::vector<int>{1}})
                  .ok);
  // A gang that stops asking (cancelled) gives its claim up after 10 s.
  auto later = with_guaranteed_on_0();
  EXPECT_TRUE(Ask(*later, gang_spec).queued);
  EXPECT_THAT(Ask(*later, free_job, 5 * kSecond).gpu_indices, ElementsAre(2));
  EXPECT_THAT(Ask(*later, {.job = "free2", .priority = w::Priority::Opportunistic}, 12 * kSecond)
                  .gpu_indices,
              ElementsAre(1));
}

// --join-busy-gpus: with no node empty enough, a whole-GPU gang goes where
// sharing is predicted to gain most, as Slurm 22.05 would start it on busy
// GPUs anyway (job_submit.lua's dry run names that node).
TEST_F(CoordinatorGangTest, WithJoinBusyGpusAGangGoesWhereSharingGainsMost) {
  DaemonOptions options;
  options.join_busy_gpus = true;
  Coordinator c(options, FourAndTwo(), nullptr, nullptr, 0);
  const auto one = [&](const std::string& job, const std::string& host, int gpu, w::Priority p) {
    PlaceSpec spec{.job = job, .priority = p, .host = host, .allowed_gpus = std::vector<int>{gpu}};
    ASSERT_TRUE(Ask(c, spec).ok) << job;
  };
  for (int g = 0; g < 4; ++g) one("o" + std::to_string(g), "node1", g, w::Priority::Opportunistic);
  one("guaranteed", "node2", 0, w::Priority::Guaranteed);
  one("o-node2", "node2", 1, w::Priority::Opportunistic);
  // An opportunistic gang beside the guaranteed job would be cut to keep
  // it within its target: node1's jobs, all opportunistic, lose less.
  const PlaceResult dry = Ask(c, {.job = "gang",
                                  .priority = w::Priority::Opportunistic,
                                  .mem_bytes = 0,
                                  .host = "",
                                  .dry_run = true,
                                  .gpus = 2});
  ASSERT_TRUE(dry.ok) << dry.error;
  EXPECT_EQ(dry.host, "node1");
  EXPECT_THAT(dry.error, HasSubstr("no node on the cluster has 2 empty GPUs"));
  const PlaceResult real = Ask(c, {.job = "run",
                                   .priority = w::Priority::Opportunistic,
                                   .mem_bytes = 0,
                                   .host = "",
                                   .gpus = 2});
  ASSERT_TRUE(real.ok) << real.error;
  EXPECT_EQ(real.host, "node1");
  EXPECT_EQ(real.mem_limit_bytes, (uint64_t{32} << 30) - (uint64_t{4} << 30));
  // Without it, the coordinator's gang waits for empty GPUs.
  auto plain = Make(FourAndTwo());
  ASSERT_TRUE(Ask(*plain, {.job = "o", .allowed_gpus = std::vector<int>{0}}).ok);
  EXPECT_TRUE(Ask(*plain, {.job = "gang", .mem_bytes = 0, .host = "node1", .gpus = 4}).queued);
}

TEST_F(CoordinatorGangTest, ADryRunSaysWhereAGangWouldGoAndHoldsNothing) {
  auto c = Make(Gpus(4));
  const PlaceResult r = Ask(*c, {.job = "ddp", .mem_bytes = 0, .dry_run = true, .gpus = 4});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.dry_run);
  EXPECT_THAT(r.gpu_indices, ElementsAre(0, 1, 2, 3));
  EXPECT_TRUE(r.token.empty());
  EXPECT_TRUE(c->jobs().empty());
  EXPECT_TRUE(Ask(*c, {.job = "ddp", .mem_bytes = 0, .gpus = 4}).ok);
}

TEST_F(CoordinatorGangTest, ReleaseFreesEveryGpuOfTheGang) {
  auto c = Make(Gpus(4));
  const PlaceResult r = Ask(*c, {.job = "ddp", .mem_bytes = 0, .gpus = 4});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(Ask(*c, {.job = "one", .mem_bytes = 0}).queued);
  out_.clear();
  c->OnMessage("slurm", Bytes(Release("ddp", r.token)), kSecond, kUnix, &out_);
  EXPECT_TRUE(c->jobs().empty());
  EXPECT_TRUE(Ask(*c, {.job = "again", .mem_bytes = 0, .gpus = 4}).ok);
}

TEST_F(CoordinatorGangTest, AGangsGpusSurviveARestart) {
  std::string token;
  {
    auto store = OpenStore();
    ASSERT_NE(store, nullptr);
    auto c = Make(Gpus(4), store.get());
    const PlaceResult r = Ask(*c, {.job = "ddp", .mem_bytes = 0, .gpus = 3});
    ASSERT_TRUE(r.ok) << r.error;
    token = r.token;
    // No clean shutdown: the store is dropped as a killed process would leave it.
  }
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto c = Make(Gpus(4), store.get(), 50 * kSecond);
  ASSERT_TRUE(c->jobs().contains("ddp"));
  const Job& job = c->jobs().at("ddp");
  ASSERT_EQ(job.gang_gpus.size(), 3u);
  EXPECT_EQ(*job.gpu, job.gang_gpus[0]);
  EXPECT_EQ(job.token, token);
  // Its three GPUs are still held: only one GPU is left for a new job.
  EXPECT_TRUE(Ask(*c, {.job = "pair", .mem_bytes = 0, .gpus = 2}).queued);
  EXPECT_TRUE(Ask(*c, {.job = "one", .mem_bytes = 0}).ok);
  // And its ranks can say Hello with the token it had.
  EXPECT_EQ(SayHello(*c, "shim-0", {.pid = 10, .job = "ddp", .token = token}), "");
  EXPECT_TRUE(c->jobs().at("ddp").connected);
}

class GangRanksTest : public CoordinatorGangTest {
 protected:
  void SetUp() override {
    CoordinatorGangTest::SetUp();
    c_ = Make(Gpus(4));
    const PlaceResult r = Ask(*c_, {.job = "ddp", .mem_bytes = 0, .gpus = 2});
    ASSERT_TRUE(r.ok) << r.error;
    token_ = r.token;
  }

  const w::JobState* OnlyJob(const w::StateSnapshot& s) {
    const w::JobState* found = nullptr;
    for (const w::GpuState* g : *s.gpus()) {
      for (const w::JobState* j : *g->jobs()) {
        EXPECT_EQ(found, nullptr) << "listed twice";
        found = j;
      }
    }
    return found;
  }

  // A guaranteed job, "guard" (shim "shim-g"), on `guard_gpu` (-1: where it
  // is placed), and an opportunistic gang, "opp", on both GPUs of a two-GPU
  // node, its ranks 0 and 1 the shims "shim-o0" and "shim-o1".
  std::unique_ptr<Coordinator> GuardBesideAnOpportunisticGang(int guard_gpu = -1) {
    auto c = Make(Gpus(2));
    const PlaceResult guard =
        Ask(*c, {.job = "guard", .mem_bytes = uint64_t{4} << 30, .gpu = guard_gpu});
    EXPECT_TRUE(guard.ok) << guard.error;
    SayHello(*c, "shim-g", {.pid = 1, .job = "guard", .token = guard.token});
    const PlaceResult gang = Ask(*c, {.job = "opp",
                                      .priority = w::Priority::Opportunistic,
                                      .mem_bytes = uint64_t{4} << 30,
                                      .gpus = 2});
    EXPECT_TRUE(gang.ok) << gang.error;
    for (int rank : {0, 1}) {
      SayHello(*c, "shim-o" + std::to_string(rank),
               {.pid = 2 + rank,
                .job = "opp",
                .priority = w::Priority::Opportunistic,
                .token = gang.token,
                .rank = rank});
    }
    return c;
  }

  // One control period: the guard iterates in 100 ms for its first 40 (its
  // solo speed), then in 200 ms; the gang's ranks report too if `gang_reports`.
  void GuardSlowsBesideTheGang(Coordinator& c, uint64_t seq, int64_t t, bool gang_reports) {
    const double iteration_ms = seq < 40 ? 100 : 200;
    c.OnMessage("shim-g",
                Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = iteration_ms})), t,
                kUnix + t, &out_);
    if (gang_reports) {
      for (const char* shim : {"shim-o0", "shim-o1"}) {
        c.OnMessage(shim, Bytes(Telemetry({.seq = seq, .start_ns = t})), t, kUnix + t, &out_);
      }
    }
    c.OnTick(t, kUnix + t, &out_);
  }

  std::unique_ptr<Coordinator> c_;
  std::string token_;
};

TEST_F(GangRanksTest, ProcessesWithoutARankAreNumberedInOrderOfArrival) {
  EXPECT_EQ(SayHello(*c_, "shim-a", {.pid = 10, .job = "ddp", .token = token_}), "");
  EXPECT_EQ(SayHello(*c_, "shim-b", {.pid = 11, .job = "ddp", .token = token_}), "");
  const Job& job = c_->jobs().at("ddp");
  ASSERT_EQ(job.ranks.size(), 2u);
  EXPECT_EQ(job.ranks.at(0).pid, 10);
  EXPECT_EQ(job.ranks.at(1).pid, 11);
  EXPECT_EQ(job.pid, 10);  // the lead: the lowest connected rank
  // A third process has no rank left.
  EXPECT_THAT(SayHello(*c_, "shim-c", {.pid = 12, .job = "ddp", .token = token_}),
              HasSubstr("already has a live process for each of its 2 ranks"));
  // A reconnect keeps its rank.
  EXPECT_EQ(SayHello(*c_, "shim-b2", {.pid = 11, .job = "ddp", .token = token_}), "");
  EXPECT_EQ(c_->jobs().at("ddp").ranks.at(1).identity, "shim-b2");
}

TEST_F(GangRanksTest, ARankSaidIsKeptAndCheckedAgainstTheGang) {
  EXPECT_EQ(SayHello(*c_, "shim-1", {.pid = 11, .job = "ddp", .token = token_, .rank = 1}), "");
  EXPECT_EQ(SayHello(*c_, "shim-0", {.pid = 10, .job = "ddp", .token = token_, .rank = 0}), "");
  EXPECT_EQ(c_->jobs().at("ddp").ranks.at(1).pid, 11);
  EXPECT_THAT(SayHello(*c_, "shim-x", {.pid = 12, .job = "ddp", .token = token_, .rank = 1}),
              HasSubstr("rank 1 of job 'ddp' belongs to pid 11"));
  EXPECT_THAT(SayHello(*c_, "shim-y", {.pid = 13, .job = "ddp", .token = token_, .rank = 2}),
              HasSubstr("rank 2 is not a rank of job 'ddp' (a gang of 2 GPUs: ranks 0..1)"));
  // The token is checked first, as for any job.
  EXPECT_THAT(SayHello(*c_, "shim-z", {.pid = 14, .job = "ddp", .rank = 0}), HasSubstr("token"));
}

TEST_F(GangRanksTest, EachRankHasItsRateAndTheGangRunsAtItsSlowest) {
  SayHello(*c_, "shim-0", {.pid = 10, .job = "ddp", .token = token_});
  SayHello(*c_, "shim-1", {.pid = 11, .job = "ddp", .token = token_});
  int64_t t = kSecond;
  for (uint64_t seq = 0; seq < 30; ++seq, t += kTick) {
    c_->OnMessage("shim-0", Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = 100})), t,
                  kUnix + t, &out_);
    c_->OnMessage("shim-1", Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = 200})), t,
                  kUnix + t, &out_);
    c_->OnTick(t, kUnix + t, &out_);
  }
  const std::string bytes = c_->EncodeSnapshot(t, kUnix + t);
  const ReceivedMessage m(bytes);
  const w::StateSnapshot* s = m.envelope()->payload_as_StateSnapshot();
  ASSERT_NE(s, nullptr);
  // One row for the gang, under its first GPU, with every GPU it holds.
  const w::JobState* job = OnlyJob(*s);
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(s->gpus()->Get(0)->jobs()->size(), 1u);
  ASSERT_NE(job->gpus(), nullptr);
  EXPECT_THAT(std::vector<int>(job->gpus()->begin(), job->gpus()->end()), ElementsAre(0, 1));
  ASSERT_NE(job->ranks(), nullptr);
  ASSERT_EQ(job->ranks()->size(), 2u);
  const w::RankState* r0 = job->ranks()->Get(0);
  const w::RankState* r1 = job->ranks()->Get(1);
  EXPECT_EQ(r0->rank(), 0);
  EXPECT_EQ(r0->pid(), 10);
  EXPECT_EQ(r0->gpu(), 0);
  EXPECT_EQ(r1->gpu(), 1);
  EXPECT_TRUE(r1->connected());
  EXPECT_NEAR(double(r0->iteration_ns()), 100e6, 5e6);
  EXPECT_NEAR(double(r1->iteration_ns()), 200e6, 10e6);
  // The gang's iteration time is its slowest rank's.
  EXPECT_EQ(job->iteration_ns(), r1->iteration_ns());
  // Both ranks' GPUs are busy with it, though it is listed once.
  EXPECT_GT(s->gpus()->Get(1)->busy(), 0);
  // /metrics: one series per job, its GPUs in one label.
  EXPECT_THAT(c_->MetricsText(t), HasSubstr("gpu=\"node1:0,1\""));
}

TEST_F(GangRanksTest, TheGangEndsWithItsLastProcess) {
  SayHello(*c_, "shim-0", {.pid = 10, .job = "ddp", .token = token_});
  SayHello(*c_, "shim-1", {.pid = 11, .job = "ddp", .token = token_});
  c_->OnMessage("shim-0", Bytes(Goodbye()), 2 * kSecond, kUnix, &out_);
  ASSERT_TRUE(c_->jobs().contains("ddp"));
  const Job& job = c_->jobs().at("ddp");
  EXPECT_TRUE(job.connected);
  EXPECT_EQ(job.pid, 11);  // the lead is now rank 1
  EXPECT_FALSE(job.ranks.contains(0));
  c_->OnMessage("shim-1", Bytes(Goodbye()), 2 * kSecond, kUnix, &out_);
  EXPECT_FALSE(c_->jobs().contains("ddp"));
  // Its GPUs are free again.
  EXPECT_TRUE(Ask(*c_, {.job = "four", .mem_bytes = 0, .gpus = 4}).ok);
}

TEST_F(GangRanksTest, ASilentRankIsDisconnectedAndTheOthersRunOn) {
  SayHello(*c_, "shim-0", {.pid = 10, .job = "ddp", .token = token_});
  SayHello(*c_, "shim-1", {.pid = 11, .job = "ddp", .token = token_});
  int64_t t = kSecond;
  for (uint64_t seq = 0; seq < 50; ++seq, t += kTick) {
    c_->OnMessage("shim-1", Bytes(Telemetry({.seq = seq, .start_ns = t})), t, kUnix + t, &out_);
    c_->OnTick(t, kUnix + t, &out_);
  }
  const Job& job = c_->jobs().at("ddp");
  EXPECT_TRUE(job.connected);
  EXPECT_FALSE(job.ranks.at(0).connected);
  EXPECT_TRUE(job.ranks.at(1).connected);
  EXPECT_EQ(job.pid, 11);
  // Rank 0's place is free for a process that comes back.
  EXPECT_EQ(SayHello(*c_, "shim-0b", {.pid = 20, .job = "ddp", .token = token_}), "");
  EXPECT_EQ(c_->jobs().at("ddp").ranks.at(0).pid, 20);
}

TEST_F(GangRanksTest, BudgetsReachEveryRank) {
  // An opportunistic gang next to a guaranteed job that suffers: its cut
  // reaches both of its processes.
  auto c = GuardBesideAnOpportunisticGang();
  int64_t t = kSecond;
  std::set<std::string> budgeted;
  for (uint64_t seq = 0; seq < 200; ++seq, t += kTick) {
    out_.clear();
    GuardSlowsBesideTheGang(*c, seq, t, /*gang_reports=*/seq >= 40);
    for (const Outgoing& o : out_) {
      const ReceivedMessage m(o.bytes);
      if (m.envelope() && m.envelope()->payload_as_Budget()) budgeted.insert(o.identity);
    }
  }
  EXPECT_TRUE(budgeted.contains("shim-o0"));
  EXPECT_TRUE(budgeted.contains("shim-o1"));
  EXPECT_FALSE(budgeted.contains("shim-g"));
}

// An opportunistic gang on two GPUs runs at the least share either GPU's loop
// gives it: status names the GPU whose loop that is and the guaranteed job it
// defends, and nothing for a job at a full share.
TEST_F(GangRanksTest, StatusSaysWhichLoopSetsAGangsShare) {
  auto c = GuardBesideAnOpportunisticGang(/*guard_gpu=*/1);
  // Found in a snapshot by name.
  const auto job_in_status = [&](int64_t t, const std::string& name) {
    std::optional<std::pair<std::string, std::vector<std::string>>> set_by;  // "host:gpu", defends
    bool found = false;
    const std::string snapshot = c->EncodeSnapshot(t, kUnix + t);
    const ReceivedMessage m(snapshot);
    for (const w::GpuState* g : *m.envelope()->payload_as_StateSnapshot()->gpus()) {
      for (const w::JobState* j : *g->jobs()) {
        if (j->job()->str() != name) continue;
        found = true;
        if (const w::ShareSource* s = j->share_set_by()) {
          std::vector<std::string> defends;
          for (const flatbuffers::String* d : *s->defends()) defends.push_back(d->str());
          set_by.emplace(s->host()->str() + ":" + std::to_string(s->gpu()), defends);
        }
      }
    }
    EXPECT_TRUE(found) << name;
    return set_by;
  };
  int64_t t = kSecond;
  int probing = 0;
  for (uint64_t seq = 0; seq < 200; ++seq, t += kTick) {
    // The guard's solo speed is measured by its probe (the gang held at a
    // sliver), then it runs twice as slow beside the gang.
    GuardSlowsBesideTheGang(*c, seq, t, /*gang_reports=*/true);
    if (c->jobs().at("guard").probe.active()) {
      ++probing;
      EXPECT_FALSE(job_in_status(t, "opp").has_value());  // the probe's, not a loop's
    }
  }
  EXPECT_GT(probing, 0);
  ASSERT_LT(c->jobs().at("opp").sent_share, 0.5);
  const auto set_by = job_in_status(t, "opp");
  ASSERT_TRUE(set_by.has_value());
  EXPECT_EQ(set_by->first, "node1:1");
  EXPECT_THAT(set_by->second, ElementsAre("guard"));
  EXPECT_FALSE(job_in_status(t, "guard").has_value());
}

// One process driving both GPUs of the gang (iashim-fakejob --devices 2, or a
// tensor-parallel process): its telemetry says which device each kernel ran
// on, so each GPU is a rank of its own, with its own GPU time and waiting;
// budgets still go to the process once; its Goodbye ends the gang.
TEST_F(GangRanksTest, OneProcessDrivingEveryGpuHoldsARankPerDevice) {
  EXPECT_EQ(SayHello(*c_, "shim-p", {.pid = 10, .job = "ddp", .token = token_}), "");
  c_->OnMessage("shim-p", Bytes(KernelNames({{KernelId(testing::kCollectiveKernelName),
                                              testing::kCollectiveKernelName}})),
                kSecond, kUnix, &out_);
  int64_t t = kSecond;
  for (uint64_t seq = 0; seq < 30; ++seq, t += kTick) {
    // Device 1 waits 40 ms of the 100 ms iteration in the all-reduce, device 0 only 2.
    c_->OnMessage("shim-p",
                  Bytes(Telemetry({.seq = seq, .start_ns = t, .collective_ms_per_device = {2, 40}})),
                  t, kUnix + t, &out_);
    c_->OnTick(t, kUnix + t, &out_);
  }
  const Job& job = c_->jobs().at("ddp");
  ASSERT_EQ(job.ranks.size(), 2u);
  EXPECT_EQ(job.ranks.at(1).pid, 10);
  EXPECT_EQ(job.ranks.at(1).identity, "shim-p");
  const std::string bytes = c_->EncodeSnapshot(t, kUnix + t);
  const ReceivedMessage m(bytes);
  const w::StateSnapshot* s = m.envelope()->payload_as_StateSnapshot();
  ASSERT_NE(s, nullptr);
  const w::JobState* row = OnlyJob(*s);
  ASSERT_NE(row, nullptr);
  ASSERT_NE(row->ranks(), nullptr);
  ASSERT_EQ(row->ranks()->size(), 2u);
  const w::RankState* r0 = row->ranks()->Get(0);
  const w::RankState* r1 = row->ranks()->Get(1);
  EXPECT_EQ(r0->gpu(), 0);
  EXPECT_EQ(r1->gpu(), 1);
  EXPECT_EQ(r1->pid(), 10);
  EXPECT_TRUE(r1->connected());
  // Each device's own waiting, from its own collective's time (the names came
  // before the process's second GPU was seen).
  EXPECT_NEAR(r0->waiting(), 0.0, 0.01);
  EXPECT_NEAR(r1->waiting(), 0.38, 0.05);
  // Both GPUs are busy with it (before, only the first GPU's was counted).
  EXPECT_GT(s->gpus()->Get(0)->busy(), 0);
  EXPECT_GT(s->gpus()->Get(1)->busy(), 0);

  // Its Hello every 10 s keeps the rank of each device it drives (it used to
  // drop all but the first until its next telemetry, and the job with them).
  EXPECT_EQ(SayHello(*c_, "shim-p", {.pid = 10, .job = "ddp", .token = token_}), "");
  EXPECT_TRUE(c_->jobs().at("ddp").connected);
  EXPECT_TRUE(c_->jobs().at("ddp").ranks.at(0).connected);
  EXPECT_TRUE(c_->jobs().at("ddp").ranks.at(1).connected);
  EXPECT_EQ(c_->jobs().at("ddp").ranks.at(1).identity, "shim-p");

  // Another process cannot take a rank the first one drives.
  EXPECT_THAT(SayHello(*c_, "shim-q", {.pid = 11, .job = "ddp", .token = token_}),
              HasSubstr("already has a live process for each of its 2 ranks"));
  // Its Goodbye ends the job (it was the gang's only process).
  c_->OnMessage("shim-p", Bytes(Goodbye()), t, kUnix + t, &out_);
  EXPECT_FALSE(c_->jobs().contains("ddp"));
}

// A process that drives every GPU of an opportunistic gang gets each budget
// once, not once per GPU.
TEST_F(GangRanksTest, AProcessDrivingSeveralGpusGetsEachBudgetOnce) {
  auto c = Make(Gpus(2));
  ASSERT_TRUE(Ask(*c, {.job = "guard", .mem_bytes = uint64_t{4} << 30}).ok);
  SayHello(*c, "shim-g", {.pid = 1, .job = "guard", .token = LastPlaceReply(out_).token});
  const PlaceResult gang = Ask(*c, {.job = "opp",
                                    .priority = w::Priority::Opportunistic,
                                    .mem_bytes = uint64_t{4} << 30,
                                    .gpus = 2});
  ASSERT_TRUE(gang.ok) << gang.error;
  int64_t t = kSecond;
  int budgets = 0;
  for (uint64_t seq = 0; seq < 200; ++seq, t += kTick) {
    // It starts once the guaranteed job's baseline was seeded alone.
    if (seq == 40) {
      ASSERT_EQ(SayHello(*c, "shim-o", {.pid = 2, .job = "opp", .priority = w::Priority::Opportunistic,
                                        .token = gang.token}),
                "");
    }
    out_.clear();
    const double iteration_ms = seq < 40 ? 100 : 200;
    c->OnMessage("shim-g", Bytes(Telemetry({.seq = seq, .start_ns = t, .iteration_ms = iteration_ms})),
                 t, kUnix + t, &out_);
    if (seq >= 40) {
      c->OnMessage("shim-o",
                   Bytes(Telemetry({.seq = seq, .start_ns = t, .collective_ms_per_device = {0, 0}})),
                   t, kUnix + t, &out_);
    }
    c->OnTick(t, kUnix + t, &out_);
    int now = 0;
    for (const Outgoing& o : out_) {
      const ReceivedMessage m(o.bytes);
      if (m.envelope() && m.envelope()->payload_as_Budget()) {
        EXPECT_EQ(o.identity, "shim-o");
        ++now;
      }
    }
    EXPECT_LE(now, 1) << "window " << seq;
    budgets += now;
  }
  EXPECT_EQ(c->jobs().at("opp").ranks.size(), 2u);
  EXPECT_GT(budgets, 0);
}

// A guaranteed gang on GPUs 0 and 1 of node1, an opportunistic one-GPU job
// on each, and their shims, driven window by window.
class GangBudgetsTest : public CoordinatorGangTest {
 protected:
  // Placed where asked (SimplePlacement): what the interference model would
  // think of the pairs is not what these tests are about.
  void Start(policy::Cluster cluster, state::StateStore* store, PlaceSpec gang, PlaceSpec other,
             DaemonOptions options = {}) {
    c_ = std::make_unique<Coordinator>(options, std::move(cluster), store,
                                       std::make_unique<policy::SimplePlacement>(), 0);
    gang.job = "ddp";
    gang.gpus = 2;
    const PlaceResult g = Ask(*c_, gang);
    ASSERT_TRUE(g.ok) << g.error;
    ASSERT_EQ(SayHello(*c_, "rank-0", {.pid = 10, .job = "ddp", .token = g.token, .rank = 0}), "");
    ASSERT_EQ(SayHello(*c_, "rank-1", {.pid = 11, .job = "ddp", .token = g.token, .rank = 1}), "");
    for (int gpu : {0, 1}) {
      other.job = "o" + std::to_string(gpu);
      other.gpu = gpu;
      const PlaceResult o = Ask(*c_, other);
      ASSERT_TRUE(o.ok) << o.error;
      tokens_.push_back(o.token);
    }
    for (const char* shim : {"rank-0", "rank-1"}) {
      c_->OnMessage(shim, Bytes(KernelNames({{KernelId(testing::kCollectiveKernelName),
                                              testing::kCollectiveKernelName}})),
                    kSecond, kUnix, &out_);
    }
  }

  // The others say Hello.
  void OthersJoin(wire::Priority priority) {
    for (int gpu : {0, 1}) {
      const std::string shim = "other-" + std::to_string(gpu);
      ASSERT_EQ(SayHello(*c_, shim, {.pid = 20 + gpu, .job = "o" + std::to_string(gpu),
                                     .priority = priority, .token = tokens_[size_t(gpu)]}),
                "");
    }
  }

  // One window of each process: the ranks iterate in `iteration_ms`, rank r
  // waiting `collective_ms[r]` in the all-reduce; the others (once joined) at
  // 100 ms. Returns the shares budgets sent to the others in this tick.
  std::map<std::string, double> Window(double iteration_ms, std::array<double, 2> collective_ms,
                                       bool others) {
    out_.clear();
    for (int r : {0, 1}) {
      c_->OnMessage("rank-" + std::to_string(r),
                    Bytes(Telemetry({.seq = seq_, .start_ns = t_, .iteration_ms = iteration_ms,
                                     .collective_ms = collective_ms[size_t(r)]})),
                    t_, kUnix + t_, &out_);
    }
    if (others) {
      for (const char* shim : {"other-0", "other-1"}) {
        // Each runs under the budget it was sent last, as a shim does.
        const auto share = in_force_.find(shim);
        c_->OnMessage(shim,
                      Bytes(Telemetry({.seq = seq_,
                                       .start_ns = t_,
                                       .share = share == in_force_.end() ? 1.0 : share->second})),
                      t_, kUnix + t_, &out_);
      }
    }
    c_->OnTick(t_, kUnix + t_, &out_);
    ++seq_;
    t_ += kTick;
    std::map<std::string, double> shares;
    for (const Outgoing& o : out_) {
      const ReceivedMessage m(o.bytes);
      if (m.envelope() && m.envelope()->payload_as_Budget()) {
        shares[o.identity] = m.envelope()->payload_as_Budget()->share();
      }
    }
    for (const auto& [shim, share] : shares) in_force_[shim] = share;
    return shares;
  }

  std::unique_ptr<Coordinator> c_;
  std::vector<std::string> tokens_;
  std::map<std::string, double> in_force_;  // the others' budgets
  uint64_t seq_ = 0;
  int64_t t_ = kSecond;
};

TEST_F(GangBudgetsTest, OnlyTheGpuOfTheRankTheGangWaitsForIsThrottled) {
  Start(Gpus(2), nullptr, {.mem_bytes = uint64_t{4} << 30},
        {.priority = w::Priority::Opportunistic, .mem_bytes = uint64_t{4} << 30});
  // Alone: 100 ms iterations, 4 ms of them in the all-reduce on both ranks.
  for (int i = 0; i < 40; ++i) Window(100, {4, 4}, false);
  OthersJoin(w::Priority::Opportunistic);
  // Shared: the gang iterates in 125 ms (25% slower, over its 10% target).
  // Rank 0 still spends 4 ms in the all-reduce: the gang waits for it. Rank 1
  // waits 25 ms more: its GPU's co-runner costs the gang nothing.
  std::map<std::string, double> last;
  for (int i = 0; i < 150; ++i) {
    for (const auto& [shim, share] : Window(125, {4, 29}, true)) last[shim] = share;
  }
  ASSERT_TRUE(last.contains("other-0"));
  EXPECT_LT(last.at("other-0"), 0.5);  // cut, and cut again
  EXPECT_GE(last.count("other-1") ? last.at("other-1") : 1.0, 0.999);
  // Status says who waits for whom.
  const std::string snapshot = c_->EncodeSnapshot(t_, kUnix + t_);
  const ReceivedMessage m(snapshot);
  const w::JobState* gang = nullptr;
  for (const w::GpuState* g : *m.envelope()->payload_as_StateSnapshot()->gpus()) {
    for (const w::JobState* j : *g->jobs()) {
      if (j->job()->str() == "ddp") gang = j;
    }
  }
  ASSERT_NE(gang, nullptr);
  ASSERT_EQ(gang->ranks()->size(), 2u);
  EXPECT_NEAR(gang->ranks()->Get(0)->waiting(), 0, 0.01);
  EXPECT_NEAR(gang->ranks()->Get(1)->waiting(), 0.25 * 1.25, 0.03);
}

// A guaranteed gang beside guaranteed jobs is not held for them, nor they
// for it: it runs three times slower than alone beside them at a full
// share. That counts in its run (its user waits through it), and once they
// end the loop repays it: its target is lowered.
TEST_F(GangBudgetsTest, AGuaranteedGangBesideGuaranteedJobsIsNotHeldAndItsRunIsRepaidAfter) {
  // The guaranteed jobs first, then the gang the batch system gave their GPUs.
  c_ = Make(Gpus(2));
  for (int gpu : {0, 1}) {
    const PlaceResult o = Ask(*c_, {.job = "o" + std::to_string(gpu),
                                    .mem_bytes = uint64_t{4} << 30,
                                    .allowed_gpus = std::vector<int>{gpu}});
    ASSERT_TRUE(o.ok) << o.error;
    tokens_.push_back(o.token);
  }
  const PlaceResult g = Ask(*c_, {.job = "ddp",
                                  .mem_bytes = uint64_t{4} << 30,
                                  .allowed_gpus = std::vector<int>{0, 1},
                                  .gpus = 2});
  ASSERT_TRUE(g.ok) << g.error;
  ASSERT_THAT(g.error, HasSubstr("beside guaranteed o0, o1"));
  ASSERT_EQ(SayHello(*c_, "rank-0", {.pid = 10, .job = "ddp", .token = g.token, .rank = 0}), "");
  ASSERT_EQ(SayHello(*c_, "rank-1", {.pid = 11, .job = "ddp", .token = g.token, .rank = 1}), "");
  for (int i = 0; i < 40; ++i) Window(100, {4, 4}, false);  // alone: its baseline
  OthersJoin(w::Priority::Guaranteed);
  for (int i = 0; i < 60; ++i) Window(300, {4, 4}, true);  // beside them
  const Job& gang = c_->jobs().at("ddp");
  EXPECT_THAT(c_->GuaranteedBeside(gang), ElementsAre("o0", "o1"));
  ASSERT_DOUBLE_EQ(gang.sent_share, 1.0);
  ASSERT_GT(Slowdown(gang).value_or(0), 1.5);
  for (int gpu : {0, 1}) {
    c_->OnMessage("slurm", Bytes(Release("o" + std::to_string(gpu), tokens_[size_t(gpu)])), t_,
                  kUnix + t_, &out_);
  }
  for (int i = 0; i < 20; ++i) Window(102, {4, 4}, false);
  EXPECT_TRUE(c_->GuaranteedBeside(gang).empty());
  EXPECT_DOUBLE_EQ(gang.sent_share, 1.0);
  // Its run holds what its time beside them cost it, for the loop to repay:
  // its target is lowered.
  EXPECT_GT(gang.run.Slowdown().value_or(0), 0.1);
  EXPECT_LT(gang.run.LoopTarget(0.1), 0.09);
}

// The daemon's log says when each rank's process connected, once: a shim
// says Hello again every 10 s, which is not news.
TEST_F(GangBudgetsTest, ARanksProcessIsLoggedWhenItConnectsNotAtEachHello) {
  Start(Gpus(2), nullptr, {.mem_bytes = uint64_t{4} << 30},
        {.priority = w::Priority::Opportunistic, .mem_bytes = uint64_t{4} << 30});
  EXPECT_THAT(c_->TakeEvents(kUnix),
              AllOf(Contains(StartsWith("ddp rank 0 connected: pid 10 on ")),
                    Contains(StartsWith("ddp rank 1 connected: pid 11 on "))));
  const std::string token = c_->jobs().at("ddp").token;
  ASSERT_EQ(SayHello(*c_, "rank-0", {.pid = 10, .job = "ddp", .token = token, .rank = 0}), "");
  EXPECT_THAT(c_->TakeEvents(kUnix), IsEmpty());
  EXPECT_TRUE(c_->jobs().at("ddp").ranks.at(0).connected);
}

TEST_F(GangBudgetsTest, AProbeHoldsTheCoRunnersOfEveryGpuOfTheGang) {
  Start(Gpus(2), nullptr, {.mem_bytes = uint64_t{4} << 30},
        {.priority = w::Priority::Opportunistic, .mem_bytes = uint64_t{4} << 30});
  // Shared from its first window: the gang never ran alone.
  OthersJoin(w::Priority::Opportunistic);
  std::set<std::string> held;
  for (int i = 0; i < 100; ++i) {
    for (const auto& [shim, share] : Window(125, {4, 4}, true)) {
      if (share <= policy::SoloProbeOptions{}.hold_share + 1e-6) held.insert(shim);
    }
  }
  // Both GPUs' co-runners, not only its first GPU's, and the gang's speed
  // then was its solo speed.
  EXPECT_TRUE(held.contains("other-0"));
  EXPECT_TRUE(held.contains("other-1"));
  EXPECT_EQ(c_->jobs().at("ddp").profile.baseline_source(), policy::BaselineSource::kProbe);
  EXPECT_EQ(c_->jobs().at("ddp").ranks.at(1).profile.baseline_source(),
            policy::BaselineSource::kProbe);
}

// A guaranteed gang its co-runners slow more than the model's prior said:
// once its probe has its solo speed, the co-runners are released where its
// pace before the hold, harm in proportion to the share, puts it at the
// loop's headroom (0.85 of the target), as a one-GPU job's are
// (ProbeTest.ACoRunnerTheJobWasMeasuredTooSlowBesideIsReleasedLower), not
// to their shares before the hold for the loop's cuts to catch up with.
TEST_F(GangBudgetsTest, AGangMeasuredTooSlowBesideItsCoRunnersHasThemReleasedLower) {
  Start(Gpus(2), nullptr, {.mem_bytes = uint64_t{4} << 30},
        {.priority = w::Priority::Opportunistic, .mem_bytes = uint64_t{4} << 30});
  OthersJoin(w::Priority::Opportunistic);
  constexpr double kHarm = 1.0;  // of the busier co-runner's share, on the gang's pace
  const double hold = policy::SoloProbeOptions{}.hold_share;
  auto pace_ms = [&] {
    double most = 0;
    for (const char* shim : {"other-0", "other-1"}) {
      const auto share = in_force_.find(shim);
      most = std::max(most, share == in_force_.end() ? 1.0 : share->second);
    }
    return 100 * (1 + kHarm * most);
  };
  std::map<std::string, double> before_hold;
  std::map<std::string, double> released;
  double pace_before_hold_ms = 0;
  bool holding = false;
  for (int i = 0; i < 200 && released.size() < 2; ++i) {
    const double pace = pace_ms();
    for (const auto& [shim, share] : Window(pace, {4, 4}, true)) {
      if (share <= hold + 1e-6) {
        if (!holding) pace_before_hold_ms = pace;
        holding = true;
      } else if (holding) {
        released.try_emplace(shim, share);
      } else {
        before_hold[shim] = share;
      }
    }
  }
  ASSERT_TRUE(holding);
  ASSERT_EQ(released.size(), 2u);
  const Job& gang = c_->jobs().at("ddp");
  ASSERT_EQ(gang.profile.baseline_source(), policy::BaselineSource::kProbe);
  const double before = pace_before_hold_ms / (100 * (1 + kHarm * hold)) - 1;
  ASSERT_GT(before, 0.1);
  for (const char* shim : {"other-0", "other-1"}) {
    ASSERT_TRUE(before_hold.contains(shim)) << shim;
    EXPECT_NEAR(released.at(shim), std::max(0.05, before_hold.at(shim) * 0.85 * 0.1 / before),
                0.01 * released.at(shim))
        << shim;
  }
  // From then on the gang is within its target: no cut had to catch up.
  // From then on the gang is within its target without waiting for the
  // loop's cuts (its lowered target after a slow start aside).
  for (int i = 0; i < 30; ++i) Window(pace_ms(), {4, 4}, true);
  EXPECT_LE(Slowdown(gang).value_or(1), 0.1);
}

TEST_F(GangBudgetsTest, AGangsRankTeachesTheModelWhatSharingItsGpuCosts) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  // No control loop: nobody is throttled, so what they measure is sharing's cost.
  DaemonOptions no_control;
  no_control.control = false;
  Start(Gpus(2), store.get(), {.mem_bytes = uint64_t{4} << 30, .kind = "resnet50"},
        {.priority = w::Priority::Opportunistic, .mem_bytes = uint64_t{4} << 30, .kind = "lstm"},
        no_control);
  const policy::JobTraits resnet{.kind = "resnet50"};
  const policy::JobTraits lstm{.kind = "lstm"};
  const double before = c_->interference().Predict(resnet, lstm).throughput;
  for (int i = 0; i < 60; ++i) Window(100, {4, 4}, false);
  OthersJoin(w::Priority::Opportunistic);
  // Each rank's compute takes 50% longer (150 ms iterations, the same 4 ms in
  // the all-reduce): each GPU's pair is a resnet50 slowed by sharing with an lstm.
  for (int i = 0; i < 300; ++i) Window(154, {4, 4}, true);
  EXPECT_GT(c_->interference().observations(), 0);
  const double learned = c_->interference().Predict(resnet, lstm).throughput;
  EXPECT_LT(learned, before);
  EXPECT_LT(learned, 0.8);
}

}  // namespace
}  // namespace iashim::daemon
