// Turns the key options of a parsed command line into the keys its requests
// use (CliOptions::keys), reading the key files: kept out of ParseCommandLine,
// which is pure. Every command that talks to the coordinator goes through it,
// so a new command only has to take --coordinator-key and --admin-key.
#ifndef IASHIM_COORDINATOR_CLI_TOOL_KEYS_H_
#define IASHIM_COORDINATOR_CLI_TOOL_KEYS_H_

#include "absl/status/status.h"
#include "coordinator/cli/cli_options.h"

namespace iashim::cli {

// `env_key` is $IASHIM_COORDINATOR_KEY (null or empty: unset); the option
// replaces it. Errors (exit 2): a key that cannot be read or is not a key,
// an admin key without the coordinator's key, or an endpoint beyond loopback
// without a key.
absl::Status ResolveToolKeys(CliOptions& options, const char* env_key);

}  // namespace iashim::cli

#endif  // IASHIM_COORDINATOR_CLI_TOOL_KEYS_H_
