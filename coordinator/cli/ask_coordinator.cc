#include "coordinator/cli/ask_coordinator.h"

#include <cstdio>

#include "coordinator/cli/commands.h"
#include "coordinator/cli/interrupt.h"
#include "coordinator/cli/request_failure.h"

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

void PrintFailure(const CliOptions& options, const RequestFailure& failure) {
  if (options.json) {
    const std::string json = FailureJson(failure);
    std::fwrite(json.data(), 1, json.size(), stdout);
  } else {
    const std::string text = FailureText(failure);
    std::fwrite(text.data(), 1, text.size(), stderr);
  }
}

std::optional<int> FailedRequestExit(const CliOptions& options, const client::RequestResult& result) {
  if (result.status == client::RequestStatus::kInterrupted) return kExitInterrupted;
  if (result.status == client::RequestStatus::kOk) return std::nullopt;
  PrintFailure(options, DescribeRequestFailure(options.coordinator, options.keys.curve(),
                                               result.status, result.detail));
  return kExitNoCoordinator;
}

}  // namespace iashim::cli
