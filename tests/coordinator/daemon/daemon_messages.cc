#include "tests/coordinator/daemon/daemon_messages.h"

#include "common/wire/envelope.h"
#include "common/wire/kernel_id.h"
#include "coordinator/daemon/wire_convert.h"
#include "flatbuffers/flatbuffers.h"

namespace iashim::daemon::testing {
namespace {

namespace w = iashim::wire;

// A string a peer may leave out: left out when empty.
const char* NullIfEmpty(const std::string& s) { return s.empty() ? nullptr : s.c_str(); }

void AddV100(const std::string& host, int index, policy::Cluster* cluster) {
  const std::string uuid = "GPU-" + std::to_string(cluster->gpus.size() + 1);
  cluster->gpus.push_back({{host, index}, "v100", "Tesla V100", uuid, uint64_t{32} << 30});
}

}  // namespace

std::span<const uint8_t> Bytes(const std::string& message) {
  return {reinterpret_cast<const uint8_t*>(message.data()), message.size()};
}

policy::Cluster Gpus(int count) {
  policy::Cluster cluster;
  for (int i = 0; i < count; ++i) AddV100("node1", i, &cluster);
  return cluster;
}

policy::Cluster TwoNodes() {
  policy::Cluster cluster = Gpus(2);
  AddV100("node2", 0, &cluster);
  return cluster;
}

// The generated *Direct functions create a message's strings in field order:
// the bytes, and so the seed corpus checked in under tests/fuzz/corpus/, stay
// the same whichever way a message was built before.
std::string Hello(const HelloSpec& s) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto hello =
      w::CreateHelloDirect(fbb, s.pid, s.host.c_str(), s.job.c_str(), s.command.c_str(), "0.1.0",
                           /*window_ms=*/100, s.mem_limit_bytes, s.start_unix_ns,
                           s.start_monotonic_ns, s.priority, /*share=*/1.0, NullIfEmpty(s.token),
                           s.rank);
  return EnvelopeBytes(fbb, w::Payload::Hello, hello.Union());
}

std::string Telemetry(const TelemetrySpec& s) {
  flatbuffers::FlatBufferBuilder fbb;
  // 100 launches of 80 blocks of 128 threads; 10 of them timed, at kernel_ms each.
  std::vector<flatbuffers::Offset<w::KernelStats>> kernels;
  const auto kernel_ns = uint64_t(s.kernel_ms * 1e6);
  auto add = [&](double collective_ms, int device) {
    kernels.push_back(w::CreateKernelStats(fbb, 0xabcdef, 100, 80, 1, 1, 128, 1, 1, 0, 8000, 10,
                                           10 * kernel_ns, kernel_ns, kernel_ns, device));
    if (collective_ms <= 0) return;
    const auto ns = uint64_t(collective_ms * 1e6);
    kernels.push_back(w::CreateKernelStats(fbb, KernelId(kCollectiveKernelName), 1, 4, 1, 1, 512, 1,
                                           1, 0, 4, 1, ns, ns, ns, device));
  };
  if (s.collective_ms_per_device.empty()) add(s.collective_ms, -1);
  for (size_t d = 0; d < s.collective_ms_per_device.size(); ++d) {
    add(s.collective_ms_per_device[d], int(d));
  }
  const auto batch = w::CreateTelemetryBatchDirect(
      fbb, s.seq, s.start_ns, s.start_ns + kTick, /*launches=*/100, /*graph_launches=*/0,
      /*syncs=*/1, /*iterations=*/1, uint64_t(s.iteration_ms * 1e6), /*sample_every=*/10, &kernels,
      /*memory=*/nullptr, /*batches_dropped=*/0, /*records_dropped=*/0, s.share,
      /*held_launches=*/0, /*held_ns=*/0, /*charge_scale=*/1.0, /*gpu_share=*/-1.0, s.gpu_energy_j,
      uint64_t(s.cpu_wait_ms * 1e6));
  return EnvelopeBytes(fbb, w::Payload::TelemetryBatch, batch.Union());
}

