// Reservations (coordinator/daemon/reservations.h): a dry run answered
// "placed" holds its GPUs for the job that asked until the job's real request
// on that host takes them over, or until --reservation-ttl-s passes. What
// job_submit.lua relies on so that a burst of submissions does not all land on
// one node. The Reservations class alone, then the coordinator driven through
// OnMessage with its own placement and an injected clock.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "coordinator/cli/status_format.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/reservations.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/daemon/daemon_messages.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
using testing::Bytes;
using ::testing::ElementsAre;
using testing::Gpus;
using ::testing::HasSubstr;
using testing::kSecond;
using testing::kUnix;
using testing::LastPlaceReply;
using ::testing::Not;
using testing::Place;
using testing::PlaceResult;
using testing::PlaceSpec;
using testing::ReceivedMessage;

constexpr policy::Priority kGuaranteed = policy::Priority::kGuaranteed;
constexpr policy::Priority kOpportunistic = policy::Priority::kOpportunistic;

// --- The Reservations class ---

TEST(ReservationsTest, TheOldestMatchingIsConsumedFirst) {
  Reservations r(30 * kSecond);
  r.Add({.host = "node1", .gpus = {0}, .priority = kGuaranteed, .kind = "resnet"}, 1 * kSecond);
  r.Add({.host = "node1", .gpus = {1}, .priority = kGuaranteed, .kind = "resnet"}, 2 * kSecond);
  ASSERT_EQ(r.LiveCount(3 * kSecond), 2u);
  ASSERT_TRUE(r.Consume({.host = "node1", .priority = kGuaranteed, .kind = "resnet"}, 3 * kSecond));
  ASSERT_EQ(r.held().size(), 1u);
  EXPECT_THAT(r.held()[0].gpus, ElementsAre(1));
  EXPECT_EQ(r.consumed_total(), 1u);
}

TEST(ReservationsTest, OnlyTheSameHostPriorityKindAndGpuCountMatch) {
  Reservations r(30 * kSecond);
  r.Add({.host = "node1", .gpus = {0, 1}, .priority = kGuaranteed, .kind = "resnet"}, 0);
  const std::vector<ReservationMatch> others = {
      {.host = "node2", .priority = kGuaranteed, .kind = "resnet", .gpu_count = 2},
      {.host = "node1", .priority = kOpportunistic, .kind = "resnet", .gpu_count = 2},
      {.host = "node1", .priority = kGuaranteed, .kind = "", .gpu_count = 2},
      {.host = "node1", .priority = kGuaranteed, .kind = "resnet", .gpu_count = 1},
  };
  for (const ReservationMatch& m : others) EXPECT_FALSE(r.Consume(m, kSecond)) << m.host;
  EXPECT_TRUE(r.Consume(
      {.host = "node1", .priority = kGuaranteed, .kind = "resnet", .gpu_count = 2}, kSecond));
  EXPECT_TRUE(r.held().empty());
}

TEST(ReservationsTest, ExpiresAfterTheTtlAndIsNoLongerConsumed) {
  Reservations r(30 * kSecond);
  r.Add({.host = "node1", .gpus = {0}}, 1 * kSecond);
  EXPECT_EQ(r.LiveCount(31 * kSecond - 1), 1u);
  EXPECT_EQ(r.LiveCount(31 * kSecond), 0u);
  // Counted as expired as soon as it is, before Expire drops it.
  EXPECT_EQ(r.expired_total(31 * kSecond), 1u);
  EXPECT_FALSE(r.Consume({.host = "node1"}, 31 * kSecond));
  EXPECT_EQ(r.Expire(31 * kSecond), 1u);
  EXPECT_TRUE(r.held().empty());
  EXPECT_EQ(r.expired_total(31 * kSecond), 1u);
  EXPECT_EQ(r.consumed_total(), 0u);
}

TEST(ReservationsTest, ATtlOfZeroRecordsNothing) {
  Reservations r(0);
  EXPECT_FALSE(r.enabled());
  r.Add({.host = "node1", .gpus = {0}}, 0);
  EXPECT_TRUE(r.held().empty());
}

