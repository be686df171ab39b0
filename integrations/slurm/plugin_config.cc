#include "integrations/slurm/plugin_config.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/text/names.h"
#include "common/text/text.h"

namespace iashim::slurm {
namespace {

absl::Status Bad(std::string_view arg, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("plugstack.conf argument '", std::string(arg), "': ", std::string(why)));
}

}  // namespace

absl::StatusOr<PluginConfig> ParsePluginArgs(const std::vector<std::string_view>& args) {
  PluginConfig config;
  for (std::string_view arg : args) {
    const size_t eq = arg.find('=');
    if (eq == std::string_view::npos) return Bad(arg, "expected key=value");
    const std::string_view key = arg.substr(0, eq);
    const std::string_view value = arg.substr(eq + 1);
    if (key == "coordinator") {
      if (!ValidConnectEndpoint(value)) return Bad(arg, "expected tcp://HOST:PORT or ipc://PATH");
      config.coordinator = std::string(value);
    } else if (key == "timeout_s") {
      const std::optional<double> s = ParseDouble(value, 0.05, 60);
      if (!s) return Bad(arg, "expected seconds in [0.05, 60]");
      config.timeout_s = *s;
    } else if (key == "queue_wait_s") {
      const std::optional<double> s = ParseDouble(value, 0, 7 * 24 * 3600);
      if (!s) return Bad(arg, "expected seconds in [0, 604800] (0: wait until placed)");
      config.queue_wait_s = *s;
    } else if (key == "shim") {
      if (value.empty() || value.front() != '/') return Bad(arg, "expected an absolute path");
      config.shim = std::string(value);
    } else if (key == "coordinator_key") {
      if (value.empty()) return Bad(arg, "expected a key or a key file's path");
      config.coordinator_key = std::string(value);
    } else if (key == "device_prefix") {
      if (value.empty() || value.front() != '/') return Bad(arg, "expected an absolute path prefix");
      config.device_prefix = std::string(value);
    } else {
      return Bad(arg, "unknown key (known: coordinator, timeout_s, queue_wait_s, shim, "
                      "coordinator_key, device_prefix)");
    }
  }
  return config;
}

}  // namespace iashim::slurm
