// iashim-top's command line. Parsed and validated before any socket or
// terminal is touched, so a typo fails fast with a message (exit 2) instead of
// a screen that waits forever for a coordinator at a misspelt address.
#ifndef IASHIM_COORDINATOR_TOP_OPTIONS_H_
#define IASHIM_COORDINATOR_TOP_OPTIONS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace iashim::top {

inline constexpr std::string_view kDefaultPubEndpoint = "tcp://127.0.0.1:5556";

struct TopOptions {
  std::string pub_endpoint = std::string(kDefaultPubEndpoint);
  // --coordinator-key: the coordinator's public key file (or its 40 Z85
  // characters); empty: $IASHIM_COORDINATOR_KEY, else plain text (loopback).
  std::string coordinator_key;
  bool help = false;
  bool version = false;
};

// `args` without the program name. Accepts "--pub ENDPOINT", "--pub=ENDPOINT",
// "--coordinator-key FILE" (or =FILE), "--help"/"-h" and "--version"; anything
// else is an InvalidArgument error whose message says what was wrong.
absl::StatusOr<TopOptions> ParseOptions(const std::vector<std::string>& args);

// The endpoint must be one ZeroMQ can connect a SUB socket to from another
// process: tcp://HOST:PORT or ipc://PATH.
absl::Status ValidateEndpoint(std::string_view endpoint);

std::string Usage();

}  // namespace iashim::top

#endif  // IASHIM_COORDINATOR_TOP_OPTIONS_H_
