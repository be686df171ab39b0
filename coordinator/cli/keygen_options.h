// `iashim keygen [--dir DIR] [--admin] [--force]`: its command line, pure
// (the environment comes in as values) so every rule is unit-tested.
#ifndef IASHIM_COORDINATOR_CLI_KEYGEN_OPTIONS_H_
#define IASHIM_COORDINATOR_CLI_KEYGEN_OPTIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace iashim::cli {

struct KeygenOptions {
  std::string dir;     // where the pair goes
  bool admin = false;  // admin.key(_secret) instead of coordinator.key(_secret)
  bool force = false;  // replace an existing pair
  bool help = false;

  // "coordinator.key" or "admin.key"; the secret is this plus "_secret".
  std::string file_name() const { return admin ? "admin.key" : "coordinator.key"; }
};

// `args` after "keygen". The default directory is $XDG_CONFIG_HOME/iashim,
// else $HOME/.config/iashim (each used only when absolute); with neither,
// --dir is required.
absl::StatusOr<KeygenOptions> ParseKeygenOptions(const std::vector<std::string>& args,
                                                 const char* xdg_config_home, const char* home);

std::string KeygenUsage();

}  // namespace iashim::cli

#endif  // IASHIM_COORDINATOR_CLI_KEYGEN_OPTIONS_H_
