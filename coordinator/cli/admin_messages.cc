#include "coordinator/cli/admin_messages.h"

#include "common/wire/envelope.h"
#include "common/wire/priority_wire.h"
#include "common/wire/wire_string.h"
#include "flatbuffers/flatbuffers.h"

namespace iashim::cli {
namespace {


wire::AdminAction ActionOf(CommandKind kind) {
  switch (kind) {
    case CommandKind::kUndrain:
      return wire::AdminAction::Undrain;
    case CommandKind::kPriority:
      return wire::AdminAction::SetPriority;
    default:
      return wire::AdminAction::Drain;
  }
}

}  // namespace

std::vector<uint8_t> EncodeAdminRequest(const CliOptions& options, int pid) {
  const AdminOptions& a = options.admin;
  flatbuffers::FlatBufferBuilder fbb(256);
  const auto host = fbb.CreateString(a.host);
  const auto job = fbb.CreateString(a.job);
  const auto request = wire::CreateAdminRequest(
      fbb, ActionOf(options.kind), host, a.gpu, job,
      ToWire(a.priority));
  wire::FinishEnvelope(fbb, wire::Payload::AdminRequest, request.Union(), pid);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

AdminOutcome DecodeAdminReply(const wire::Envelope& envelope) {
  if (const wire::ErrorReply* error = envelope.payload_as_ErrorReply(); error != nullptr) {
    AdminOutcome o{false, wire::StringOf(error->text())};
    if (o.text.empty()) o.text = "it could not serve the request (no reason given)";
    return o;
  }
  const wire::AdminReply* reply = envelope.payload_as_AdminReply();
  if (reply == nullptr) return {false, "its reply was not an admin reply"};
  if (reply->ok()) return {true, wire::StringOf(reply->text())};
  AdminOutcome o{false, wire::StringOf(reply->error())};
  if (o.text.empty()) o.text = "no reason given";
  return o;
}

}  // namespace iashim::cli
