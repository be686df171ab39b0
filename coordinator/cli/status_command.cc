// `iashim status`: one StatusRequest, the StateSnapshot it answers with,
// printed as a table or JSON.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "common/wire/envelope.h"
#include "coordinator/cli/ask_coordinator.h"
#include "coordinator/cli/commands.h"
#include "coordinator/cli/interrupt.h"
#include "coordinator/cli/status_format.h"
#include "coordinator/client/coordinator_client.h"
#include "flatbuffers/flatbuffers.h"
#include "schemas/telemetry_generated.h"

namespace iashim::cli {

int StatusCommand(const CliOptions& options) {
  flatbuffers::FlatBufferBuilder fbb(64);
  const auto status_request = wire::CreateStatusRequestDirect(
      fbb, options.pairs, options.events,
      options.events && !options.placement.job.empty() ? options.placement.job.c_str() : nullptr);
  wire::FinishEnvelope(fbb, wire::Payload::StatusRequest, status_request.Union(), getpid());
  CatchInterrupt();
  const client::RequestResult result = AskCoordinator(
      options, std::span<const uint8_t>(fbb.GetBufferPointer(), fbb.GetSize()),
      wire::Payload::StateSnapshot);
  if (const std::optional<int> exit = FailedRequestExit(options, result)) return *exit;
  const wire::Envelope& envelope = *result.reply.envelope();
  if (const wire::ErrorReply* error = envelope.payload_as_ErrorReply(); error != nullptr) {
    PrintFailure(options,
                 DescribeErrorReply(error->text() != nullptr ? error->text()->str() : ""));
    return kExitRefused;
  }
  const wire::StateSnapshot& snapshot = *envelope.payload_as_StateSnapshot();
  std::string text = options.json ? FormatStatusJson(snapshot) : FormatStatusTable(snapshot);
  if (options.pairs && !options.json) text += FormatLearnedPairs(snapshot);
  if (options.events && !options.json) text += FormatRecentEvents(snapshot, options.placement.job);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace iashim::cli