// --- The coordinator ---

// Two nodes of four 32 GiB V100s.
policy::Cluster TwoNodesOfFour() {
  policy::Cluster cluster = Gpus(4);
  for (int i = 0; i < 4; ++i) {
    cluster.gpus.push_back(
        {{"node2", i}, "v100", "Tesla V100", "GPU-n2-" + std::to_string(i), uint64_t{32} << 30});
  }
  return cluster;
}

// What job_submit.lua asks at submission: no job id, no host, a whole GPU.
PlaceSpec Submission(int gpus = 1) {
  return {.mem_bytes = 0, .host = "", .kind = "resnet50", .dry_run = true, .gpus = gpus};
}

// What the SPANK plugin asks when Slurm starts the job on `host`.
PlaceSpec TaskStart(const std::string& job, const std::string& host, int gpus = 1) {
  return {.job = job, .mem_bytes = 0, .host = host, .kind = "resnet50", .gpus = gpus};
}

std::string Where(const PlaceResult& r) { return r.host + ":" + std::to_string(r.gpu); }

class CoordinatorReservationTest : public ::testing::Test {
 protected:
  // The daemon's own placement (InterferenceAwarePlacement over its model).
  std::unique_ptr<Coordinator> Make(double reservation_ttl_s = 30) {
    DaemonOptions options;
    options.reservation_ttl_s = reservation_ttl_s;
    return std::make_unique<Coordinator>(options, TwoNodesOfFour(), nullptr, nullptr, 0);
  }

  PlaceResult Ask(Coordinator& c, const PlaceSpec& spec, int64_t now_ns = kSecond) {
    out_.clear();
    c.OnMessage("cli", Bytes(Place(spec)), now_ns, kUnix, &out_);
    EXPECT_EQ(out_.size(), 1u);
    const PlaceResult r = LastPlaceReply(out_);
    if (!r.replied) ADD_FAILURE() << "no PlaceReply";
    return r;
  }

  // How many of each GPU a burst of `n` submissions was answered.
  std::map<std::string, int> Burst(Coordinator& c, int n) {
    std::map<std::string, int> answers;
    for (int i = 0; i < n; ++i) {
      const PlaceResult r = Ask(c, Submission(), kSecond + i * kSecond / 5);
      EXPECT_TRUE(r.ok) << i << ": " << r.error;
      ++answers[Where(r)];
    }
    return answers;
  }

  std::vector<Outgoing> out_;
};

TEST_F(CoordinatorReservationTest, ABurstOfDryRunsSpreadsOverTheGpus) {
  auto c = Make();
  const std::map<std::string, int> answers = Burst(*c, 8);
  // Every GPU once: the first four on node1 (best fit fills a node first), then node2's.
  EXPECT_EQ(answers.size(), 8u);
  for (const auto& [gpu, n] : answers) EXPECT_EQ(n, 1) << gpu;
  EXPECT_EQ(c->reservations().LiveCount(3 * kSecond), 8u);
  EXPECT_TRUE(c->jobs().empty());  // still nothing registered
  // The cluster is spoken for: a ninth waits, and reserves nothing.
  const PlaceResult ninth = Ask(*c, Submission(), 3 * kSecond);
  EXPECT_FALSE(ninth.ok);
  EXPECT_TRUE(ninth.queued) << ninth.error;
  EXPECT_EQ(c->reservations().LiveCount(3 * kSecond), 8u);
  EXPECT_THAT(c->MetricsText(3 * kSecond), HasSubstr("\niashim_reservations 8\n"));
}

