#include "coordinator/cli/keygen_options.h"

#include "absl/status/status.h"

namespace iashim::cli {

absl::StatusOr<KeygenOptions> ParseKeygenOptions(const std::vector<std::string>& args,
                                                 const char* xdg_config_home, const char* home) {
  KeygenOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else if (arg == "--admin") {
      options.admin = true;
    } else if (arg == "--force") {
      options.force = true;
    } else if (arg == "--dir" || arg.starts_with("--dir=")) {
      std::string value;
      if (arg != "--dir") {
        value = arg.substr(6);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return absl::InvalidArgumentError("--dir needs a value (DIR)");
      }
      if (value.empty()) return absl::InvalidArgumentError("--dir must not be empty");
      options.dir = value;
    } else {
      return absl::InvalidArgumentError("unknown option '" + arg + "' for 'iashim keygen'");
    }
  }
  if (options.help) return options;
  if (options.dir.empty()) {
    if (xdg_config_home != nullptr && xdg_config_home[0] == '/') {
      options.dir = std::string(xdg_config_home) + "/iashim";
    } else if (home != nullptr && home[0] == '/') {
      options.dir = std::string(home) + "/.config/iashim";
    } else {
      return absl::InvalidArgumentError(
          "neither XDG_CONFIG_HOME nor HOME is an absolute path: pass --dir DIR");
    }
  }
  // The directory is created if missing; a trailing slash would only double
  // the one the file names get.
  while (options.dir.size() > 1 && options.dir.back() == '/') options.dir.pop_back();
  return options;
}

std::string KeygenUsage() {
  return "Usage: iashim keygen [--dir DIR] [--admin] [--force]\n"
         "\n"
         "Makes a CurveZMQ key pair (ZeroMQ's zmq_curve_keypair).\n"
         "\n"
         "Without --admin, the coordinator's pair: coordinator.key (public: give it to\n"
         "shims and tools as IASHIM_COORDINATOR_KEY or --coordinator-key) and\n"
         "coordinator.key_secret (mode 0600: only for iashim-coordinator\n"
         "--curve-secret-key). A coordinator needs it to listen beyond loopback.\n"
         "\n"
         "With --admin, the administrator's pair: admin.key (public: give it to the\n"
         "coordinator as --admin-key) and admin.key_secret (mode 0600: for write\n"
         "actions, iashim drain/undrain/priority --admin-key).\n"
         "\n"
         "  --dir DIR   where to write (created mode 0700 if missing); default\n"
         "              $XDG_CONFIG_HOME/iashim, else ~/.config/iashim\n"
         "  --admin     make the admin's pair\n"
         "  --force     replace an existing pair (clients of the old key stop working)\n"
         "  -h, --help  this text\n"
         "\n"
         "Exit status: 0 written, 1 not written (exists, cannot write), 2 bad command line.\n";
}

}  // namespace iashim::cli
