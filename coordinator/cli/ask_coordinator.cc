#include "coordinator/cli/ask_coordinator.h"

#include <cstdio>

#include "coordinator/cli/commands.h"
#include "coordinator/cli/interrupt.h"

namespace iashim::cli {

client::RequestResult AskCoordinator(const CliOptions& options, std::span<const uint8_t> request,
                             wire::Payload expected) {
  client::RequestSpec spec;
  spec.endpoint = options.coordinator;
  spec.request = request;
  spec.expected = expected;
  spec.timeout_s = options.timeout_s;
  spec.keys = options.keys;
  spec.interrupted = Interrupted;
  return client::Request(spec);
}

std::optional<int> FailedRequestExit(const CliOptions& options, const client::RequestResult& result) {
  if (result.status == client::RequestStatus::kInterrupted) return kExitInterrupted;
  if (result.status == client::RequestStatus::kOk) return std::nullopt;
  std::fprintf(stderr, "iashim: no coordinator at %s (%s)\n", options.coordinator.c_str(),
               result.detail.c_str());
  // A failed CURVE handshake looks like silence: say what to check.
  if (result.status == client::RequestStatus::kNoReply && result.detail.starts_with("no reply in")) {
    std::fputs(options.keys.curve()
                   ? "iashim: if it is running, check that --coordinator-key (or "
                     "IASHIM_COORDINATOR_KEY) is its public key\n"
                   : "iashim: a coordinator with CurveZMQ answers only clients given its public "
                     "key (--coordinator-key or IASHIM_COORDINATOR_KEY)\n",
               stderr);
  }
  return kExitNoCoordinator;
}

}  // namespace iashim::cli
