#include "coordinator/top/snapshot_view.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/wire/envelope.h"
#include "common/wire/priority_wire.h"
#include "common/wire/wire_string.h"
#include "flatbuffers/flatbuffers.h"
#include "schemas/telemetry_generated.h"

namespace iashim::top {
namespace {


JobView FromJob(const wire::JobState& j) {
  JobView v;
  v.job = wire::StringOf(j.job());
  v.pid = j.pid();
  v.host = wire::StringOf(j.host());
  v.command = wire::StringOf(j.command());
  v.priority = FromWire(j.priority());
  v.beside_guaranteed = j.beside_guaranteed() != nullptr && j.beside_guaranteed()->size() > 0;
  v.share = j.share();
  v.max_inflight = j.max_inflight();
  v.slowdown = j.slowdown();
  v.slowdown_target = j.slowdown_target();
  v.run_slowdown = j.run_slowdown();
  v.kernels_per_s = j.kernels_per_s();
  v.busy = j.busy();
  v.iteration_ns = j.iteration_ns();
  v.baseline_iteration_ns = j.baseline_iteration_ns();
  if (j.baseline_source() != wire::BaselineSource::None) {
    v.baseline = absl::AsciiStrToLower(wire::EnumNameBaselineSource(j.baseline_source()));
  }
  v.probing = j.probing();
  v.mem_bytes = j.mem_bytes();
  v.mem_limit_bytes = j.mem_limit_bytes();
  v.budget_age_ms = j.budget_age_ms();
  v.held_launches_per_s = j.held_launches_per_s();
  v.energy_j = j.energy_j();
  v.energy_per_iteration_j = j.energy_per_iteration_j();
  v.connected = j.connected();
  v.lost = j.lost();
  if (j.gpus() != nullptr && j.gpus()->size() > 1) v.gpus.assign(j.gpus()->begin(), j.gpus()->end());
  if (j.ranks() != nullptr) {
    for (const wire::RankState* r : *j.ranks()) {
      if (r == nullptr) continue;
      ++v.ranks;
      if (r->connected()) {
        v.slowest_rank_iteration_ns = std::max(v.slowest_rank_iteration_ns, r->iteration_ns());
      }
    }
  }
  return v;
}

GpuView FromGpu(const wire::GpuState& g) {
  GpuView v;
  v.id = g.id();
  v.host = wire::StringOf(g.host());
  v.name = wire::StringOf(g.name());
  v.uuid = wire::StringOf(g.uuid());
  v.memory_bytes = g.memory_bytes();
  v.busy = g.busy();
  v.drained = g.drained();
  v.power_w = g.power_w();
  v.node_lost_s = g.node_lost_s();
  if (const wire::LoopState* loop = g.loop(); loop != nullptr) {
    v.loop = LoopView{wire::StringOf(loop->action()), loop->worst_ratio(), loop->calm_below(),
                      loop->aim()};
  }
  if (g.jobs() != nullptr) {
    v.jobs.reserve(g.jobs()->size());
    for (const wire::JobState* j : *g.jobs()) {
      if (j != nullptr) v.jobs.push_back(FromJob(*j));
    }
  }
  return v;
}

// Verifies and classifies; decodes into `*out` when it is not null.
DecodeStatus Inspect(const void* data, size_t size, ClusterView* out) {
  std::vector<uint64_t> storage;
  const wire::OpenedEnvelope in = wire::OpenEnvelope(data, size, &storage);
  switch (in.error) {
    case wire::EnvelopeError::kNone: break;
    case wire::EnvelopeError::kInvalid: return DecodeStatus::kInvalid;
    case wire::EnvelopeError::kWrongVersion: return DecodeStatus::kWrongVersion;
  }
  const wire::Envelope* envelope = in.envelope;
  const wire::StateSnapshot* snapshot = envelope->payload_as_StateSnapshot();
  if (snapshot == nullptr) return DecodeStatus::kNotSnapshot;
  if (out != nullptr) *out = FromSnapshot(*snapshot);
  return DecodeStatus::kOk;
}

}  // namespace

uint64_t GpuView::MemUsed() const {
  uint64_t sum = 0;
  for (const JobView& j : jobs) sum += j.mem_bytes;
  return sum;
}

double GpuView::BusyShare(const JobView& job) const {
  auto known = [](double v) { return std::isfinite(v) && v > 0; };
  double sum = 0;
  for (const JobView& j : jobs) sum += known(j.busy) ? j.busy : 0;
  if (!known(job.busy) || sum <= 0) return 0;
  // A GPU figure the wire lacks or garbles: the jobs' own sum, capped as the
  // coordinator caps it.
  const double gpu = std::isfinite(busy) && busy >= 0 ? std::min(busy, 1.0) : std::min(sum, 1.0);
  return job.busy / sum * gpu;
}

ClusterView FromSnapshot(const wire::StateSnapshot& snapshot) {
  ClusterView v;
  v.seq = snapshot.seq();
  v.unix_ns = snapshot.unix_ns();
  v.coordinator_version = wire::StringOf(snapshot.coordinator_version());
  v.uptime_s = snapshot.uptime_s();
  v.invalid_messages = snapshot.invalid_messages();
  if (snapshot.gpus() != nullptr) {
    v.gpus.reserve(snapshot.gpus()->size());
    for (const wire::GpuState* g : *snapshot.gpus()) {
      if (g != nullptr) v.gpus.push_back(FromGpu(*g));
    }
  }
  if (snapshot.reservations() != nullptr) {
    for (const wire::Reservation* r : *snapshot.reservations()) {
      if (r == nullptr || r->gpus() == nullptr) continue;
      ReservationView rv;
      rv.priority = FromWire(r->priority());
      rv.kind = wire::StringOf(r->kind());
      rv.mem_bytes = r->mem_bytes();
      rv.gpus.assign(r->gpus()->begin(), r->gpus()->end());
      rv.expires_in_s = r->expires_in_s();
      const std::string host = wire::StringOf(r->host());
      for (GpuView& g : v.gpus) {
        if (g.host == host && std::find(rv.gpus.begin(), rv.gpus.end(), g.id) != rv.gpus.end()) {
          g.reservations.push_back(rv);
        }
      }
    }
  }
  // A gang's other GPUs would read "(no jobs)" though it runs there.
  for (const GpuView& g : v.gpus) {
    for (const JobView& j : g.jobs) {
      for (const int index : j.gpus) {
        if (index == g.id) continue;
        for (GpuView& other : v.gpus) {
          if (other.host == g.host && other.id == index) {
            other.gangs_listed_elsewhere.push_back(
                absl::StrCat(j.job, " (on ", g.host, ":", g.id, ")"));
          }
        }
      }
    }
  }
  return v;
}

DecodeStatus ClassifyMessage(const void* data, size_t size) { return Inspect(data, size, nullptr); }

DecodeStatus DecodeMessage(const void* data, size_t size, ClusterView* out) {
  return Inspect(data, size, out);
}

}  // namespace iashim::top
