#include "coordinator/state/record_codec.h"

#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "coordinator/state/limits.h"
#include "coordinator/state/validate.h"
#include "flatbuffers/flatbuffers.h"
#include "schemas/state_generated.h"

namespace iashim::state {
namespace {

namespace fb = ::flatbuffers;
namespace disk = ::iashim::state::disk;

using Builder = fb::FlatBufferBuilder;

// Serializes one mutation's table; returns the union tag and its offset.
struct Encoder {
  Builder* b;

  std::pair<disk::Body, fb::Offset<void>> operator()(const JobRecord& j) const {
    auto job = b->CreateString(j.job);
    auto host = b->CreateString(j.host);
    auto command = b->CreateString(j.command);
    auto gpu_host = b->CreateString(j.gpu_host);
    auto kind = b->CreateString(j.kind);
    auto token = b->CreateString(j.token);
    // Absent unless set: records of jobs without batch ids stay as they were.
    fb::Offset<fb::String> batch_system, batch_job, batch_step;
    if (!j.batch_system.empty()) batch_system = b->CreateString(j.batch_system);
    if (!j.batch_job.empty()) batch_job = b->CreateString(j.batch_job);
    if (!j.batch_step.empty()) batch_step = b->CreateString(j.batch_step);
    fb::Offset<fb::Vector<int32_t>> gang_gpus;
    if (!j.gang_gpus.empty()) gang_gpus = b->CreateVector(j.gang_gpus);
    auto t = disk::CreateJobUpsert(
        *b, job, j.pid, host, command, static_cast<disk::Priority>(j.priority), j.mem_bytes,
        gpu_host, j.gpu_index, j.slowdown_target, j.share, j.fingerprint, j.registered_unix_ns,
        kind, token, batch_system, batch_job, batch_step, j.batch_task, gang_gpus);
    return {disk::Body::JobUpsert, t.Union()};
  }
  std::pair<disk::Body, fb::Offset<void>> operator()(const JobRemoval& r) const {
    return {disk::Body::JobRemove, disk::CreateJobRemove(*b, b->CreateString(r.job)).Union()};
  }
  std::pair<disk::Body, fb::Offset<void>> operator()(const BaselineRecord& x) const {
    auto t =
        disk::CreateBaseline(*b, x.fingerprint, x.iteration_ns, x.kernels_per_s, x.busy, x.samples);
    return {disk::Body::Baseline, t.Union()};
  }
  std::pair<disk::Body, fb::Offset<void>> operator()(const ObservationRecord& o) const {
    auto gpu_type = b->CreateString(o.gpu_type);
    auto kind_a = b->CreateString(o.kind_a);
    auto kind_b = b->CreateString(o.kind_b);
    auto t = disk::CreateObservation(*b, gpu_type, o.fingerprint_a, o.fingerprint_b, o.slowdown_a,
                                     o.slowdown_b, o.share_a, o.share_b, o.unix_ns, kind_a, kind_b);
    return {disk::Body::Observation, t.Union()};
  }
  std::pair<disk::Body, fb::Offset<void>> operator()(const BudgetSeqUpdate& u) const {
    return {disk::Body::BudgetSeq, disk::CreateBudgetSeq(*b, u.seq).Union()};
  }
  std::pair<disk::Body, fb::Offset<void>> operator()(const KvPut& p) const {
    auto key = b->CreateString(p.key);
    auto value = b->CreateVector(reinterpret_cast<const uint8_t*>(p.value.data()), p.value.size());
    return {disk::Body::KvPut, disk::CreateKvPut(*b, key, value).Union()};
  }
  std::pair<disk::Body, fb::Offset<void>> operator()(const KvRemoval& r) const {
    return {disk::Body::KvRemove, disk::CreateKvRemove(*b, b->CreateString(r.key)).Union()};
  }
};

std::string Finish(Builder& b, uint64_t seq, disk::Body type, fb::Offset<void> body) {
  b.Finish(disk::CreateRecord(b, disk::Version::Current, seq, type, body));
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

std::string Str(const fb::String* s) { return s ? s->str() : std::string(); }

absl::StatusOr<Mutation> DecodeMutation(const disk::Record& r) {
  switch (r.body_type()) {
    case disk::Body::JobUpsert: {
      const disk::JobUpsert& j = *r.body_as_JobUpsert();
      return JobRecord{.job = Str(j.job()),
                       .pid = j.pid(),
                       .host = Str(j.host()),
                       .command = Str(j.command()),
                       .priority = static_cast<Priority>(j.priority()),
                       .mem_bytes = j.mem_bytes(),
                       .gpu_host = Str(j.gpu_host()),
                       .gpu_index = j.gpu_index(),
                       .slowdown_target = j.slowdown_target(),
                       .share = j.share(),
                       .fingerprint = j.fingerprint(),
                       .registered_unix_ns = j.registered_unix_ns(),
                       .kind = Str(j.kind()),
                       .token = Str(j.token()),
                       .batch_system = Str(j.batch_system()),
                       .batch_job = Str(j.batch_job()),
                       .batch_step = Str(j.batch_step()),
                       .batch_task = j.batch_task(),
                       .gang_gpus = j.gang_gpus()
                                        ? std::vector<int32_t>(j.gang_gpus()->begin(),
                                                               j.gang_gpus()->end())
                                        : std::vector<int32_t>()};
    }
    case disk::Body::JobRemove:
      return JobRemoval{Str(r.body_as_JobRemove()->job())};
    case disk::Body::Baseline: {
      const disk::Baseline& x = *r.body_as_Baseline();
      return BaselineRecord{x.fingerprint(), x.iteration_ns(), x.kernels_per_s(), x.busy(),
                            x.samples()};
    }
    case disk::Body::Observation: {
      const disk::Observation& o = *r.body_as_Observation();
      return ObservationRecord{Str(o.gpu_type()), o.fingerprint_a(), o.fingerprint_b(),
                               o.slowdown_a(),    o.slowdown_b(),    o.share_a(),
                               o.share_b(),       o.unix_ns(),       Str(o.kind_a()),
                               Str(o.kind_b())};
    }
    case disk::Body::BudgetSeq:
      return BudgetSeqUpdate{r.body_as_BudgetSeq()->seq()};
    case disk::Body::KvPut: {
      const disk::KvPut& p = *r.body_as_KvPut();
      std::string value;
      if (p.value())
        value.assign(reinterpret_cast<const char*>(p.value()->data()), p.value()->size());
      return KvPut{Str(p.key()), std::move(value)};
    }
    case disk::Body::KvRemove:
      return KvRemoval{Str(r.body_as_KvRemove()->key())};
    default:
      return absl::DataLossError(
          absl::StrCat("unknown record kind ", static_cast<int>(r.body_type())));
  }
}

}  // namespace

std::string EncodeRecord(uint64_t seq, const Mutation& m) {
  Builder b(256);
  auto [type, body] = std::visit(Encoder{&b}, m);
  return Finish(b, seq, type, body);
}

std::string EncodeSnapshotHeader(const SnapshotHeader& header) {
  Builder b(64);
  auto body = disk::CreateSnapshotHeader(b, header.last_seq, header.records).Union();
  return Finish(b, 0, disk::Body::SnapshotHeader, body);
}

absl::StatusOr<Record> DecodeRecord(std::string_view payload) {
  if (payload.size() > kMaxFrameBytes) return absl::DataLossError("record too large");
  // Frames sit at arbitrary offsets in the file; FlatBuffers reads its
  // scalars in place and wants them aligned, so decode from an aligned copy.
  const size_t words = (payload.size() + 7) / 8;
  std::unique_ptr<uint64_t[]> aligned(new uint64_t[words > 0 ? words : 1]);
  std::memcpy(aligned.get(), payload.data(), payload.size());
  const auto* bytes = reinterpret_cast<const uint8_t*>(aligned.get());

  fb::Verifier verifier(bytes, payload.size());
  if (!disk::VerifyRecordBuffer(verifier)) {
    return absl::DataLossError("record fails FlatBuffers verification");
  }
  const disk::Record& r = *disk::GetRecord(bytes);
  // The Verifier accepts a union whose type is set but whose table is absent.
  if (r.body() == nullptr) return absl::DataLossError("record without a body");
  if (r.version() != disk::Version::Current) {
    return absl::DataLossError(absl::StrCat("record of schema version ",
                                            static_cast<int>(r.version()), ", this build reads ",
                                            static_cast<int>(disk::Version::Current)));
  }
  if (r.body_type() == disk::Body::SnapshotHeader) {
    const disk::SnapshotHeader& h = *r.body_as_SnapshotHeader();
    return Record{r.seq(), SnapshotHeader{h.last_seq(), h.records()}};
  }
  absl::StatusOr<Mutation> m = DecodeMutation(r);
  if (!m.ok()) return m.status();
  if (absl::Status s = Validate(*m); !s.ok()) {
    return absl::DataLossError(absl::StrCat("invalid record: ", s.message()));
  }
  return Record{r.seq(), std::move(*m)};
}

}  // namespace iashim::state
