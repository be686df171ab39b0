#include "ask_coordinator.h"

#include <cstdio>

#include "commands.h"
#include "interrupt.h"

namespace iashim::cli {

RequestResult AskCoordinator(const CliOptions& options, std::span<const uint8_t> request,
                             wire::Payload expected) {
  RequestSpec spec;
  spec.endpoint = options.coordinator;
  spec.request = request;
  spec.expected = expected;
  spec.timeout_s = options.timeout_s;
  spec.interrupted = Interrupted;
  return Request(spec);
}

std::optional<int> FailedRequestExit(const CliOptions& options, const RequestResult& result) {
  if (result.status == RequestStatus::kInterrupted) return kExitInterrupted;
  if (result.status == RequestStatus::kOk) return std::nullopt;
  std::fprintf(stderr, "iashim: no coordinator at %s (%s)\n", options.coordinator.c_str(),
               result.detail.c_str());
  return kExitNoCoordinator;
}

}  // namespace iashim::cli
