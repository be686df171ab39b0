#include "daemon/daemon_options.h"

#include <cstdlib>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "names.h"
#include "text.h"

namespace iashim::daemon {
namespace {

std::string DefaultStateDir() {
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg != nullptr && *xdg == '/') {
    return std::string(xdg) + "/iashim";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
    return std::string(home) + "/.local/state/iashim";
  }
  return "/tmp/iashim-state";
}

}  // namespace

std::string DaemonUsage() {
  return R"(usage: iashim-coordinator [options]

The iashim coordinator: registers jobs running under libiashim.so, profiles them
from their telemetry, places them on GPUs and adapts opportunistic jobs' GPU
shares so guaranteed jobs stay within their slowdown target.

  --listen ENDPOINT        ROUTER socket for shims and tools (tcp://HOST:PORT or ipc://PATH)
                           [tcp://127.0.0.1:5555]
  --pub ENDPOINT           PUB socket for state snapshots (iashim-top) [tcp://127.0.0.1:5556]
  --state-dir DIR          persistent state [$XDG_STATE_HOME/iashim or ~/.local/state/iashim]
  --cluster FILE           nodes and GPUs (coordinator/cluster/README.md); default: this
                           node's GPUs through NVML
  --metrics HOST:PORT      serve Prometheus metrics at http://HOST:PORT/metrics [off]
  --no-control             do not adapt shares (jobs keep the share they started with)
  --placement P            interference: predict what sharing costs from a learned
                           interference model and queue a job when it would cost more than
                           it gains; simple: least busy GPU, no prediction [interference]
  --min-gain G             interference placement: GPU-equivalents of progress sharing must
                           add, in [-1, 1] [0.05]
  --slowdown-target F      default allowed slowdown of guaranteed jobs, in (0, 10] [0.10]
  --heartbeat-timeout-s S  a job silent this long is disconnected, in [0.5, 600] [3]
  --forget-after-s S       a disconnected job is removed after this, in [1, 86400] [60]
  --control-period-s S     control loop period, in [0.1, 60] [1]
  --budget-ttl-s S         budgets expire this long after the coordinator stops refreshing
                           them, in [1, 3600] [10]
  --help, --version
)";
}

absl::StatusOr<DaemonOptions> ParseDaemonOptions(const std::vector<std::string>& args) {
  DaemonOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::optional<std::string> inline_value;
    if (const size_t eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    auto value = [&]() -> absl::StatusOr<std::string> {
      if (inline_value) return *inline_value;
      if (i + 1 >= args.size()) return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
      return args[++i];
    };
    auto number = [&](double min, double max, double* out) -> absl::Status {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      const std::optional<double> d = ParseDouble(*v, min, max);
      if (!d || (min == 0 && *d == 0)) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, " '", *v, "' is not a number in ", min == 0 ? "(" : "[", min, ", ",
                         max, "]"));
      }
      *out = *d;
      return absl::OkStatus();
    };
    auto endpoint = [&](std::string* out) -> absl::Status {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      if (!ValidEndpoint(*v)) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, " '", *v, "' is not tcp://HOST:PORT or ipc://PATH"));
      }
      *out = *v;
      return absl::OkStatus();
    };
    auto text = [&](std::string* out) -> absl::Status {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      if (v->empty()) return absl::InvalidArgumentError(absl::StrCat(name, " must not be empty"));
      *out = *v;
      return absl::OkStatus();
    };
    absl::Status s;
    if (name == "--help" || name == "-h") {
      o.help = true;
    } else if (name == "--version") {
      o.version = true;
    } else if (name == "--listen") {
      s = endpoint(&o.listen);
    } else if (name == "--pub") {
      s = endpoint(&o.pub);
    } else if (name == "--state-dir") {
      s = text(&o.state_dir);
    } else if (name == "--cluster") {
      s = text(&o.cluster_file);
    } else if (name == "--metrics") {
      s = text(&o.metrics);
    } else if (name == "--no-control") {
      o.control = false;
    } else if (name == "--placement") {
      s = text(&o.placement);
      if (s.ok() && o.placement != "interference" && o.placement != "simple") {
        s = absl::InvalidArgumentError(absl::StrCat("--placement must be 'interference' or 'simple' (got '",
                                                    o.placement, "')"));
      }
    } else if (name == "--min-gain") {
      s = number(-1, 1, &o.min_gain);
    } else if (name == "--slowdown-target") {
      s = number(0, 10, &o.slowdown_target);
    } else if (name == "--heartbeat-timeout-s") {
      s = number(0.5, 600, &o.heartbeat_timeout_s);
    } else if (name == "--forget-after-s") {
      s = number(1, 86400, &o.forget_after_s);
    } else if (name == "--control-period-s") {
      s = number(0.1, 60, &o.control_period_s);
    } else if (name == "--budget-ttl-s") {
      s = number(1, 3600, &o.budget_ttl_s);
    } else {
      s = absl::InvalidArgumentError(absl::StrCat("unknown option '", args[i], "' (see --help)"));
    }
    if (!s.ok()) return s;
  }
  if (o.listen == o.pub) {
    return absl::InvalidArgumentError("--listen and --pub must be different endpoints");
  }
  if (o.state_dir.empty()) o.state_dir = DefaultStateDir();
  return o;
}

}  // namespace iashim::daemon
