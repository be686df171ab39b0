#include "tests/coordinator/client/test_messages.h"

#include "flatbuffers/flatbuffers.h"

namespace iashim::client::testing {
namespace {

Bytes Finish(flatbuffers::FlatBufferBuilder& fbb) {
  return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

constexpr uint64_t kGiB = uint64_t{1} << 30;

}  // namespace

Bytes EncodePlaceReply(const PlaceReplyFields& f, uint16_t version) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<flatbuffers::String>> uuids;
  for (const std::string& u : f.gpu_uuids) uuids.push_back(fbb.CreateString(u));
  const auto reply =
      wire::CreatePlaceReplyDirect(fbb, f.ok, f.error.empty() ? nullptr : f.error.c_str(),
                                   f.job.c_str(), f.host.empty() ? nullptr : f.host.c_str(), f.gpu,
                                   f.gpu_uuid.c_str(), f.share, f.mem_limit_bytes, f.queued,
                                   f.token.empty() ? nullptr : f.token.c_str(), f.dry_run,
                                   f.gpus.empty() ? nullptr : &f.gpus,
                                   f.gpus.empty() ? nullptr : &uuids);
  fbb.Finish(wire::CreateEnvelope(fbb, static_cast<wire::Version>(version), 1,
                                  wire::Payload::PlaceReply, reply.Union()));
  return Finish(fbb);
}

Bytes EncodeErrorReply(const std::string& text) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto error = wire::CreateErrorReplyDirect(fbb, text.c_str());
  fbb.Finish(wire::CreateEnvelope(fbb, wire::Version::Current, 1, wire::Payload::ErrorReply,
                                  error.Union()));
  return Finish(fbb);
}

Bytes EncodeAdvice(const std::string& text) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto advice = wire::CreateAdviceDirect(fbb, wire::AdviceKind::Info, text.c_str());
  fbb.Finish(
      wire::CreateEnvelope(fbb, wire::Version::Current, 1, wire::Payload::Advice, advice.Union()));
  return Finish(fbb);
}

Bytes EncodeReleaseReply(bool released, const std::string& message) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto r = wire::CreateReleaseReplyDirect(fbb, released, message.c_str());
  fbb.Finish(
      wire::CreateEnvelope(fbb, wire::Version::Current, 1, wire::Payload::ReleaseReply, r.Union()));
  return Finish(fbb);
}

Bytes EncodeSampleSnapshot(uint16_t version) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<wire::JobState>> jobs;
  jobs.push_back(wire::CreateJobStateDirect(
      fbb, "resnet50", 1201, "node-a", "python train.py --model resnet50",
      wire::Priority::Guaranteed, /*share=*/0.6, /*max_inflight=*/8, /*slowdown=*/0.25,
      /*slowdown_target=*/0.1, /*kernels_per_s=*/12300, /*busy=*/0.55,
      /*iteration_ns=*/250'000'000, /*baseline_iteration_ns=*/200'000'000,
      /*mem_bytes=*/8 * kGiB, /*mem_limit_bytes=*/16 * kGiB, /*budget_age_ms=*/1200,
      /*held_launches_per_s=*/3.5, /*connected=*/true, /*batch=*/0,
      /*baseline_source=*/wire::BaselineSource::Probe, /*probing=*/false, /*energy_j=*/5412.0,
      /*energy_per_iteration_j=*/57.3, /*gpus=*/nullptr, /*ranks=*/nullptr, /*lost=*/false,
      /*run_slowdown=*/0.092, /*beside_guaranteed=*/nullptr, /*loop_target=*/0.098,
      /*share_set_by=*/0, /*cpu_wait=*/0.042, /*baseline_cpu_contended=*/true));
  jobs.push_back(wire::CreateJobStateDirect(
      fbb, "gpt2-opp", 1203, "node-a", "python \"gpt2\".py\n\xff", wire::Priority::Opportunistic,
      /*share=*/0.1, /*max_inflight=*/0, /*slowdown=*/-1, /*slowdown_target=*/0,
      /*kernels_per_s=*/800, /*busy=*/0.07, /*iteration_ns=*/0, /*baseline_iteration_ns=*/0,
      /*mem_bytes=*/13 * kGiB, /*mem_limit_bytes=*/0, /*budget_age_ms=*/0,
      /*held_launches_per_s=*/0, /*connected=*/false));
  std::vector<flatbuffers::Offset<wire::GpuState>> gpus;
  gpus.push_back(wire::CreateGpuStateDirect(fbb, 0, "node-a", "NVIDIA H200", "GPU-1234", 80 * kGiB,
                                            0.87, &jobs, /*drained=*/false, /*power_w=*/213.4));
  std::vector<flatbuffers::Offset<wire::JobState>> none;
  gpus.push_back(wire::CreateGpuStateDirect(fbb, 1, "node-a", "NVIDIA H200", "GPU-5678", 80 * kGiB,
                                            0.0, &none));
  const auto snapshot = wire::CreateStateSnapshotDirect(fbb, /*seq=*/17, /*unix_ns=*/123456789,
                                                        "0.1.0", /*uptime_s=*/3725.5, &gpus,
                                                        /*invalid_messages=*/2);
  fbb.Finish(wire::CreateEnvelope(fbb, static_cast<wire::Version>(version), 1,
                                  wire::Payload::StateSnapshot, snapshot.Union()));
  return Finish(fbb);
}

const wire::StateSnapshot& SnapshotOf(const Bytes& bytes) {
  return *wire::GetEnvelope(bytes.data())->payload_as_StateSnapshot();
}

}  // namespace iashim::client::testing
