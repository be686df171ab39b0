// What a command says when its request got no usable answer, as text lines
// for a person or as a JSON object for `status --json` (a script parsing
// stdout must get JSON either way). Pure, so each case is unit-tested.
//
// No reply usually means no coordinator is running, so the text says how to
// start one. Only when a CurveZMQ key is configured can a wrong key be the
// cause (a refused handshake looks like silence), and only then is the key
// mentioned: without one, a plain-text user has nothing to check there.
#ifndef IASHIM_COORDINATOR_CLI_REQUEST_FAILURE_H_
#define IASHIM_COORDINATOR_CLI_REQUEST_FAILURE_H_

#include <string>
#include <string_view>
#include <vector>

#include "coordinator/client/coordinator_client.h"

namespace iashim::cli {

struct RequestFailure {
  std::string error;               // "no coordinator at E (no reply in 2 s)"
  std::vector<std::string> hints;  // what to do about it, most likely first
};

// For a result other than kOk and kInterrupted. `key_configured`: the
// command talks CurveZMQ (--coordinator-key or IASHIM_COORDINATOR_KEY).
RequestFailure DescribeRequestFailure(std::string_view endpoint, bool key_configured,
                                      client::RequestStatus status, std::string_view detail);

// The coordinator answered with an ErrorReply carrying `reason`.
RequestFailure DescribeErrorReply(std::string_view reason);

// One "iashim: " line for the error and one for each hint.
std::string FailureText(const RequestFailure& failure);

// {"error": "...", "hints": ["..."]} and a newline.
std::string FailureJson(const RequestFailure& failure);

}  // namespace iashim::cli

#endif  // IASHIM_COORDINATOR_CLI_REQUEST_FAILURE_H_
