#include "coordinator/top/snapshot_view.h"

#include <cstring>
#include <limits>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/top/snapshot_encoder.h"

namespace iashim::top {
namespace {

using test_support::EncodeHello;
using test_support::EncodeSnapshot;
using test_support::SampleCluster;

TEST(DecodeMessage, RoundTripsEveryField) {
  const ClusterView sent = SampleCluster();
  const std::vector<uint8_t> bytes = EncodeSnapshot(sent);
  ClusterView got;
  ASSERT_EQ(DecodeMessage(bytes.data(), bytes.size(), &got), DecodeStatus::kOk);
  EXPECT_EQ(got.seq, sent.seq);
  EXPECT_EQ(got.unix_ns, sent.unix_ns);
  EXPECT_EQ(got.coordinator_version, "0.1.0");
  EXPECT_DOUBLE_EQ(got.uptime_s, sent.uptime_s);
  EXPECT_EQ(got.invalid_messages, 2u);
  ASSERT_EQ(got.gpus.size(), 1u);
  const GpuView& g = got.gpus[0];
  EXPECT_EQ(g.id, 0);
  EXPECT_EQ(g.host, "node-a");
  EXPECT_EQ(g.name, "NVIDIA H200");
  EXPECT_EQ(g.uuid, "GPU-1234");
  EXPECT_EQ(g.memory_bytes, sent.gpus[0].memory_bytes);
  EXPECT_DOUBLE_EQ(g.busy, 0.87);
  ASSERT_EQ(g.jobs.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const JobView& want = sent.gpus[0].jobs[i];
    const JobView& j = g.jobs[i];
    EXPECT_EQ(j.job, want.job);
    EXPECT_EQ(j.pid, want.pid);
    EXPECT_EQ(j.host, want.host);
    EXPECT_EQ(j.command, want.command);
    EXPECT_EQ(j.priority, want.priority);
    EXPECT_DOUBLE_EQ(j.share, want.share);
    EXPECT_DOUBLE_EQ(j.slowdown, want.slowdown);
    EXPECT_DOUBLE_EQ(j.slowdown_target, want.slowdown_target);
    EXPECT_DOUBLE_EQ(j.kernels_per_s, want.kernels_per_s);
    EXPECT_DOUBLE_EQ(j.busy, want.busy);
    EXPECT_EQ(j.mem_bytes, want.mem_bytes);
    EXPECT_EQ(j.mem_limit_bytes, want.mem_limit_bytes);
    EXPECT_EQ(j.budget_age_ms, want.budget_age_ms);
    EXPECT_EQ(j.connected, want.connected);
    EXPECT_EQ(j.baseline, want.baseline);
    EXPECT_EQ(j.probing, want.probing);
  }
  EXPECT_EQ(g.jobs[2].priority, Priority::kOpportunistic);
  EXPECT_EQ(g.MemUsed(), (8ull + 12 + 13) << 30);
  EXPECT_FALSE(g.drained);
}

TEST(DecodeMessage, Drained) {
  ClusterView sent = SampleCluster();
  sent.gpus[0].drained = true;
  const std::vector<uint8_t> bytes = EncodeSnapshot(sent);
  ClusterView got;
  ASSERT_EQ(DecodeMessage(bytes.data(), bytes.size(), &got), DecodeStatus::kOk);
  EXPECT_TRUE(got.gpus[0].drained);
}

// A dry run's placement is shown on every GPU it holds: a gang's on each of
// them, and only on its own host's.
TEST(DecodeMessage, ReservationsGoToTheGpusTheyHold) {
  ClusterView sent = SampleCluster();
  GpuView g1 = sent.gpus[0];
  g1.id = 1;
  g1.jobs.clear();
  GpuView other = g1;
  other.host = "node-b";
  ReservationView gang;
  gang.priority = Priority::kGuaranteed;
  gang.kind = "resnet50";
  gang.mem_bytes = 16ull << 30;
  gang.gpus = {0, 1};
  gang.expires_in_s = 28;
  sent.gpus[0].reservations = {gang};
  g1.reservations = {gang};
  sent.gpus.push_back(g1);
  sent.gpus.push_back(other);
  const std::vector<uint8_t> bytes = EncodeSnapshot(sent);
  ClusterView got;
  ASSERT_EQ(DecodeMessage(bytes.data(), bytes.size(), &got), DecodeStatus::kOk);
  ASSERT_EQ(got.gpus.size(), 3u);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(got.gpus[size_t(i)].reservations.size(), 1u) << i;
    const ReservationView& r = got.gpus[size_t(i)].reservations[0];
    EXPECT_EQ(r.priority, Priority::kGuaranteed);
    EXPECT_EQ(r.kind, "resnet50");
    EXPECT_EQ(r.mem_bytes, 16ull << 30);
    EXPECT_EQ(r.gpus, (std::vector<int>{0, 1}));
    EXPECT_DOUBLE_EQ(r.expires_in_s, 28);
  }
  EXPECT_TRUE(got.gpus[2].reservations.empty());  // node-b's GPU 1
}

// The control loop's last decision goes with its GPU; a GPU without one has none.
TEST(DecodeMessage, TheLoopsDecisionGoesWithItsGpu) {
  ClusterView sent = SampleCluster();
  GpuView idle = sent.gpus[0];
  idle.id = 1;
  sent.gpus[0].loop = LoopView{"hold: calming", 0.64, 0.7, 0.8};
  sent.gpus.push_back(idle);
  const std::vector<uint8_t> bytes = EncodeSnapshot(sent);
  ClusterView got;
  ASSERT_EQ(DecodeMessage(bytes.data(), bytes.size(), &got), DecodeStatus::kOk);
  ASSERT_TRUE(got.gpus[0].loop.has_value());
  EXPECT_EQ(got.gpus[0].loop->action, "hold: calming");
  EXPECT_DOUBLE_EQ(got.gpus[0].loop->worst_ratio, 0.64);
  EXPECT_DOUBLE_EQ(got.gpus[0].loop->calm_below, 0.7);
  EXPECT_DOUBLE_EQ(got.gpus[0].loop->aim, 0.8);
  EXPECT_FALSE(got.gpus[1].loop.has_value());
}

TEST(DecodeMessage, AbsentFieldsReadAsEmptyOrDefault) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<wire::JobState>> jobs = {wire::JobStateBuilder(fbb).Finish()};
  auto gpu = wire::CreateGpuState(fbb, 3, 0, 0, 0, 0, 0, fbb.CreateVector(jobs));
  std::vector<flatbuffers::Offset<wire::GpuState>> gpus = {gpu};
  auto snapshot = wire::CreateStateSnapshot(fbb, 1, 0, 0, 0, fbb.CreateVector(gpus));
  fbb.Finish(wire::CreateEnvelope(fbb, wire::Version::Current, 0, wire::Payload::StateSnapshot,
                                  snapshot.Union()));
  ClusterView got;
  ASSERT_EQ(DecodeMessage(fbb.GetBufferPointer(), fbb.GetSize(), &got), DecodeStatus::kOk);
  EXPECT_EQ(got.coordinator_version, "");
  ASSERT_EQ(got.gpus.size(), 1u);
  EXPECT_EQ(got.gpus[0].id, 3);
  EXPECT_EQ(got.gpus[0].host, "");
  ASSERT_EQ(got.gpus[0].jobs.size(), 1u);
  EXPECT_EQ(got.gpus[0].jobs[0].job, "");
  EXPECT_DOUBLE_EQ(got.gpus[0].jobs[0].share, 1.0);  // the schema default
  EXPECT_EQ(got.gpus[0].jobs[0].priority, Priority::kGuaranteed);
}

