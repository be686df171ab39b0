#include "coordinator/cli/cli_options.h"

#include <cctype>
#include <optional>

#include "absl/strings/numbers.h"
#include "common/text/text.h"

namespace iashim::cli {
namespace {

constexpr int kMaxGpuIndex = 63;
constexpr int kMaxGangGpus = 64;  // PlaceRequest.gpus
constexpr double kMaxSlowdownTarget = 10.0;
constexpr double kMaxTimeoutS = 3600.0;

// Debian's Abseil has its own string_view, so messages are built from
// std::string pieces rather than with absl::StrCat.
absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// An option's raw value as given, validated only once the whole line is read
// so that --help answers even a line with a bad value on it.
struct RawValues {
  std::optional<std::string> job, priority, mem, gpu, gpus, slowdown_target, kind, coordinator,
      timeout_s;
  std::optional<std::string> coordinator_key, admin_key;
};

enum class OptionKind { kValue, kFlag };

struct OptionSpec {
  std::string_view name;
  OptionKind kind;
  // Which commands take it.
  bool run, place, status;
  std::string_view value_name;  // for "needs a value" messages
};

constexpr OptionSpec kOptions[] = {
    {"--job", OptionKind::kValue, true, true, true, "NAME"},
    {"--priority", OptionKind::kValue, true, true, false, "guaranteed|opportunistic"},
    {"--mem", OptionKind::kValue, true, true, false, "SIZE"},
    {"--gpu", OptionKind::kValue, true, true, false, "auto|N"},
    {"--gpus", OptionKind::kValue, true, true, false, "N"},
    {"--slowdown-target", OptionKind::kValue, true, true, false, "F"},
    {"--kind", OptionKind::kValue, true, true, false, "MODEL"},
    {"--coordinator", OptionKind::kValue, true, true, true, "ENDPOINT"},
    {"--timeout-s", OptionKind::kValue, true, true, true, "SECONDS"},
    {"--coordinator-key", OptionKind::kValue, true, true, true, "FILE"},
    {"--admin-key", OptionKind::kValue, true, true, true, "FILE"},
    {"--simgpu", OptionKind::kFlag, true, false, false, ""},
    {"--json", OptionKind::kFlag, false, false, true, ""},
    {"--pairs", OptionKind::kFlag, false, false, true, ""},
    {"--events", OptionKind::kFlag, false, false, true, ""},
    {"--dry-run", OptionKind::kFlag, false, true, false, ""},
    {"--guaranteed-gres", OptionKind::kFlag, false, true, false, ""},
};

const OptionSpec* FindOption(std::string_view name, CommandKind kind) {
  for (const OptionSpec& spec : kOptions) {
    if (spec.name != name) continue;
    // The admin commands take what says how to reach the coordinator: the
    // options `status` takes, less its output format.
    const bool taken = (kind == CommandKind::kRun && spec.run) ||
                       (kind == CommandKind::kPlace && spec.place) ||
                       (kind == CommandKind::kStatus && spec.status) ||
                       (IsAdminCommand(kind) && spec.status && spec.name != "--json" &&
                        spec.name != "--pairs" && spec.name != "--events" && spec.name != "--job");
    return taken ? &spec : nullptr;
  }
  return nullptr;
}

std::optional<std::string>* Slot(RawValues& raw, std::string_view name) {
  if (name == "--job") return &raw.job;
  if (name == "--priority") return &raw.priority;
  if (name == "--mem") return &raw.mem;
  if (name == "--gpu") return &raw.gpu;
  if (name == "--gpus") return &raw.gpus;
  if (name == "--slowdown-target") return &raw.slowdown_target;
  if (name == "--kind") return &raw.kind;
  if (name == "--coordinator") return &raw.coordinator;
  if (name == "--timeout-s") return &raw.timeout_s;
  if (name == "--coordinator-key") return &raw.coordinator_key;
  if (name == "--admin-key") return &raw.admin_key;
  return nullptr;
}

std::string_view CommandName(CommandKind kind) {
  switch (kind) {
    case CommandKind::kRun:
      return "run";
    case CommandKind::kPlace:
      return "place";
    case CommandKind::kStatus:
      return "status";
    case CommandKind::kDrain:
      return "drain";
    case CommandKind::kUndrain:
      return "undrain";
    case CommandKind::kPriority:
      return "priority";
    default:
      return "";
  }
}

absl::StatusOr<Priority> ParsePriorityOption(std::string_view what, const std::string& value) {
  if (Priority p; ParsePriority(value, &p)) return p;
  return Invalid(std::string(what) + " " + Quoted(value) + ": must be guaranteed or opportunistic");
}

// drain/undrain HOST[:GPU], priority JOB guaranteed|opportunistic.
absl::Status ParseAdminArguments(CommandKind kind, const std::vector<std::string>& args,
                                 AdminOptions& admin) {
  const std::string where = "'iashim " + std::string(CommandName(kind)) + "'";
  if (kind == CommandKind::kPriority) {
    if (args.size() != 2) {
      return Invalid(where + " takes a job id and a priority (iashim priority JOB "
                     "guaranteed|opportunistic), got " + std::to_string(args.size()) +
                     " arguments");
    }
    if (!ValidJobName(args[0])) {
      return Invalid("job id " + Quoted(args[0]) +
                     ": must be 1-128 characters of letters, digits and ._-:/@+");
    }
    absl::StatusOr<Priority> priority = ParsePriorityOption("priority", args[1]);
    if (!priority.ok()) return priority.status();
    admin.job = args[0];
    admin.priority = *priority;
    return absl::OkStatus();
  }
  if (args.size() != 1) {
    return Invalid(where + " takes one HOST or HOST:GPU, got " + std::to_string(args.size()) +
                   " arguments");
  }
  const std::string& target = args[0];
  const size_t colon = target.rfind(':');
  const std::string host = target.substr(0, colon);
  if (!ValidHostName(host)) {
    return Invalid("host " + Quoted(host) + ": must be 1-255 characters of letters, digits and ._-");
  }
  admin.host = host;
  admin.gpu = -1;
  if (colon != std::string::npos) {
    const std::string gpu = target.substr(colon + 1);
    std::optional<int64_t> index = ParseInt(gpu, 0, kMaxGpuIndex);
    if (!index) {
      return Invalid("GPU " + Quoted(gpu) + " in " + Quoted(target) + ": must be an index from 0 to " +
                     std::to_string(kMaxGpuIndex) + " (or leave ':GPU' out for every GPU of the host)");
    }
    admin.gpu = static_cast<int>(*index);
  }
  return absl::OkStatus();
}

// Turns the raw values into `options`, or says which one is wrong.
absl::Status Validate(const RawValues& raw, const char* env_coordinator, CliOptions& options) {
  PlacementOptions& p = options.placement;
  if (raw.job) {
    if (!ValidJobName(*raw.job)) {
      return Invalid("--job " + Quoted(*raw.job) +
                     ": must be 1-128 characters of letters, digits and ._-:/@+");
    }
    p.job = *raw.job;
  }
  if (raw.kind) {
    if (!ValidModelKind(*raw.kind)) {
      return Invalid("--kind " + Quoted(*raw.kind) +
                     ": must be 1-128 printable ASCII characters, not starting or ending with a "
                     "space");
    }
    p.kind = *raw.kind;
  }
  if (raw.priority) {
    absl::StatusOr<Priority> priority = ParsePriorityOption("--priority", *raw.priority);
    if (!priority.ok()) return priority.status();
    p.priority = *priority;
  }
  if (raw.mem) {
    const std::optional<uint64_t> bytes = ParseByteSize(*raw.mem);
    if (!bytes) {
      return Invalid("--mem " + Quoted(*raw.mem) +
                     ": not a size (for example 8GiB, 512MiB, 16GB or a number of bytes)");
    }
    // 0 means "the whole GPU" on the wire; asking for it explicitly is far
    // more likely a slip than a request.
    if (*bytes == 0) {
      return Invalid("--mem " + Quoted(*raw.mem) +
                     ": must be more than 0 (leave --mem out for the whole GPU)");
    }
    p.mem_bytes = *bytes;
  }
  if (raw.gpu) {
    if (*raw.gpu == "auto") {
      p.gpu = -1;
    } else if (std::optional<int64_t> index = ParseInt(*raw.gpu, 0, kMaxGpuIndex)) {
      p.gpu = static_cast<int>(*index);
    } else {
      return Invalid("--gpu " + Quoted(*raw.gpu) + ": must be auto or a GPU index from 0 to " +
                     std::to_string(kMaxGpuIndex));
    }
  }
  if (raw.gpus) {
    const std::optional<int64_t> count = ParseInt(*raw.gpus, 1, kMaxGangGpus);
    if (!count) {
      return Invalid("--gpus " + Quoted(*raw.gpus) + ": must be a number of GPUs from 1 to " +
                     std::to_string(kMaxGangGpus));
    }
    p.gpus = static_cast<int>(*count);
    // A gang takes GPUs of one node the coordinator chooses; pinning one
    // of them would leave the others unsaid.
    if (p.gpus > 1 && p.gpu >= 0) {
      return Invalid("--gpu " + Quoted(*raw.gpu) + " pins one GPU; a gang (--gpus " + *raw.gpus +
                     ") cannot be pinned: leave --gpu out");
    }
  }
  if (raw.slowdown_target) {
    const std::optional<double> target = ParseDouble(*raw.slowdown_target, 0, kMaxSlowdownTarget);
    if (!target || *target <= 0) {
      return Invalid("--slowdown-target " + Quoted(*raw.slowdown_target) +
                     ": must be a number above 0 and at most 10 (0.1 = up to 10% slower than "
                     "alone)");
    }
    // Only guaranteed jobs are protected; a target on an opportunistic job
    // would be silently meaningless.
    if (p.priority != Priority::kGuaranteed) {
      return Invalid("--slowdown-target applies to guaranteed jobs only");
    }
    p.slowdown_target = *target;
  }
  if (raw.coordinator) {
    if (!ValidEndpoint(*raw.coordinator)) {
      return Invalid("--coordinator " + Quoted(*raw.coordinator) +
                     ": expected tcp://HOST:PORT or ipc://PATH");
    }
    options.coordinator = *raw.coordinator;
  } else if (env_coordinator != nullptr && *env_coordinator != '\0') {
    if (!ValidEndpoint(env_coordinator)) {
      return Invalid("IASHIM_COORDINATOR=" + Quoted(env_coordinator) +
                     ": expected tcp://HOST:PORT or ipc://PATH (or pass --coordinator)");
    }
    options.coordinator = env_coordinator;
  }
  // Read (and checked against the endpoint) by ResolveToolKeys, after parsing.
  if (raw.coordinator_key) {
    if (raw.coordinator_key->empty()) return Invalid("--coordinator-key must not be empty");
    options.coordinator_key = *raw.coordinator_key;
  }
  if (raw.admin_key) {
    if (raw.admin_key->empty()) return Invalid("--admin-key must not be empty");
    options.admin_key_file = *raw.admin_key;
  }
  if (raw.timeout_s) {
    const std::optional<double> seconds = ParseDouble(*raw.timeout_s, 0, kMaxTimeoutS);
    if (!seconds || *seconds <= 0) {
      return Invalid("--timeout-s " + Quoted(*raw.timeout_s) +
                     ": must be a number of seconds above 0 and at most 3600");
    }
    options.timeout_s = *seconds;
  }
  return absl::OkStatus();
}

}  // namespace

bool IsAdminCommand(CommandKind kind) {
  return kind == CommandKind::kDrain || kind == CommandKind::kUndrain ||
         kind == CommandKind::kPriority;
}

bool ValidHostName(std::string_view host) {
  if (host.empty() || host.size() > 255) return false;
  for (char c : host) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

absl::StatusOr<CliOptions> ParseCommandLine(const std::vector<std::string>& args,
                                            const char* env_coordinator) {
  CliOptions options;
  if (args.empty()) return Invalid("no command given (run, place, status, drain, undrain or priority)");
  const std::string& first = args[0];
  if (first == "--help" || first == "-h") {
    options.kind = CommandKind::kHelp;
    return options;
  }
  if (first == "--version") {
    options.kind = CommandKind::kVersion;
    return options;
  }
  if (first == "help") {
    options.kind = CommandKind::kHelp;
    if (args.size() > 1) {
      if (args[1] != "run" && args[1] != "place" && args[1] != "status" && args[1] != "drain" &&
          args[1] != "undrain" && args[1] != "priority") {
        return Invalid("no help for " + Quoted(args[1]) +
                       ": the commands are run, place, status, drain, undrain, priority");
      }
      options.help_topic = args[1];
    }
    return options;
  }
  if (first == "run") {
    options.kind = CommandKind::kRun;
  } else if (first == "place") {
    options.kind = CommandKind::kPlace;
  } else if (first == "status") {
    options.kind = CommandKind::kStatus;
  } else if (first == "drain") {
    options.kind = CommandKind::kDrain;
  } else if (first == "undrain") {
    options.kind = CommandKind::kUndrain;
  } else if (first == "priority") {
    options.kind = CommandKind::kPriority;
  } else if (first.starts_with("-")) {
    return Invalid("unknown option " + Quoted(first) +
                   " (the command comes first: run, place, status, drain, undrain or priority)");
  } else {
    return Invalid("unknown command " + Quoted(first) +
                   " (the commands are run, place, status, drain, undrain, priority)");
  }
  const std::string command_name(CommandName(options.kind));
  const std::string where = "'iashim " + command_name + "'";

  RawValues raw;
  std::vector<std::string> positional;  // the admin commands' arguments
  bool help = false;
  bool saw_separator = false;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--" && options.kind == CommandKind::kRun) {
      saw_separator = true;
      options.command.assign(args.begin() + static_cast<ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (arg == "--help" || arg == "-h") {
      help = true;
      continue;
    }
    if (!arg.starts_with("-") && IsAdminCommand(options.kind)) {
      positional.push_back(arg);
      continue;
    }
    if (!arg.starts_with("-")) {
      if (options.kind == CommandKind::kRun) {
        return Invalid("unexpected argument " + Quoted(arg) +
                       ": put the command to run after '--' (iashim run [options] -- " + arg +
                       " ...)");
      }
      return Invalid("unexpected argument " + Quoted(arg) + " for " + where);
    }
    const size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    const OptionSpec* spec = FindOption(name, options.kind);
    if (spec == nullptr) return Invalid("unknown option " + Quoted(name) + " for " + where);
    if (spec->kind == OptionKind::kFlag) {
      if (equals != std::string::npos) return Invalid(name + " takes no value");
      if (name == "--simgpu") options.simgpu = true;
      if (name == "--json") options.json = true;
      if (name == "--pairs") options.pairs = true;
      if (name == "--events") options.events = true;
      if (name == "--dry-run") options.placement.dry_run = true;
      if (name == "--guaranteed-gres") options.placement.guaranteed_gres = true;
      continue;
    }
    std::string value;
    if (equals != std::string::npos) {
      value = arg.substr(equals + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return Invalid(name + " needs a value (" + std::string(spec->value_name) + ")");
    }
    *Slot(raw, name) = std::move(value);
  }
  if (help) {
    options.kind = CommandKind::kHelp;
    options.help_topic = command_name;
    return options;
  }
  if (absl::Status s = Validate(raw, env_coordinator, options); !s.ok()) return s;
  if (options.kind == CommandKind::kStatus && raw.job && !options.events) {
    return Invalid("--job with 'iashim status' says whose events to show: add --events");
  }
  if (options.placement.guaranteed_gres && !options.placement.dry_run) {
    // A real request comes from the node the batch system chose: nothing to leave out.
    return Invalid("--guaranteed-gres goes with --dry-run (where a job would go)");
  }
  if (IsAdminCommand(options.kind)) {
    if (absl::Status s = ParseAdminArguments(options.kind, positional, options.admin); !s.ok()) {
      return s;
    }
  }
  if (options.kind == CommandKind::kRun) {
    if (!saw_separator) {
      return Invalid("no command to run: put it after '--' (iashim run [options] -- CMD ARGS...)");
    }
    if (options.command.empty() || options.command[0].empty()) {
      return Invalid("no command to run after '--'");
    }
  }
  return options;
}

std::string Usage(std::string_view topic) {
  const std::string placement =
      "  --job NAME              the job's name (1-128 of letters, digits and ._-:/@+);\n"
      "                          default: the coordinator assigns one\n"
      "  --priority P            guaranteed (speed protected; default) or opportunistic\n"
      "                          (gets what is left)\n"
      "  --mem SIZE              GPU memory quota: 8GiB, 512MiB, 16GB, bytes; default:\n"
      "                          the whole GPU\n"
      "  --gpu auto|N            let the coordinator choose (default) or ask for GPU N\n"
      "  --gpus N                GPUs the job uses at once, 1-64 (default 1): N GPUs of\n"
      "                          one node, in CUDA_VISIBLE_DEVICES for all its ranks\n"
      "  --slowdown-target F     guaranteed jobs: the slowdown allowed by sharing, in\n"
      "                          (0, 10]; 0.1 = up to 10% slower than alone\n"
      "  --kind MODEL            what the job trains, e.g. \"resnet50\": the interference\n"
      "                          model predicts from earlier jobs of the same kind; default:\n"
      "                          learned from the job's kernels once it runs\n";
  const std::string common =
      "  --coordinator ENDPOINT  tcp://HOST:PORT or ipc://PATH (default: $IASHIM_COORDINATOR,\n"
      "                          else " +
      std::string(kDefaultCoordinator) +
      ")\n"
      "  --timeout-s S           how long to wait for the coordinator's answer (default 2)\n"
      "  --coordinator-key FILE  the coordinator's public key (coordinator.key from `iashim\n"
      "                          keygen`; or its 40 characters): talk CurveZMQ; needed beyond\n"
      "                          loopback (default: $IASHIM_COORDINATOR_KEY)\n"
      "  --admin-key FILE        the admin's secret key (admin.key_secret from `iashim keygen\n"
      "                          --admin`): write actions (drain, undrain, priority)\n"
      "  -h, --help              this text\n";
  if (topic == "run") {
    return "Usage: iashim run [options] -- CMD [ARGS...]\n"
           "\n"
           "Asks the coordinator where the job should run, then runs CMD there under the\n"
           "shim (libiashim.so preloaded; CUDA_VISIBLE_DEVICES and IASHIM_* set). CMD\n"
           "replaces iashim, so its exit status is the command's. With no coordinator\n"
           "answering, CMD runs unmanaged: still under the shim, with the --mem quota.\n"
           "\n" +
           placement +
           "  --simgpu                run on the simulated GPU driver (simgpu) instead of a\n"
           "                          real one\n" +
           common +
           "\n"
           "Exit status: the command's; 1 refused by the coordinator or the shim not\n"
           "found; 2 bad command line; 126/127 CMD cannot be run; 130 interrupted while\n"
           "queued.\n";
  }
  if (topic == "place") {
    return "Usage: iashim place [options]\n"
           "\n"
           "Asks the coordinator where a job would be placed and prints its answer; runs\n"
           "nothing. The coordinator registers the job and hands out its token (for a\n"
           "job started some other way), unless --dry-run.\n"
           "\n" +
           placement +
           "  --dry-run               only ask where the job would go: the coordinator\n"
           "                          registers nothing and hands out no token; the\n"
           "                          answer says dry_run: true. Without --gpu, it\n"
           "                          may go to any node of the cluster, and a placed\n"
           "                          answer's GPUs are held for the job for a while\n"
           "                          (the coordinator's --reservation-ttl-s)\n"
           "  --guaranteed-gres       with --dry-run, for a guaranteed job or a gang: the\n"
           "                          batch system starts neither on a node whose\n"
           "                          guaranteed jobs and gangs would then use more GPUs\n"
           "                          than it has (job_submit.lua's IASHIM_GUARANTEED_GRES),\n"
           "                          so the answer names no such node\n" +
           common +
           "\n"
           "Exit status: 0 placed, 1 refused, 2 bad command line, 3 queued (no GPU fits\n"
           "now), 4 no coordinator answered.\n";
  }
  if (topic == "drain" || topic == "undrain") {
    const std::string name(topic);
    return "Usage: iashim " + name + " HOST[:GPU] [options]\n"
           "\n" +
           (topic == "drain"
                ? std::string("Tells the coordinator to place no new job on GPU GPU of HOST, or on\n"
                              "every GPU of HOST; jobs already there run on. `iashim status` shows\n"
                              "drained GPUs; a restarted coordinator keeps them drained.\n")
                : std::string("Lets the coordinator place jobs on GPU GPU of HOST (or every GPU of\n"
                              "HOST) again.\n")) +
           "Needs the admin key (`iashim keygen --admin`; the coordinator's --admin-key).\n"
           "\n" +
           common +
           "\n"
           "Exit status: 0 done, 1 refused (no admin key, unknown host or GPU), 2 bad\n"
           "command line, 4 no coordinator answered.\n";
  }
  if (topic == "priority") {
    return "Usage: iashim priority JOB guaranteed|opportunistic [options]\n"
           "\n"
           "Changes a running job's priority. The coordinator's share controller acts on\n"
           "it at its next step: an opportunistic job next to a guaranteed one is\n"
           "throttled, a job made guaranteed is unthrottled. A restarted coordinator keeps\n"
           "it. Needs the admin key (`iashim keygen --admin`; the coordinator's\n"
           "--admin-key).\n"
           "\n" +
           common +
           "\n"
           "Exit status: 0 done, 1 refused (no admin key, unknown job), 2 bad command\n"
           "line, 4 no coordinator answered.\n";
  }
  if (topic == "status") {
    return "Usage: iashim status [--json] [--pairs] [--events [--job NAME]] [options]\n"
           "\n"
           "Prints the coordinator's GPUs and the jobs on each.\n"
           "\n"
           "  --json                  JSON instead of a table; a failure is also JSON on\n"
           "                          stdout: {\"error\": \"...\", \"hints\": [...]}\n"
           "  --pairs                 also what the interference model has learned: each\n"
           "                          pair of job kinds observed sharing a GPU, how often,\n"
           "                          the throughput measured, what placement is told, the\n"
           "                          factor model's own estimate, and the uncertainty\n"
           "  --events                also the coordinator's recent events (the lines of its\n"
           "                          log, UTC, oldest first): jobs placed, queued or\n"
           "                          refused and why, connected, probed, lost, ended;\n"
           "                          nodes lost and heard again\n"
           "  --job NAME              with --events: only those concerning job NAME (about\n"
           "                          it, or placing another job beside it)\n" +
           common +
           "\n"
           "Exit status: 0 shown, 1 the coordinator could not answer, 2 bad command line,\n"
           "4 no coordinator answered.\n";
  }
  return "Usage: iashim COMMAND [options]\n"
         "\n"
         "Runs deep-learning jobs on GPUs shared through an iashim coordinator.\n"
         "\n"
         "Commands:\n"
         "  run [options] -- CMD [ARGS...]  place the job, then run CMD under the shim\n"
         "  place [options]                 ask where a job would be placed; run nothing\n"
         "  status [--json] [--pairs] [--events [--job NAME]]\n"
         "                                  the coordinator's GPUs and jobs (and learned\n"
         "                                  pairs, recent events)\n"
         "  drain HOST[:GPU]                place no new job there (admin key)\n"
         "  undrain HOST[:GPU]              place jobs there again (admin key)\n"
         "  priority JOB guaranteed|opportunistic\n"
         "                                  change a job's priority (admin key)\n"
         "  keygen [--admin] [--dir DIR]    make the coordinator's (or the admin's)\n"
         "                                  CurveZMQ key pair\n"
         "\n"
         "  iashim COMMAND --help           that command's options\n"
         "  iashim --version                print the version\n"
         "\n"
         "Example: iashim run --mem 16GiB --priority opportunistic -- python train.py\n";
}

}  // namespace iashim::cli
