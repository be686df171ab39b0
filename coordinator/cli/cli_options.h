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
#include "common/security/curve_socket.h"
#include "common/text/names.h"
#include "coordinator/client/request_options.h"

namespace iashim::cli {

// The protocol client's vocabulary, which the command line fills in.
using client::BatchIds;
using client::Priority;
using client::kDefaultCoordinator;
using client::kDefaultTimeoutS;
using client::kMaxCommandBytes;
using client::PlacementOptions;
using client::PriorityName;

enum class CommandKind { kHelp, kVersion, kRun, kPlace, kStatus, kDrain, kUndrain, kPriority };

// drain, undrain and priority: write actions that need the admin key.
bool IsAdminCommand(CommandKind kind);

// What `drain HOST[:GPU]`, `undrain HOST[:GPU]` and `priority JOB P` name.
struct AdminOptions {
  std::string host;  // drain, undrain
  int gpu = -1;      // drain, undrain: -1 = every GPU of host
  std::string job;   // priority
  Priority priority = Priority::kGuaranteed;  // priority
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
  bool pairs = false;                // status: also the interference model's learned pairs
  bool events = false;               // status: also the recent events (placement.job: whose)
  std::vector<std::string> command;  // run: what follows `--`
  AdminOptions admin;                // drain, undrain, priority
  // As given (--coordinator-key; else $IASHIM_COORDINATOR_KEY, read by
  // ResolveToolKeys) and what they resolve to for `coordinator`.
  std::string coordinator_key;
  std::string admin_key_file;
  security::ClientKeys keys;

  // The job's request and its coordinator, as the protocol client takes them.
  client::JobRequest job_request() const { return {placement, coordinator, keys}; }
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