TEST(DecodeMessage, SnapshotWithoutGpus) {
  ClusterView empty;
  empty.seq = 5;
  const std::vector<uint8_t> bytes = EncodeSnapshot(empty);
  ClusterView got;
  ASSERT_EQ(DecodeMessage(bytes.data(), bytes.size(), &got), DecodeStatus::kOk);
  EXPECT_EQ(got.seq, 5u);
  EXPECT_TRUE(got.gpus.empty());
}

TEST(DecodeMessage, AcceptsAMisalignedBuffer) {
  const std::vector<uint8_t> bytes = EncodeSnapshot(SampleCluster());
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  ClusterView got;
  ASSERT_EQ(DecodeMessage(shifted.data() + 1, bytes.size(), &got), DecodeStatus::kOk);
  ASSERT_EQ(got.gpus.size(), 1u);
  EXPECT_EQ(got.gpus[0].jobs.size(), 3u);
}

TEST(DecodeMessage, RejectsGarbageWithoutTouchingTheOutput) {
  ClusterView got;
  got.seq = 99;
  const char junk[] = "definitely not a flatbuffer";
  EXPECT_EQ(DecodeMessage(junk, sizeof(junk), &got), DecodeStatus::kInvalid);
  EXPECT_EQ(DecodeMessage(nullptr, 0, &got), DecodeStatus::kInvalid);
  EXPECT_EQ(DecodeMessage(junk, 0, &got), DecodeStatus::kInvalid);
  EXPECT_EQ(got.seq, 99u);
}

