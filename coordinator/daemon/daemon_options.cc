#include "coordinator/daemon/daemon_options.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/security/loopback.h"
#include "common/text/names.h"
#include "common/text/text.h"
#include "coordinator/daemon/gang_slowdown.h"
#include "coordinator/metrics/listen_address.h"

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

// Plain text beyond this machine is refused: anyone on the network could
// read telemetry and forge messages (coordinator/security/README.md).
absl::Status CheckExposure(const DaemonOptions& o) {
  if (!o.admin_key_files.empty() && o.curve_secret_key_file.empty()) {
    return absl::InvalidArgumentError(
        "--admin-key needs --curve-secret-key: the admin is recognised by their CURVE key");
  }
  if (o.curve_secret_key_file.empty()) {
    const std::pair<const char*, const std::string*> endpoints[] = {{"--listen", &o.listen},
                                                                     {"--pub", &o.pub}};
    for (const auto& [name, endpoint] : endpoints) {
      if (security::IsLoopbackEndpoint(*endpoint)) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          name, " ", *endpoint,
          " is reachable from other machines, and without CurveZMQ it would be plain text: "
          "run `iashim keygen` and pass --curve-secret-key with the coordinator.key_secret it "
          "writes (or use 127.0.0.1, [::1], localhost or ipc://)"));
    }
  }
  if (!o.metrics.empty() && !o.metrics_allow_remote) {
    absl::StatusOr<metrics::ListenAddress> address = metrics::ParseListenAddress(o.metrics);
    if (!address.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--metrics: ", address.status().message()));
    }
    if (!security::IsLoopbackHost(address->host)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--metrics ", o.metrics,
          " is reachable from other machines over plain, unauthenticated HTTP (read-only: job "
          "names, GPUs, shares, slowdowns); add --metrics-allow-remote to accept that"));
    }
  }
  return absl::OkStatus();
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
                           node's GPUs through NVML. Without a GPU, simgpu simulates one:
                           LD_LIBRARY_PATH=build/simgpu iashim-coordinator, and start jobs
                           with `iashim run --simgpu`
  --metrics HOST:PORT      serve Prometheus metrics at http://HOST:PORT/metrics [off]
  --metrics-allow-remote   allow --metrics on an address other machines reach (plain,
                           unauthenticated, read-only HTTP)
  --curve-secret-key FILE  the coordinator's CurveZMQ secret key (from `iashim keygen`):
                           --listen and --pub become CURVE servers; without it both must
                           be loopback (127.0.0.1, [::1], localhost, ipc://)
  --admin-key FILE         a public key (admin.key from `iashim keygen --admin`) whose
                           holder may drain GPUs and change priorities; repeatable
  --no-control             do not adapt shares (jobs keep the share they started with)
  --no-probe               never hold a guaranteed job's co-runners to measure its solo
                           speed; it is then protected only once it has run alone (or its
                           model has a saved baseline)
  --no-run-target          hold each guaranteed job's last few seconds to its target, not its
                           run (default: a job whose run so far is over 0.9 of its target,
                           after a transient the loop could not prevent, is held lower until
                           its run is back)
  --placement P            interference: predict what sharing costs from a learned
                           interference model and queue a job when it would cost more than
                           it gains; simple: least busy GPU, no prediction [interference]
  --no-packing             interference placement: always give a memory share an empty GPU
                           when one exists (default: weigh the fragmentation that would
                           leave for the requests seen so far, more as the queue grows)
  --join-busy-gpus         interference placement: a whole-GPU job (a gang's gpu:k) that no
                           node has empty GPUs for goes beside the jobs where sharing is
                           predicted to gain most, in the memory they leave, as Slurm 22.05
                           gives gpu:k GPUs whose shards are in use (job_submit.lua's dry run
                           then sends it to that node); default: it waits for empty GPUs. A
                           job on exactly the GPUs its batch system gave it (allowed_gpus)
                           starts beside what runs there either way
  --min-gain G             interference placement: GPU-equivalents of progress sharing must
                           add, in [-1, 1] [0.05]
  --slowdown-target F      default allowed slowdown of guaranteed jobs, in (0, 10] [0.10]
  --gang-budgets MODE      how co-runners on a guaranteed gang's GPUs are throttled:
                           straggler (the gang's iteration rate within its target, each GPU
                           charged what its rank slows the gang); for comparison only:
                           independent (each GPU keeps its own rank within the target) or
                           average (each GPU keeps the mean of the ranks' slowdowns within
                           it) [straggler]
  --heartbeat-timeout-s S  a job silent this long is disconnected, in [0.5, 600] [3]
  --forget-after-s S       a disconnected job is removed after this, in [1, 86400] [60]
  --control-period-s S     control loop period, in [0.1, 60] [1]
  --budget-ttl-s S         budgets expire this long after the coordinator stops refreshing
                           them, in [1, 3600] [10]
  --reservation-ttl-s S    a dry run answered "placed" (job_submit.lua's, at submission)
                           holds its GPUs for the job this long, so the next dry run of a
                           burst goes elsewhere; the job's real request on that node takes
                           them over. A job pending longer loses the hold (keeps its node);
                           0 = no holds; in [0, 3600] [30]
  --move-command PATH      move jobs to GPUs that empty: a GPU left with no job for
                           --move-after-empty-s takes the one-GPU opportunistic batch job
                           running slowest beside another, which PATH, run as
                           `PATH SLURM_JOB_ID HOST`, asks the batch system to requeue on HOST
                           (integrations/slurm/iashim-move-job; the job must resume from a
                           checkpoint); off by default
  --move-after-empty-s S   how long a GPU stays empty first: longer than the batch system
                           takes to start a waiting job there (Slurm's bf_interval);
                           in (0, 3600] [30]
  --help, --version
)";
}

absl::StatusOr<DaemonOptions> ParseDaemonOptions(const std::vector<std::string>& args) {
  DaemonOptions o;
  bool move_after_given = false;
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
    // A range from 0 leaves 0 out unless `zero_allowed`.
    auto number = [&](double min, double max, double* out,
                      bool zero_allowed = false) -> absl::Status {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      const std::optional<double> d = ParseDouble(*v, min, max);
      const bool open = min == 0 && !zero_allowed;
      if (!d || (open && *d == 0)) {
        return absl::InvalidArgumentError(absl::StrCat(name, " '", *v, "' is not a number in ",
                                                       open ? "(" : "[", min, ", ", max, "]"));
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
    } else if (name == "--metrics-allow-remote") {
      o.metrics_allow_remote = true;
    } else if (name == "--curve-secret-key") {
      s = text(&o.curve_secret_key_file);
    } else if (name == "--admin-key") {
      std::string file;
      s = text(&file);
      o.admin_key_files.push_back(std::move(file));
    } else if (name == "--no-control") {
      o.control = false;
    } else if (name == "--no-probe") {
      o.probe = false;
    } else if (name == "--no-run-target") {
      o.run_target = false;
    } else if (name == "--placement") {
      s = text(&o.placement);
      if (s.ok() && o.placement != "interference" && o.placement != "simple") {
        s = absl::InvalidArgumentError(absl::StrCat("--placement must be 'interference' or 'simple' (got '",
                                                    o.placement, "')"));
      }
    } else if (name == "--no-packing") {
      o.packing = false;
    } else if (name == "--join-busy-gpus") {
      o.join_busy_gpus = true;
    } else if (name == "--min-gain") {
      s = number(-1, 1, &o.min_gain);
    } else if (name == "--slowdown-target") {
      s = number(0, 10, &o.slowdown_target);
    } else if (name == "--gang-budgets") {
      s = text(&o.gang_budgets);
      if (s.ok() && !ParseGangBudgets(o.gang_budgets)) {
        s = absl::InvalidArgumentError(absl::StrCat(
            "--gang-budgets must be 'straggler', 'independent' or 'average' (got '", o.gang_budgets,
            "')"));
      }
    } else if (name == "--heartbeat-timeout-s") {
      s = number(0.5, 600, &o.heartbeat_timeout_s);
    } else if (name == "--forget-after-s") {
      s = number(1, 86400, &o.forget_after_s);
    } else if (name == "--control-period-s") {
      s = number(0.1, 60, &o.control_period_s);
    } else if (name == "--budget-ttl-s") {
      s = number(1, 3600, &o.budget_ttl_s);
    } else if (name == "--reservation-ttl-s") {
      s = number(0, 3600, &o.reservation_ttl_s, /*zero_allowed=*/true);
    } else if (name == "--move-command") {
      s = text(&o.move_command);
      if (s.ok() && access(o.move_command.c_str(), X_OK) != 0) {
        s = absl::InvalidArgumentError(absl::StrCat(
            "--move-command '", o.move_command, "' is not a program this user may run (",
            std::strerror(errno), "): give its path, e.g. integrations/slurm/iashim-move-job"));
      }
    } else if (name == "--move-after-empty-s") {
      s = number(0, 3600, &o.move_after_empty_s);
      move_after_given = true;
    } else {
      s = absl::InvalidArgumentError(absl::StrCat("unknown option '", args[i], "' (see --help)"));
    }
    if (!s.ok()) return s;
  }
  if (o.listen == o.pub) {
    return absl::InvalidArgumentError("--listen and --pub must be different endpoints");
  }
  if (o.move_command.empty() && move_after_given) {
    return absl::InvalidArgumentError(
        "--move-after-empty-s needs --move-command (what moves a job)");
  }
  if (absl::Status s = CheckExposure(o); !s.ok()) return s;
  if (o.state_dir.empty()) o.state_dir = DefaultStateDir();
  return o;
}

}  // namespace iashim::daemon
