// One request from a command to the coordinator named by the options, with the
// options' timeout and Ctrl-C ending the wait; shared by run, place and status.
#ifndef IASHIM_COORDINATOR_CLI_ASK_COORDINATOR_H_
#define IASHIM_COORDINATOR_CLI_ASK_COORDINATOR_H_

#include <cstdint>
#include <optional>
#include <span>

#include "coordinator/cli/cli_options.h"
#include "coordinator/cli/request_failure.h"
#include "coordinator/client/coordinator_client.h"

namespace iashim::cli {

client::RequestResult AskCoordinator(const CliOptions& options, std::span<const uint8_t> request,
                             wire::Payload expected);

// `failure` as JSON on stdout under --json (status), else as text on stderr.
void PrintFailure(const CliOptions& options, const RequestFailure& failure);

// For place and status: the exit code (with the message printed) when the
// request got no usable reply, nullopt when it did.
std::optional<int> FailedRequestExit(const CliOptions& options, const client::RequestResult& result);

}  // namespace iashim::cli

#endif  // IASHIM_COORDINATOR_CLI_ASK_COORDINATOR_H_