TEST(DecodeMessage, RejectsTruncations) {
  const std::vector<uint8_t> bytes = EncodeSnapshot(SampleCluster());
  int still_whole = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n));
    ClusterView got;
    const DecodeStatus s = DecodeMessage(prefix.data(), prefix.size(), &got);
    if (s == DecodeStatus::kOk) {
      // Only alignment padding at the very end may go missing unnoticed:
      // nothing the snapshot references.
      ++still_whole;
      ASSERT_EQ(got.gpus.size(), 1u) << n;
      EXPECT_EQ(got.gpus[0].jobs.size(), 3u) << n;
    } else {
      EXPECT_EQ(s, DecodeStatus::kInvalid) << n;
    }
  }
  EXPECT_LT(still_whole, 8);
}

TEST(DecodeMessage, SurvivesCorruptedBytes) {
  // Whatever a flipped byte does, the result is a status, never a crash (the
  // sanitizer build checks the reads).
  const std::vector<uint8_t> bytes = EncodeSnapshot(SampleCluster());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::vector<uint8_t> bad = bytes;
    bad[i] ^= 0xff;
    ClusterView got;
    const DecodeStatus s = DecodeMessage(bad.data(), bad.size(), &got);
    EXPECT_TRUE(s == DecodeStatus::kOk || s == DecodeStatus::kInvalid ||
                s == DecodeStatus::kWrongVersion || s == DecodeStatus::kNotSnapshot);
  }
}

TEST(DecodeMessage, RejectsAnotherVersion) {
  const std::vector<uint8_t> bytes = EncodeSnapshot(SampleCluster(), /*version=*/2);
  ClusterView got;
  EXPECT_EQ(DecodeMessage(bytes.data(), bytes.size(), &got), DecodeStatus::kWrongVersion);
  EXPECT_EQ(ClassifyMessage(bytes.data(), bytes.size()), DecodeStatus::kWrongVersion);
}

TEST(DecodeMessage, RejectsAnotherPayload) {
  const std::vector<uint8_t> bytes = EncodeHello();
  ClusterView got;
  EXPECT_EQ(DecodeMessage(bytes.data(), bytes.size(), &got), DecodeStatus::kNotSnapshot);
}

TEST(ClassifyMessage, AgreesWithDecode) {
  const std::vector<uint8_t> good = EncodeSnapshot(SampleCluster());
  EXPECT_EQ(ClassifyMessage(good.data(), good.size()), DecodeStatus::kOk);
  const std::vector<uint8_t> hello = EncodeHello();
  EXPECT_EQ(ClassifyMessage(hello.data(), hello.size()), DecodeStatus::kNotSnapshot);
  EXPECT_EQ(ClassifyMessage("xx", 2), DecodeStatus::kInvalid);
}

TEST(JobView, OverTargetOnlyForGuaranteedJobsWithATarget) {
  JobView j;
  j.priority = Priority::kGuaranteed;
  j.slowdown_target = 0.1;
  j.slowdown = 0.2;
  EXPECT_TRUE(j.OverTarget());
  j.slowdown = 0.05;
  EXPECT_FALSE(j.OverTarget());
  j.slowdown = -1;
  EXPECT_FALSE(j.OverTarget());
  j.slowdown = 0.2;
  j.slowdown_target = 0;
  EXPECT_FALSE(j.OverTarget());
  j.slowdown_target = 0.1;
  j.priority = Priority::kOpportunistic;
  EXPECT_FALSE(j.OverTarget());
}

