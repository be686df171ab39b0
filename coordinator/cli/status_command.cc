// `iashim status`: one StatusRequest, the StateSnapshot it answers with,
// printed as a table or JSON.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "commands.h"
#include "coordinator_client.h"
#include "flatbuffers/flatbuffers.h"
#include "interrupt.h"
#include "status_format.h"
#include "telemetry_generated.h"

namespace iashim::cli {

int StatusCommand(const CliOptions& options) {
  flatbuffers::FlatBufferBuilder fbb(64);
  const auto status_request = wire::CreateStatusRequest(fbb);
  fbb.Finish(wire::CreateEnvelope(fbb, wire::Version::Current, getpid(),
                                  wire::Payload::StatusRequest, status_request.Union()));
  CatchInterrupt();
  RequestSpec spec;
  spec.endpoint = options.coordinator;
  spec.request = std::span<const uint8_t>(fbb.GetBufferPointer(), fbb.GetSize());
  spec.expected = wire::Payload::StateSnapshot;
  spec.timeout_s = options.timeout_s;
  spec.interrupted = Interrupted;
  const RequestResult result = Request(spec);
  if (result.status == RequestStatus::kInterrupted) return kExitInterrupted;
  if (result.status != RequestStatus::kOk) {
    std::fprintf(stderr, "iashim: no coordinator at %s (%s)\n", options.coordinator.c_str(),
                 result.detail.c_str());
    return kExitNoCoordinator;
  }
  const wire::Envelope& envelope = *result.reply.envelope();
  if (const wire::ErrorReply* error = envelope.payload_as_ErrorReply(); error != nullptr) {
    std::fprintf(stderr, "iashim: the coordinator could not answer: %s\n",
                 error->text() != nullptr ? error->text()->c_str() : "(no reason given)");
    return kExitRefused;
  }
  const std::string text = options.json ? FormatStatusJson(*envelope.payload_as_StateSnapshot())
                                        : FormatStatusTable(*envelope.payload_as_StateSnapshot());
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace iashim::cli
