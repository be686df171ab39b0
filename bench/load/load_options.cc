#include "bench/load/load_options.h"

#include <algorithm>
#include <iterator>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/text/names.h"
#include "common/text/text.h"

namespace iashim::load {

std::string LoadUsage() {
  return R"(usage: iashim-loadgen [options]

Simulates many libiashim shims, each with its own DEALER socket speaking the shim's
protocol (Hello, KernelNames, a TelemetryBatch every window, Goodbye; answers
Advice SendHello), against a running iashim-coordinator, and measures what it sees.
The simulated shims run on nodes load-node-NNNN with one GPU each; the coordinator
must be started with the matching cluster file (--write-cluster).

  --shims N               simulated shims, 1..20000 [1000]
  --seconds S             run this long, 1..86400 [30]
  --endpoint ENDPOINT     the coordinator's ROUTER (tcp://HOST:PORT or ipc://PATH)
                          [tcp://127.0.0.1:5555]
  --threads N             threads polling the shims' sockets, 1..64 [2]
  --shims-per-gpu N       shims sharing one GPU: one guaranteed, the rest
                          opportunistic, 1..64 [4]
  --churn R               shims per second that leave (Goodbye) and come back as a
                          new process, 0..1000 [0]
  --report-every S        print figures this often, 1..3600 [10]
  --warmup-s S            the coordinator's RSS this long after the start is the
                          reference for growth, 1..3600 [10]
  --window-ms MS          telemetry window, 10..10000 [100]
  --coordinator-pid PID   sample the coordinator's VmRSS every second [off]
  --metrics HOST:PORT     read the coordinator's counters from its /metrics [off]
  --write-cluster FILE    write the cluster file these shims match and exit
  --json                  print the final figures as one JSON object
  --help
)";
}

absl::StatusOr<LoadOptions> ParseLoadOptions(const std::vector<std::string>& args) {
  LoadOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::optional<std::string> value;
    if (const size_t eq = name.find('='); name.starts_with("--") && eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (name == "--help" || name == "-h") {
      o.help = true;
      continue;
    }
    if (name == "--json") {
      o.json = true;
      continue;
    }
    static const char* const kTakeValues[] = {
        "--shims",      "--seconds",         "--endpoint", "--threads",       "--shims-per-gpu",
        "--churn",      "--report-every",    "--warmup-s", "--window-ms",     "--coordinator-pid",
        "--metrics",    "--write-cluster"};
    if (std::find(std::begin(kTakeValues), std::end(kTakeValues), name) == std::end(kTakeValues)) {
      return absl::InvalidArgumentError(absl::StrCat("unknown option ", name, " (see --help)"));
    }
    if (!value) {
      if (i + 1 >= args.size()) return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
      value = args[++i];
    }
    const std::string& v = *value;
    auto bad = [&](std::string_view what) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": '", v, "' is not ", std::string(what)));
    };
    auto integer = [&](int* out, int64_t min, int64_t max) -> absl::Status {
      std::optional<int64_t> n = ParseInt(v, min, max);
      if (!n) return bad(absl::StrCat("a whole number in [", min, ", ", max, "]"));
      *out = int(*n);
      return absl::OkStatus();
    };
    auto number = [&](double* out, double min, double max) -> absl::Status {
      std::optional<double> n = ParseDouble(v, min, max);
      if (!n) return bad(absl::StrCat("a number in [", min, ", ", max, "]"));
      *out = *n;
      return absl::OkStatus();
    };
    absl::Status s;
    if (name == "--shims") {
      s = integer(&o.shims, 1, 20000);
    } else if (name == "--seconds") {
      s = number(&o.seconds, 1, 86400);
    } else if (name == "--endpoint") {
      if (!ValidConnectEndpoint(v)) return bad("tcp://HOST:PORT or ipc://PATH");
      o.endpoint = v;
    } else if (name == "--threads") {
      s = integer(&o.threads, 1, 64);
    } else if (name == "--shims-per-gpu") {
      s = integer(&o.shims_per_gpu, 1, 64);
    } else if (name == "--churn") {
      s = number(&o.churn_per_s, 0, 1000);
    } else if (name == "--report-every") {
      s = number(&o.report_every_s, 1, 3600);
    } else if (name == "--warmup-s") {
      s = number(&o.warmup_s, 1, 3600);
    } else if (name == "--window-ms") {
      s = integer(&o.window_ms, 10, 10000);
    } else if (name == "--coordinator-pid") {
      s = integer(&o.coordinator_pid, 1, 1 << 30);
    } else if (name == "--metrics") {
      const size_t colon = v.rfind(':');
      if (colon == std::string::npos || colon == 0 || !ParseInt(v.substr(colon + 1), 1, 65535)) {
        return bad("HOST:PORT");
      }
      o.metrics = v;
    } else if (name == "--write-cluster") {
      if (v.empty()) return bad("a file name");
      o.write_cluster = v;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown option ", name, " (see --help)"));
    }
    if (!s.ok()) return s;
  }
  if (o.warmup_s >= o.seconds && o.write_cluster.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--warmup-s (", o.warmup_s,
                                                   ") must be shorter than --seconds (", o.seconds, ")"));
  }
  return o;
}

}  // namespace iashim::load