TEST(JobView, StateFromConnectedAndPid) {
  JobView j;
  j.pid = 0;
  EXPECT_EQ(j.State(), JobState::kPlaced);
  j.pid = 42;
  EXPECT_EQ(j.State(), JobState::kDisconnected);
  j.lost = true;
  EXPECT_EQ(j.State(), JobState::kLost);
  j.connected = true;
  EXPECT_EQ(j.State(), JobState::kConnected);
}

TEST(GpuView, BusySharesAddUpToTheGpu) {
  GpuView g = SampleCluster().gpus[0];  // 0.55 + 0.25 + 0.07 = 0.87 = the GPU's busy
  EXPECT_NEAR(g.BusyShare(g.jobs[0]), 0.55, 1e-12);
  EXPECT_NEAR(g.BusyShare(g.jobs[2]), 0.07, 1e-12);
  // Overlapping estimates past 1 while the GPU is capped at 1: scaled down.
  g.jobs[0].busy = 0.9;
  g.jobs[1].busy = 0.6;
  g.jobs[2].busy = 0.0;
  g.busy = 1.0;
  EXPECT_NEAR(g.BusyShare(g.jobs[0]), 0.6, 1e-12);
  EXPECT_NEAR(g.BusyShare(g.jobs[1]), 0.4, 1e-12);
  EXPECT_EQ(g.BusyShare(g.jobs[2]), 0);
  double sum = 0;
  for (const JobView& j : g.jobs) sum += g.BusyShare(j);
  EXPECT_NEAR(sum, g.busy, 1e-12);
}

TEST(GpuView, BusyShareOfNothingOrGarbageIsZero) {
  GpuView g = SampleCluster().gpus[0];
  for (JobView& j : g.jobs) j.busy = 0;
  EXPECT_EQ(g.BusyShare(g.jobs[0]), 0);
  g.jobs[0].busy = std::numeric_limits<double>::quiet_NaN();
  g.jobs[1].busy = 0.5;
  EXPECT_EQ(g.BusyShare(g.jobs[0]), 0);
  g.busy = std::numeric_limits<double>::quiet_NaN();  // the jobs' own sum, then
  EXPECT_NEAR(g.BusyShare(g.jobs[1]), 0.5, 1e-12);
}

TEST(DecodeMessage, AGangKeepsItsGpusRanksAndSlowestRate) {
  ClusterView sent;
  GpuView g0, g1, g2;
  g0.id = 0;
  g1.id = 1;
  g2.id = 2;
  g0.host = g1.host = g2.host = "node-a";
  JobView gang;
  gang.job = "ddp";
  gang.pid = 4100;
  gang.gpus = {0, 1};
  gang.ranks = 2;
  gang.slowest_rank_iteration_ns = 200'000'000;
  g0.jobs.push_back(gang);
  sent.gpus = {g0, g1, g2};
  const std::vector<uint8_t> bytes = EncodeSnapshot(sent);
  ClusterView got;
  ASSERT_EQ(DecodeMessage(bytes.data(), bytes.size(), &got), DecodeStatus::kOk);
  ASSERT_EQ(got.gpus.size(), 3u);
  ASSERT_EQ(got.gpus[0].jobs.size(), 1u);
  const JobView& j = got.gpus[0].jobs[0];
  EXPECT_EQ(j.gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(j.ranks, 2);
  EXPECT_EQ(j.slowest_rank_iteration_ns, 200'000'000u);
  // Its other GPU says whose it is; a GPU it does not use says nothing.
  EXPECT_EQ(got.gpus[1].gangs_listed_elsewhere, (std::vector<std::string>{"ddp (on node-a:0)"}));
  EXPECT_TRUE(got.gpus[2].gangs_listed_elsewhere.empty());
  EXPECT_TRUE(got.gpus[0].gangs_listed_elsewhere.empty());
}

}  // namespace
}  // namespace iashim::top
