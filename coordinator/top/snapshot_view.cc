#include "snapshot_view.h"

#include <cstring>
#include <memory>

#include "absl/strings/ascii.h"
#include "flatbuffers/flatbuffers.h"
#include "telemetry_generated.h"

namespace iashim::top {
namespace {

std::string Str(const flatbuffers::String* s) { return s == nullptr ? std::string() : s->str(); }

JobView FromJob(const wire::JobState& j) {
  JobView v;
  v.job = Str(j.job());
  v.pid = j.pid();
  v.host = Str(j.host());
  v.command = Str(j.command());
  v.priority = j.priority() == wire::Priority::Opportunistic ? Priority::kOpportunistic
                                                             : Priority::kGuaranteed;
  v.share = j.share();
  v.max_inflight = j.max_inflight();
  v.slowdown = j.slowdown();
  v.slowdown_target = j.slowdown_target();
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
  v.connected = j.connected();
  return v;
}

GpuView FromGpu(const wire::GpuState& g) {
  GpuView v;
  v.id = g.id();
  v.host = Str(g.host());
  v.name = Str(g.name());
  v.uuid = Str(g.uuid());
  v.memory_bytes = g.memory_bytes();
  v.busy = g.busy();
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
  if (data == nullptr || size == 0) return DecodeStatus::kInvalid;
  // FlatBuffers reads scalars as aligned words (8 bytes at most); ZeroMQ keeps
  // small messages inside the message object at any alignment.
  std::unique_ptr<uint64_t[]> aligned;
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (reinterpret_cast<uintptr_t>(data) % alignof(uint64_t) != 0) {
    aligned = std::make_unique<uint64_t[]>(size / sizeof(uint64_t) + 1);
    std::memcpy(aligned.get(), data, size);
    bytes = reinterpret_cast<const uint8_t*>(aligned.get());
  }
  flatbuffers::Verifier verifier(bytes, size);
  if (!wire::VerifyEnvelopeBuffer(verifier)) return DecodeStatus::kInvalid;
  const wire::Envelope* envelope = wire::GetEnvelope(bytes);
  if (envelope->version() != wire::Version::Current) return DecodeStatus::kWrongVersion;
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

ClusterView FromSnapshot(const wire::StateSnapshot& snapshot) {
  ClusterView v;
  v.seq = snapshot.seq();
  v.unix_ns = snapshot.unix_ns();
  v.coordinator_version = Str(snapshot.coordinator_version());
  v.uptime_s = snapshot.uptime_s();
  v.invalid_messages = snapshot.invalid_messages();
  if (snapshot.gpus() != nullptr) {
    v.gpus.reserve(snapshot.gpus()->size());
    for (const wire::GpuState* g : *snapshot.gpus()) {
      if (g != nullptr) v.gpus.push_back(FromGpu(*g));
    }
  }
  return v;
}

DecodeStatus ClassifyMessage(const void* data, size_t size) { return Inspect(data, size, nullptr); }

DecodeStatus DecodeMessage(const void* data, size_t size, ClusterView* out) {
  return Inspect(data, size, out);
}

}  // namespace iashim::top