TEST_F(CoordinatorReservationTest, AGangsDryRunHoldsAllItsGpus) {
  auto c = Make();
  const PlaceResult first = Ask(*c, Submission(4));
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_EQ(first.host, "node1");
  const PlaceResult second = Ask(*c, Submission(4));
  ASSERT_TRUE(second.ok) << second.error;
  EXPECT_EQ(second.host, "node2");
  // Each gang's real request takes over its own.
  EXPECT_TRUE(Ask(*c, TaskStart("slurm-1.0", "node1", 4)).ok);
  EXPECT_TRUE(Ask(*c, TaskStart("slurm-2.0", "node2", 4)).ok);
  EXPECT_EQ(c->reservations().consumed_total(), 2u);
  EXPECT_TRUE(c->reservations().held().empty());
}

// A job wider than a node (srun -N 2 --gres=gpu:4): whole nodes, and one
// reservation a node, which the gang of that node's tasks takes over.
TEST_F(CoordinatorReservationTest, ADryRunForTwoNodesHoldsEachNodesGpusForItsGang) {
  auto c = Make();
  const PlaceResult dry = Ask(*c, Submission(8));
  ASSERT_TRUE(dry.ok) << dry.error;
  EXPECT_EQ(dry.gpu_indices.size(), 8u);
  EXPECT_THAT(dry.gpu_hosts,
              ElementsAre("node1", "node1", "node1", "node1", "node2", "node2", "node2", "node2"));
  ASSERT_EQ(c->reservations().held().size(), 2u);
  for (const Reservation& r : c->reservations().held()) {
    EXPECT_THAT(r.gpus, ElementsAre(0, 1, 2, 3)) << r.host;
  }
  // Both nodes are spoken for.
  EXPECT_TRUE(Ask(*c, Submission()).queued);
  EXPECT_TRUE(Ask(*c, Submission(8)).queued);
  EXPECT_TRUE(Ask(*c, TaskStart("slurm-3.0.node0", "node1", 4), 2 * kSecond).ok);
  EXPECT_TRUE(Ask(*c, TaskStart("slurm-3.0.node1", "node2", 4), 2 * kSecond).ok);
  EXPECT_EQ(c->reservations().consumed_total(), 2u);
  // The two gangs hold both nodes: a second such job waits, naming the nodes
  // it would take once they end (job_submit.lua's preference).
  DaemonOptions options;
  options.join_busy_gpus = true;
  Coordinator joins(options, TwoNodesOfFour(), nullptr, nullptr, 0);
  ASSERT_TRUE(Ask(joins, TaskStart("slurm-4.0.node0", "node1", 4)).ok);
  ASSERT_TRUE(Ask(joins, TaskStart("slurm-4.0.node1", "node2", 4)).ok);
  const PlaceResult later = Ask(joins, Submission(8), 3 * kSecond);
  EXPECT_TRUE(later.queued) << later.error;
  EXPECT_THAT(later.prefer_hosts, ElementsAre("node1", "node2"));
  // Wider than the cluster, or not whole nodes: refused, saying why.
  const PlaceResult wide = Ask(*c, Submission(12), 3 * kSecond);
  EXPECT_FALSE(wide.ok);
  EXPECT_FALSE(wide.queued);
  EXPECT_THAT(wide.error, HasSubstr("needs 3 whole nodes of 4"));
  EXPECT_THAT(Ask(*c, Submission(6), 3 * kSecond).error, HasSubstr("not whole nodes"));
}

