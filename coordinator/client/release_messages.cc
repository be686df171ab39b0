#include "coordinator/client/release_messages.h"

#include "common/wire/envelope.h"
#include "common/wire/wire_string.h"
#include "flatbuffers/flatbuffers.h"

namespace iashim::client {
std::vector<uint8_t> EncodeReleaseRequest(std::string_view job, std::string_view token) {
  flatbuffers::FlatBufferBuilder fbb(128);
  const auto job_offset = fbb.CreateString(job.data(), job.size());
  const auto token_offset = fbb.CreateString(token.data(), token.size());
  const auto request = wire::CreateReleaseRequest(fbb, job_offset, token_offset);
  wire::FinishEnvelope(fbb, wire::Payload::ReleaseRequest, request.Union());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

Release DecodeRelease(const wire::Envelope& envelope) {
  if (const wire::ErrorReply* error = envelope.payload_as_ErrorReply(); error != nullptr) {
    Release r{false, wire::StringOf(error->text())};
    if (r.message.empty()) r.message = "it could not serve the request (no reason given)";
    return r;
  }
  const wire::ReleaseReply* reply = envelope.payload_as_ReleaseReply();
  if (reply == nullptr) return {false, "its reply was not a release reply"};
  Release r{reply->released(), wire::StringOf(reply->message())};
  if (!r.released && r.message.empty()) r.message = "no reason given";
  return r;
}

}  // namespace iashim::client
