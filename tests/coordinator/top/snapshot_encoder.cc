#include "tests/coordinator/top/snapshot_encoder.h"

#include "flatbuffers/flatbuffers.h"
#include "schemas/telemetry_generated.h"

namespace iashim::top::test_support {
namespace {

std::vector<uint8_t> Finish(flatbuffers::FlatBufferBuilder& fbb) {
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

// JobView's word back to the wire's enum ("" = none).
wire::BaselineSource BaselineSourceOf(const std::string& word) {
  if (word == "alone") return wire::BaselineSource::Alone;
  if (word == "probe") return wire::BaselineSource::Probe;
  if (word == "saved") return wire::BaselineSource::Saved;
  return wire::BaselineSource::None;
}

}  // namespace

std::vector<uint8_t> EncodeSnapshot(const ClusterView& view, uint16_t version) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<wire::GpuState>> gpus;
  for (const GpuView& g : view.gpus) {
    std::vector<flatbuffers::Offset<wire::JobState>> jobs;
    for (const JobView& j : g.jobs) {
      // A gang's ranks, each as slow as its slowest (what JobView keeps).
      const std::vector<int32_t> gang(j.gpus.begin(), j.gpus.end());
      std::vector<flatbuffers::Offset<wire::RankState>> ranks;
      for (int r = 0; r < j.ranks; ++r) {
        ranks.push_back(wire::CreateRankState(
            fbb, r, j.pid + r, r < static_cast<int>(j.gpus.size()) ? j.gpus[size_t(r)] : -1, true,
            j.slowest_rank_iteration_ns, 0));
      }
      jobs.push_back(wire::CreateJobStateDirect(
          fbb, j.job.c_str(), j.pid, j.host.c_str(), j.command.c_str(),
          j.priority == Priority::kGuaranteed ? wire::Priority::Guaranteed
                                              : wire::Priority::Opportunistic,
          j.share, j.max_inflight, j.slowdown, j.slowdown_target, j.kernels_per_s, j.busy,
          j.iteration_ns, j.baseline_iteration_ns, j.mem_bytes, j.mem_limit_bytes, j.budget_age_ms,
          j.held_launches_per_s, j.connected, 0, BaselineSourceOf(j.baseline), j.probing, -1.0,
          -1.0, gang.empty() ? nullptr : &gang, ranks.empty() ? nullptr : &ranks,
          /*lost=*/false, j.run_slowdown));
    }
    flatbuffers::Offset<wire::LoopState> loop;
    if (g.loop) {
      loop = wire::CreateLoopStateDirect(fbb, g.loop->action.c_str(), g.loop->worst_ratio,
                                         g.loop->calm_below, g.loop->aim);
    }
    gpus.push_back(wire::CreateGpuStateDirect(fbb, g.id, g.host.c_str(), g.name.c_str(),
                                              g.uuid.c_str(), g.memory_bytes, g.busy, &jobs,
                                              g.drained, g.power_w, -1, g.node_lost_s, loop));
  }
  // Each reservation once, from the first GPU it holds (the view lists a
  // gang's on every GPU of it).
  std::vector<flatbuffers::Offset<wire::Reservation>> reservations;
  for (const GpuView& g : view.gpus) {
    for (const ReservationView& r : g.reservations) {
      if (r.gpus.empty() || r.gpus.front() != g.id) continue;
      const std::vector<int32_t> held(r.gpus.begin(), r.gpus.end());
      reservations.push_back(wire::CreateReservationDirect(
          fbb, g.host.c_str(), &held,
          r.priority == Priority::kGuaranteed ? wire::Priority::Guaranteed
                                              : wire::Priority::Opportunistic,
          r.kind.c_str(), r.mem_bytes, r.expires_in_s));
    }
  }
  auto snapshot = wire::CreateStateSnapshotDirect(
      fbb, view.seq, view.unix_ns, view.coordinator_version.c_str(), view.uptime_s, &gpus,
      view.invalid_messages, /*state_error=*/nullptr, /*pairs=*/nullptr,
      reservations.empty() ? nullptr : &reservations);
  fbb.Finish(wire::CreateEnvelope(fbb, static_cast<wire::Version>(version), 42,
                                  wire::Payload::StateSnapshot, snapshot.Union()));
  return Finish(fbb);
}

std::vector<uint8_t> EncodeHello() {
  flatbuffers::FlatBufferBuilder fbb;
  auto hello = wire::CreateHelloDirect(fbb, 7, "node-a", "job", "python train.py", "0.1.0");
  fbb.Finish(
      wire::CreateEnvelope(fbb, wire::Version::Current, 7, wire::Payload::Hello, hello.Union()));
  return Finish(fbb);
}

ClusterView SampleCluster() {
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  ClusterView c;
  c.seq = 17;
  c.unix_ns = 1'700'000'000'000'000'000;
  c.coordinator_version = "0.1.0";
  c.uptime_s = 3725;
  c.invalid_messages = 2;
  GpuView g;
  g.id = 0;
  g.host = "node-a";
  g.name = "NVIDIA H200";
  g.uuid = "GPU-1234";
  g.memory_bytes = 80 * kGiB;
  g.busy = 0.87;

  JobView a;
  a.job = "resnet50";
  a.pid = 1201;
  a.host = "node-a";
  a.command = "python train.py --model resnet50";
  a.priority = Priority::kGuaranteed;
  a.share = 0.6;
  a.slowdown = 0.08;
  a.slowdown_target = 0.1;
  a.run_slowdown = 0.06;
  a.kernels_per_s = 12300;
  a.busy = 0.55;
  a.mem_bytes = 8 * kGiB;
  a.mem_limit_bytes = 16 * kGiB;
  a.budget_age_ms = 1200;
  a.connected = true;
  a.baseline = "probe";

  JobView b = a;
  b.job = "bert-large";
  b.pid = 1202;
  b.share = 0.3;
  b.slowdown = 0.25;  // over its 10% target
  b.run_slowdown = 0.12;
  b.kernels_per_s = 800;
  b.busy = 0.25;
  b.mem_bytes = 12 * kGiB;
  b.baseline = "alone";

  JobView c3 = a;
  c3.job = "gpt2-opp";
  c3.pid = 1203;
  c3.priority = Priority::kOpportunistic;
  c3.share = 0.1;
  c3.slowdown = -1;  // unknown
  c3.slowdown_target = 0;
  c3.run_slowdown = -1;
  c3.kernels_per_s = 40000;
  c3.busy = 0.07;
  c3.mem_bytes = 13 * kGiB;
  c3.mem_limit_bytes = 0;
  c3.budget_age_ms = 0;
  c3.baseline = "";  // none: opportunistic jobs are never probed

  g.jobs = {a, b, c3};
  c.gpus.push_back(g);
  return c;
}

}  // namespace iashim::top::test_support