// With IASHIM_GUARANTEED_GRES, Slurm starts no guaranteed job or gang on a
// node whose guaranteed jobs and gangs would then use more GPUs than it has;
// job_submit.lua's dry run says so (--guaranteed-gres) and is never bound to
// such a node, where the job would pend while another node could run it.
TEST_F(CoordinatorReservationTest, WithTheGuaranteedGresADryRunNamesOnlyNodesSlurmWouldStartItOn) {
  DaemonOptions options;
  options.join_busy_gpus = true;  // as scripts/cluster-up.sh runs it
  Coordinator c(options, TwoNodesOfFour(), nullptr, nullptr, 0);
  // Guaranteed shard jobs: one on each of node1's GPUs, two on node2's first two.
  const auto shard = [&](const std::string& job, const std::string& host, int gpu) {
    const PlaceResult r = Ask(
        c, {.job = job, .host = host, .kind = "resnet50", .allowed_gpus = std::vector<int>{gpu}});
    ASSERT_TRUE(r.ok) << job << ": " << r.error;
  };
  for (int i = 0; i < 4; ++i) shard("g1-" + std::to_string(i), "node1", i);
  for (int i = 0; i < 2; ++i) shard("g2-" + std::to_string(i), "node2", i);
  PlaceSpec gang = Submission(2);
  gang.guaranteed_gres = true;
  // node2 has room for two more: its empty GPUs, held for the gang.
  const PlaceResult first = Ask(c, gang, 2 * kSecond);
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_EQ(first.host, "node2");
  EXPECT_THAT(first.gpu_indices, ElementsAre(2, 3));
  // Now no node has: the next waits in Slurm's queue, with no node named.
  const PlaceResult second = Ask(c, gang, 3 * kSecond);
  EXPECT_FALSE(second.ok);
  EXPECT_TRUE(second.queued);
  EXPECT_THAT(
      second.error,
      HasSubstr(
          "left out, their guaranteed jobs and gangs use the GPUs Slurm counts: node1, node2"));
  // An opportunistic gang asks for them too (policy::AsksGuaranteedGres).
  PlaceSpec opportunistic_gang = gang;
  opportunistic_gang.priority = w::Priority::Opportunistic;
  EXPECT_TRUE(Ask(c, opportunistic_gang, 3 * kSecond).queued);
  // Without the count, the same gang would join guaranteed jobs on busy GPUs
  // (beside_guaranteed), on a node Slurm would not start it on.
  gang.guaranteed_gres = false;
  const PlaceResult unaware = Ask(c, gang, 3 * kSecond);
  EXPECT_TRUE(unaware.ok) << unaware.error;
  // An opportunistic one-GPU job asks for none: nothing is left out for it.
  PlaceSpec opportunistic = Submission();
  opportunistic.priority = w::Priority::Opportunistic;
  opportunistic.mem_bytes = uint64_t{4} << 30;
  opportunistic.guaranteed_gres = true;
  EXPECT_TRUE(Ask(c, opportunistic, 4 * kSecond).ok);
}

// `iashim place --dry-run --gpu N` asks about one GPU; no job is on its way.
TEST_F(CoordinatorReservationTest, ADryRunNamingItsGpuHoldsNothing) {
  auto c = Make();
  PlaceSpec question = Submission();
  question.host = "node2";
  question.gpu = 3;
  const PlaceResult r = Ask(*c, question);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(Where(r), "node2:3");
  EXPECT_TRUE(c->reservations().held().empty());
  EXPECT_EQ(Where(Ask(*c, question)), "node2:3");
}

TEST_F(CoordinatorReservationTest, ARealRequestTakesOverItsReservation) {
  auto c = Make();
  const PlaceResult dry = Ask(*c, Submission(), 1 * kSecond);
  ASSERT_TRUE(dry.ok) << dry.error;
  ASSERT_EQ(Where(dry), "node1:0");
  ASSERT_EQ(c->reservations().LiveCount(2 * kSecond), 1u);

  // Another kind on that node is another job: it leaves the reservation alone
  // and does not take node1:0.
  const PlaceResult other =
      Ask(*c, {.job = "other", .mem_bytes = 0, .host = "node1", .kind = "bert"}, 2 * kSecond);
  ASSERT_TRUE(other.ok) << other.error;
  EXPECT_EQ(Where(other), "node1:1");
  EXPECT_EQ(c->reservations().LiveCount(2 * kSecond), 1u);

  // The job starts where its dry run sent it: it does not see itself there.
  const PlaceResult real = Ask(*c, TaskStart("slurm-7.batch", "node1"), 3 * kSecond);
  ASSERT_TRUE(real.ok) << real.error;
  EXPECT_FALSE(real.dry_run);
  EXPECT_EQ(Where(real), "node1:0");
  EXPECT_EQ(c->reservations().LiveCount(3 * kSecond), 0u);
  EXPECT_EQ(c->reservations().consumed_total(), 1u);
  ASSERT_TRUE(c->jobs().contains("slurm-7.batch"));

  // The next dry run sees the job once: node1:2, not past a double count.
  const PlaceResult next = Ask(*c, Submission(), 4 * kSecond);
  ASSERT_TRUE(next.ok) << next.error;
  EXPECT_EQ(Where(next), "node1:2");

  const std::string metrics = c->MetricsText(4 * kSecond);
  EXPECT_THAT(metrics, HasSubstr("\niashim_reservations 1\n"));
  EXPECT_THAT(metrics, HasSubstr("\niashim_reservations_consumed_total 1\n"));
  EXPECT_THAT(metrics, HasSubstr("\niashim_reservations_expired_total 0\n"));
}

