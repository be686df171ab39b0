#include "coordinator/client/place_messages.h"

#include "common/wire/envelope.h"
#include "common/wire/priority_wire.h"
#include "common/wire/wire_string.h"
#include "flatbuffers/flatbuffers.h"

namespace iashim::client {
std::string JoinCommand(const std::vector<std::string>& argv, size_t max_bytes) {
  std::string joined;
  for (const std::string& arg : argv) {
    if (!joined.empty()) joined += ' ';
    joined += arg;
    if (joined.size() > max_bytes) break;
  }
  if (joined.size() <= max_bytes) return joined;
  size_t cut = max_bytes;
  // Back off over UTF-8 continuation bytes (10xxxxxx) so the cut lands on the
  // start of a character and the display string stays valid text.
  while (cut > 0 && (static_cast<unsigned char>(joined[cut]) & 0xC0) == 0x80) --cut;
  joined.resize(cut);
  return joined;
}

std::vector<uint8_t> EncodePlaceRequest(const PlacementOptions& placement, std::string_view host,
                                        std::string_view command, int pid) {
  flatbuffers::FlatBufferBuilder fbb(512);
  const auto job = fbb.CreateString(placement.job);
  const auto host_offset = fbb.CreateString(host.data(), host.size());
  const auto command_offset = fbb.CreateString(command.data(), command.size());
  const auto kind = fbb.CreateString(placement.kind);
  flatbuffers::Offset<flatbuffers::Vector<int32_t>> allowed;
  if (!placement.allowed_gpus.empty()) allowed = fbb.CreateVector(placement.allowed_gpus);
  flatbuffers::Offset<wire::BatchJob> batch;
  if (!placement.batch.system.empty()) {
    batch = wire::CreateBatchJobDirect(fbb, placement.batch.system.c_str(),
                                       placement.batch.job.c_str(), placement.batch.step.c_str(),
                                       placement.batch.task);
  }
  const auto request = wire::CreatePlaceRequest(
      fbb, job, ToWire(placement.priority), placement.mem_bytes, placement.gpu, host_offset,
      command_offset, placement.slowdown_target, kind, allowed, batch, placement.dry_run,
      placement.gpus, placement.guaranteed_gres, placement.movable);
  wire::FinishEnvelope(fbb, wire::Payload::PlaceRequest, request.Union(), pid);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

Placement DecodePlacement(const wire::Envelope& envelope) {
  Placement p;
  if (const wire::ErrorReply* error = envelope.payload_as_ErrorReply(); error != nullptr) {
    p.outcome = Placement::Outcome::kRefused;
    p.reason = wire::StringOf(error->text());
    if (p.reason.empty()) p.reason = "it could not serve the request (no reason given)";
    return p;
  }
  const wire::PlaceReply* reply = envelope.payload_as_PlaceReply();
  if (reply == nullptr) {
    p.reason = "its reply was not a placement";
    return p;
  }
  p.reason = wire::StringOf(reply->error());
  p.job = wire::StringOf(reply->job());
  p.host = wire::StringOf(reply->host());
  p.gpu = reply->gpu();
  p.gpu_uuid = wire::StringOf(reply->gpu_uuid());
  if (const auto* indices = reply->gpu_indices(); indices != nullptr && indices->size() > 0) {
    p.gpus.assign(indices->begin(), indices->end());
    const auto* uuids = reply->gpu_uuids();
    const auto* hosts = reply->gpu_hosts();
    for (size_t i = 0; i < p.gpus.size(); ++i) {
      p.gpu_uuids.push_back(uuids != nullptr && i < uuids->size() ? wire::StringOf(uuids->Get(i))
                                                                  : std::string());
      p.gpu_hosts.push_back(hosts != nullptr && i < hosts->size() ? wire::StringOf(hosts->Get(i))
                                                                  : p.host);
    }
  } else if (p.gpu >= 0) {
    p.gpus = {p.gpu};  // a coordinator from before gangs
    p.gpu_uuids = {p.gpu_uuid};
    p.gpu_hosts = {p.host};
  }
  p.share = reply->share();
  p.mem_limit_bytes = reply->mem_limit_bytes();
  p.token = wire::StringOf(reply->token());
  if (const auto* prefer = reply->prefer_hosts(); prefer != nullptr) {
    for (const flatbuffers::String* h : *prefer) p.prefer_hosts.push_back(wire::StringOf(h));
  }
  p.dry_run = reply->dry_run();
  // `queued` wins over `ok`: a coordinator that sets both has not placed the
  // job yet, and running it anyway would defeat the queue.
  if (reply->queued()) {
    p.outcome = Placement::Outcome::kQueued;
    if (p.reason.empty()) p.reason = "no GPU fits now";
  } else if (reply->ok()) {
    p.outcome = Placement::Outcome::kPlaced;
  } else {
    p.outcome = Placement::Outcome::kRefused;
    if (p.reason.empty()) p.reason = "no reason given";
  }
  return p;
}

void RefuseShortGang(int asked, Placement* p) {
  if (p->outcome != Placement::Outcome::kPlaced || asked <= 1) return;
  if (p->gpus.size() >= static_cast<size_t>(asked)) return;
  p->outcome = Placement::Outcome::kRefused;
  p->reason = "it placed " + std::to_string(p->gpus.size()) + " of the " + std::to_string(asked) +
              " GPUs asked (a coordinator from before gangs ignores the GPU count)";
}

std::string VisibleDevices(const Placement& p) {
  std::string out;
  for (const int g : p.gpus) {
    if (g < 0) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(g);
  }
  if (out.empty() && p.gpu >= 0) out = std::to_string(p.gpu);
  return out;
}

}  // namespace iashim::client
