// What `iashim` does, one file each. Each takes validated options
// and returns the process's exit status (README.md lists them); RunCommand
// returns only when the job could not be started, since the job replaces
// iashim.
#ifndef IASHIM_COORDINATOR_CLI_COMMANDS_H_
#define IASHIM_COORDINATOR_CLI_COMMANDS_H_

#include "coordinator/cli/cli_options.h"

namespace iashim::cli {

// Exit statuses shared by the commands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRefused = 1;  // also: any other failure
inline constexpr int kExitUsage = 2;
inline constexpr int kExitQueued = 3;
inline constexpr int kExitNoCoordinator = 4;
inline constexpr int kExitCannotExecute = 126;  // as a shell says it
inline constexpr int kExitNotFound = 127;
inline constexpr int kExitInterrupted = 130;  // 128 + SIGINT

int RunCommand(const CliOptions& options);
int PlaceCommand(const CliOptions& options);
int StatusCommand(const CliOptions& options);
// drain, undrain and priority (admin_command.cc).
int AdminCommand(const CliOptions& options);

}  // namespace iashim::cli

#endif  // IASHIM_COORDINATOR_CLI_COMMANDS_H_