std::string KernelNames(const std::vector<KernelNameSpec>& names) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<w::KernelName>> entries;
  for (const KernelNameSpec& n : names) {
    entries.push_back(w::CreateKernelNameDirect(fbb, n.kernel, n.name.c_str()));
  }
  const auto message = w::CreateKernelNamesDirect(fbb, &entries);
  return EnvelopeBytes(fbb, w::Payload::KernelNames, message.Union());
}

std::string Goodbye(const GoodbyeSpec& s) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto goodbye = w::CreateGoodbye(fbb, s.launches, s.exit_code);
  return EnvelopeBytes(fbb, w::Payload::Goodbye, goodbye.Union());
}

std::string Place(const PlaceSpec& s) {
  flatbuffers::FlatBufferBuilder fbb;
  flatbuffers::Offset<w::BatchJob> batch;
  if (s.batch) {
    batch = w::CreateBatchJobDirect(fbb, s.batch->system.c_str(), s.batch->job.c_str(),
                                    s.batch->step.c_str(), s.batch->task);
  }
  const std::vector<int32_t>* allowed = s.allowed_gpus ? &*s.allowed_gpus : nullptr;
  const auto place = w::CreatePlaceRequestDirect(
      fbb, s.job.c_str(), s.priority, s.mem_bytes, s.gpu, s.host.c_str(), NullIfEmpty(s.command),
      s.slowdown_target, NullIfEmpty(s.kind), allowed, batch, s.dry_run, s.gpus, s.guaranteed_gres,
      s.movable);
  return EnvelopeBytes(fbb, w::Payload::PlaceRequest, place.Union());
}

std::string Release(const std::string& job, const std::string& token) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto release = w::CreateReleaseRequestDirect(fbb, job.c_str(), token.c_str());
  return EnvelopeBytes(fbb, w::Payload::ReleaseRequest, release.Union());
}

std::string Admin(const AdminSpec& s) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto admin =
      w::CreateAdminRequestDirect(fbb, s.action, s.host.c_str(), s.gpu, s.job.c_str(), s.priority);
  return EnvelopeBytes(fbb, w::Payload::AdminRequest, admin.Union());
}

ReceivedMessage::ReceivedMessage(std::string_view bytes)
    : envelope_(w::OpenEnvelope(bytes.data(), bytes.size(), &storage_).envelope) {}

PlaceResult LastPlaceReply(const std::vector<Outgoing>& out) {
  PlaceResult r;
  if (out.empty()) return r;
  const ReceivedMessage last(out.back().bytes);
  const w::PlaceReply* reply = last.envelope() ? last.envelope()->payload_as_PlaceReply() : nullptr;
  if (reply == nullptr) return r;
  auto str = [](const flatbuffers::String* s) { return s ? s->str() : std::string(); };
  r.replied = true;
  r.ok = reply->ok();
  r.error = str(reply->error());
  r.job = str(reply->job());
  r.host = str(reply->host());
  r.gpu = reply->gpu();
  r.share = reply->share();
  r.mem_limit_bytes = reply->mem_limit_bytes();
  r.queued = reply->queued();
  r.token = str(reply->token());
  r.dry_run = reply->dry_run();
  if (reply->gpu_indices()) r.gpu_indices.assign(reply->gpu_indices()->begin(), reply->gpu_indices()->end());
  if (reply->gpu_uuids()) {
    for (const flatbuffers::String* u : *reply->gpu_uuids()) r.gpu_uuids.push_back(str(u));
  }
  if (reply->prefer_hosts()) {
    for (const flatbuffers::String* h : *reply->prefer_hosts()) r.prefer_hosts.push_back(str(h));
  }
  if (reply->gpu_hosts()) {
    for (const flatbuffers::String* h : *reply->gpu_hosts()) r.gpu_hosts.push_back(str(h));
  }
  return r;
}

}  // namespace iashim::daemon::testing
