#include "coordinator/cli/tool_keys.h"

#include <string>

#include "common/security/client_keys.h"

namespace iashim::cli {

absl::Status ResolveToolKeys(CliOptions& options, const char* env_key) {
  std::string key = options.coordinator_key;
  if (key.empty() && env_key != nullptr) key = env_key;
  std::string error;
  if (!security::ResolveClientKeys(options.coordinator, key, options.admin_key_file,
                                   &options.keys, &error)) {
    // Say where a key that did not work came from.
    if (!key.empty() && options.coordinator_key.empty() &&
        error.starts_with("the coordinator's public key")) {
      error = "IASHIM_COORDINATOR_KEY: " + error;
    } else if (!key.empty() && error.starts_with("the coordinator's public key")) {
      error = "--coordinator-key: " + error;
    }
    return absl::InvalidArgumentError(error);
  }
  return absl::OkStatus();
}

}  // namespace iashim::cli