TEST_F(CoordinatorReservationTest, ARealRequestLimitedToOtherGpusIsPlacedThere) {
  auto c = Make();
  ASSERT_EQ(Where(Ask(*c, Submission())), "node1:0");
  // Slurm bound the job's shard to GPU 2: its reservation goes, and it runs
  // on GPU 2 by the normal rules.
  PlaceSpec start = TaskStart("slurm-8.batch", "node1");
  start.allowed_gpus = std::vector<int>{2};
  const PlaceResult real = Ask(*c, start, 2 * kSecond);
  ASSERT_TRUE(real.ok) << real.error;
  EXPECT_EQ(Where(real), "node1:2");
  EXPECT_TRUE(c->reservations().held().empty());
  EXPECT_EQ(Where(Ask(*c, Submission(), 3 * kSecond)), "node1:0");
}

// A burst held every GPU; Slurm then started a job that no dry run placed
// (its submission was answered "queued") on node1. Slurm counts node1's slots
// too, so the pending jobs those GPUs were held for wait in Slurm: the
// started job takes a held GPU rather than idle in its allocation.
TEST_F(CoordinatorReservationTest, AJobSlurmStartedTakesAGpuHeldOnlyByReservations) {
  auto c = Make();
  ASSERT_EQ(Burst(*c, 8).size(), 8u);
  const PlaceResult queued_at_submit = Ask(*c, Submission(), 3 * kSecond);
  ASSERT_TRUE(queued_at_submit.queued) << queued_at_submit.error;
  const PlaceResult started = Ask(
      *c, {.job = "slurm-9.batch", .mem_bytes = 0, .host = "node1", .kind = "bert"}, 4 * kSecond);
  ASSERT_TRUE(started.ok) << started.error;
  EXPECT_EQ(started.host, "node1");
  EXPECT_EQ(c->reservations().LiveCount(4 * kSecond), 7u);
  EXPECT_EQ(c->reservations().yielded_total(), 1u);
  EXPECT_THAT(c->MetricsText(4 * kSecond), HasSubstr("\niashim_reservations_yielded_total 1\n"));
  // Dry runs still see the cluster spoken for: the started job and seven holds.
  EXPECT_TRUE(Ask(*c, Submission(), 5 * kSecond).queued);
  // A pending job of the burst starts on node1: it takes over one of the
  // three holds left there (its kind's), and the GPU that one held.
  const PlaceResult late = Ask(*c, TaskStart("slurm-3.batch", "node1"), 6 * kSecond);
  EXPECT_TRUE(late.ok) << late.error;
  EXPECT_EQ(c->reservations().consumed_total(), 1u);
  EXPECT_EQ(c->reservations().yielded_total(), 1u);
  // A job on a node whose GPUs are held by nothing but real jobs still waits.
  auto full = Make();
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(Ask(*full, TaskStart("slurm-" + std::to_string(i) + ".batch", "node1")).ok);
  }
  EXPECT_TRUE(Ask(*full, TaskStart("slurm-5.batch", "node1")).queued);
  EXPECT_EQ(full->reservations().yielded_total(), 0u);
}

