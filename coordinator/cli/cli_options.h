// The `iashim` command line, parsed and validated before any socket is opened
// or any process started, so a typo fails at once with a message naming the
// option (exit 2) instead of a job placed or run with a setting nobody meant.
//
// Pure: the caller passes the arguments and the environment's default
// coordinator, so every rule is unit-tested without a process.
#ifndef IASHIM_COORDINATOR_CLI_CLI_OPTIONS_H_
#define IASHIM_COORDINATOR_CLI_CLI_OPTIONS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "names.h"
#include "security/curve_socket.h"

namespace iashim::cli {

inline constexpr std::string_view kDefaultCoordinator = "tcp://127.0.0.1:5555";
inline constexpr double kDefaultTimeoutS = 2.0;
// PlaceRequest.command is for display; the schema caps it at 256 bytes.
inline constexpr size_t kMaxCommandBytes = 256;

enum class CommandKind { kHelp, kVersion, kRun, kPlace, kStatus, kDrain, kUndrain, kPriority };

// drain, undrain and priority: write actions that need the admin key.
bool IsAdminCommand(CommandKind kind);

// Mirrors wire::Priority without pulling the generated header into every
// user of the options.
enum class JobPriority { kGuaranteed, kOpportunistic };

std::string_view PriorityName(JobPriority priority);  // "guaranteed" / "opportunistic"

// The batch system's ids of a job (wire BatchJob), e.g. {"slurm", "1234", "0", 0}
// for task 0 of step 0 of Slurm job 1234. Sent only when `system` is set; the
// command line does not set them (a batch system's plugin does).
struct BatchIds {
  std::string system, job, step;
  int task = -1;  // the local task id; -1 = none
};

// What `run` and `place` ask the coordinator for.
struct PlacementOptions {
  std::string job;  // empty: the coordinator assigns one
  JobPriority priority = JobPriority::kGuaranteed;
  uint64_t mem_bytes = 0;        // 0: the whole GPU
  int gpu = -1;                  // -1: the coordinator chooses
  double slowdown_target = 0.0;  // 0: the coordinator's default
  std::string kind;              // empty: unknown (learned from the job's kernels)
  std::vector<int> allowed_gpus;  // GPU indexes on the host the job may use; empty: any
  bool dry_run = false;          // place --dry-run: where it would go; nothing registered
  BatchIds batch;                // system empty: none
};

// What `drain HOST[:GPU]`, `undrain HOST[:GPU]` and `priority JOB P` name.
struct AdminOptions {
  std::string host;  // drain, undrain
  int gpu = -1;      // drain, undrain: -1 = every GPU of host
  std::string job;   // priority
  JobPriority priority = JobPriority::kGuaranteed;  // priority
};

struct CliOptions {
  CommandKind kind = CommandKind::kHelp;
  // For kHelp: the command whose help was asked for ("" = the overview).
  std::string help_topic;
  std::string coordinator = std::string(kDefaultCoordinator);
  double timeout_s = kDefaultTimeoutS;
  PlacementOptions placement;
  bool simgpu = false;               // run: use the simulated driver
  bool json = false;                 // status: JSON instead of a table
  std::vector<std::string> command;  // run: what follows `--`
  AdminOptions admin;                // drain, undrain, priority
  // As given (--coordinator-key; else $IASHIM_COORDINATOR_KEY, read by
  // ResolveToolKeys) and what they resolve to for `coordinator`.
  std::string coordinator_key;
  std::string admin_key_file;
  security::ClientKeys keys;
};

// `args` without the program name. `env_coordinator` is $IASHIM_COORDINATOR
// (null or empty: unset); it replaces the built-in default and --coordinator
// replaces both. Options take their value as "--opt VALUE" or "--opt=VALUE".
// An error's message says what was wrong and is meant to follow "iashim: ".
absl::StatusOr<CliOptions> ParseCommandLine(const std::vector<std::string>& args,
                                            const char* env_coordinator);

// Checks shared with the environment: a coordinator endpoint (tcp://HOST:PORT
// or ipc://PATH) and a job name (1-128 of letters, digits and ._-:/@+, the
// rule the shim applies to IASHIM_JOB, so a name accepted here is never
// rejected by the shim).
inline bool ValidEndpoint(std::string_view endpoint) { return ValidConnectEndpoint(endpoint); }
using ::iashim::ValidJobName;

// A node name as the coordinator's cluster knows it (drain HOST): 1-255 of
// letters, digits and ._-
bool ValidHostName(std::string_view host);

// "--help" text: the overview (topic "") or one command's.
std::string Usage(std::string_view topic);

}  // namespace iashim::cli

#endif  // IASHIM_COORDINATOR_CLI_CLI_OPTIONS_H_
