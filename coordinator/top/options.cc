#include "coordinator/top/options.h"

#include "absl/strings/numbers.h"
#include "coordinator/top/legend.h"

namespace iashim::top {

absl::Status ValidateEndpoint(std::string_view endpoint) {
  // (Debian's Abseil has its own string_view: std::string_view goes through std::string.)
  auto bad = [endpoint](const char* why) {
    return absl::InvalidArgumentError("--pub '" + std::string(endpoint) + "': " + why +
                                      " (expected tcp://HOST:PORT or ipc://PATH)");
  };
  if (endpoint.starts_with("ipc://")) {
    if (endpoint.size() == 6) return bad("no path");
    return absl::OkStatus();
  }
  if (!endpoint.starts_with("tcp://")) return bad("not a tcp:// or ipc:// endpoint");
  const std::string_view address = endpoint.substr(6);
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return bad("no host");
  int port = 0;
  if (!absl::SimpleAtoi(std::string(address.substr(colon + 1)), &port) || port < 1 ||
      port > 65535) {
    return bad("the port must be a number from 1 to 65535");
  }
  return absl::OkStatus();
}

absl::StatusOr<TopOptions> ParseOptions(const std::vector<std::string>& args) {
  TopOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else if (arg == "--version") {
      options.version = true;
    } else if (arg == "--pub") {
      if (i + 1 >= args.size()) return absl::InvalidArgumentError("--pub needs an ENDPOINT");
      options.pub_endpoint = args[++i];
    } else if (arg.starts_with("--pub=")) {
      options.pub_endpoint = arg.substr(6);
    } else if (arg == "--coordinator-key" || arg.starts_with("--coordinator-key=")) {
      if (arg == "--coordinator-key") {
        if (i + 1 >= args.size()) {
          return absl::InvalidArgumentError("--coordinator-key needs a FILE");
        }
        options.coordinator_key = args[++i];
      } else {
        options.coordinator_key = arg.substr(18);
      }
      if (options.coordinator_key.empty()) {
        return absl::InvalidArgumentError("--coordinator-key must not be empty");
      }
    } else {
      return absl::InvalidArgumentError("unknown argument '" + arg + "'");
    }
  }
  // --help and --version answer whatever else is on the line.
  if (options.help || options.version) return options;
  if (absl::Status s = ValidateEndpoint(options.pub_endpoint); !s.ok()) return s;
  return options;
}

std::string Usage() {
  std::string legend;
  for (const std::string& line : LegendLines()) legend += line + "\n";
  return "Usage: iashim-top [--pub ENDPOINT] [--coordinator-key FILE]\n"
         "\n"
         "Live view of the GPUs and jobs an iashim coordinator manages, from the\n"
         "state snapshots it publishes.\n"
         "\n"
         "  --pub ENDPOINT  the coordinator's PUB socket (default " +
         std::string(kDefaultPubEndpoint) +
         ")\n"
         "  --coordinator-key FILE\n"
         "                  the coordinator's public key (coordinator.key from `iashim\n"
         "                  keygen`, or its 40 characters): subscribe over CurveZMQ; needed\n"
         "                  beyond loopback (default: $IASHIM_COORDINATOR_KEY)\n"
         "  -h, --help      this text\n"
         "  --version       print the version\n"
         "\n"
         "Keys: q/Esc quit, ? (or h) this legend on screen, s next sort column,\n"
         "      r reverse order, p pause, up/down/PgUp/PgDn/Home/End scroll,\n"
         "      Ctrl-L redraw.\n"
         "\n"
         "Each GPU's line gives its busy % (the sum of its jobs' busy time, at most\n"
         "100%), memory held of its total and its jobs; each job's row follows.\n"
         "\n" +
         legend;
}

}  // namespace iashim::top