TEST_F(CoordinatorReservationTest, AnUnconsumedReservationExpiresAfterTheTtl) {
  auto c = Make(/*reservation_ttl_s=*/30);
  ASSERT_EQ(Where(Ask(*c, Submission(), 1 * kSecond)), "node1:0");
  // Held until 31 s: a dry run just before sees it...
  std::vector<Outgoing> out;
  c->OnTick(31 * kSecond - 1, kUnix, &out);
  EXPECT_EQ(c->reservations().held().size(), 1u);
  // ...and after, the job never came: node1:0 is free again.
  c->OnTick(31 * kSecond, kUnix, &out);
  EXPECT_TRUE(c->reservations().held().empty());
  EXPECT_EQ(c->reservations().expired_total(31 * kSecond), 1u);
  EXPECT_EQ(Where(Ask(*c, Submission(), 32 * kSecond)), "node1:0");
  // The late job's real request finds nothing to take over and is placed as usual.
  ASSERT_EQ(Where(Ask(*c, TaskStart("slurm-9.batch", "node1"), 70 * kSecond)), "node1:0");
  EXPECT_EQ(c->reservations().consumed_total(), 0u);
  const std::string metrics = c->MetricsText(70 * kSecond);
  EXPECT_THAT(metrics, HasSubstr("\niashim_reservations_expired_total 2\n"));
  EXPECT_THAT(metrics, HasSubstr("\niashim_reservations 0\n"));
}

TEST_F(CoordinatorReservationTest, ATtlOfZeroKeepsEveryDryRunOnTheSameGpu) {
  auto c = Make(/*reservation_ttl_s=*/0);
  const std::map<std::string, int> answers = Burst(*c, 10);
  EXPECT_EQ(answers, (std::map<std::string, int>{{"node1:0", 10}}));
  EXPECT_TRUE(c->reservations().held().empty());
  EXPECT_THAT(c->MetricsText(3 * kSecond), HasSubstr("\niashim_reservations 0\n"));
}

TEST_F(CoordinatorReservationTest, StatusShowsReservations) {
  auto c = Make();
  ASSERT_TRUE(Ask(*c, Submission(), 1 * kSecond).ok);
  const std::string snap = c->EncodeSnapshot(3 * kSecond, kUnix);
  const ReceivedMessage status(snap);
  ASSERT_NE(status.envelope(), nullptr);
  const w::StateSnapshot* s = status.envelope()->payload_as_StateSnapshot();
  ASSERT_NE(s, nullptr);
  const std::string json = cli::FormatStatusJson(*s);
  EXPECT_THAT(json, HasSubstr("\"reservations\": [\n    {\n      \"host\": \"node1\",\n"
                              "      \"gpus\": [\n        0\n      ],\n"
                              "      \"priority\": \"guaranteed\",\n"
                              "      \"kind\": \"resnet50\",\n      \"mem_bytes\": 0,\n"
                              "      \"expires_in_s\": 28\n    }\n  ]"))
      << json;
  const std::string table = cli::FormatStatusTable(*s);
  EXPECT_THAT(table, HasSubstr("0 jobs  1 reservation\n")) << table;
  EXPECT_THAT(table, HasSubstr("node1:0 Tesla V100  busy 0%  memory 0 B of 32.0 GiB  0 jobs\n"
                               "  reserved for 1 job on its way (a dry run's): guar resnet50 "
                               "whole GPU (28s left)\n"))
      << table;
  EXPECT_EQ(table.find("reserved for"), table.rfind("reserved for")) << table;

  // Once it expired, neither shows it.
  const std::string later = c->EncodeSnapshot(40 * kSecond, kUnix);
  const ReceivedMessage expired(later);
  ASSERT_NE(expired.envelope(), nullptr);
  const w::StateSnapshot* e = expired.envelope()->payload_as_StateSnapshot();
  EXPECT_THAT(cli::FormatStatusJson(*e), HasSubstr("\"reservations\": []"));
  EXPECT_THAT(cli::FormatStatusTable(*e), Not(HasSubstr("reserv")));
}

}  // namespace
}  // namespace iashim::daemon
