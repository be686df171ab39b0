// iashim: run a job on a GPU shared through the coordinator, ask where one
// would go, or show what the coordinator manages. See README.md.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "coordinator/cli/cli_options.h"
#include "coordinator/cli/commands.h"
#include "coordinator/cli/keygen_command.h"
#include "coordinator/cli/tool_keys.h"

#ifndef IASHIM_CLI_VERSION
#define IASHIM_CLI_VERSION "unknown"
#endif

namespace iashim::cli {
namespace {

int Main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  // keygen talks to no coordinator and shares none of the other options.
  if (!args.empty() && args[0] == "keygen") {
    return KeygenCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  absl::StatusOr<CliOptions> options = ParseCommandLine(args, std::getenv("IASHIM_COORDINATOR"));
  if (!options.ok()) {
    std::string help = "iashim --help";
    if (!args.empty() && (args[0] == "run" || args[0] == "place" || args[0] == "status" ||
                          args[0] == "drain" || args[0] == "undrain" || args[0] == "priority")) {
      help = "iashim " + args[0] + " --help";
    }
    std::fprintf(stderr, "iashim: %s\nTry '%s'.\n", std::string(options.status().message()).c_str(),
                 help.c_str());
    return kExitUsage;
  }
  if (options->kind != CommandKind::kHelp && options->kind != CommandKind::kVersion) {
    if (absl::Status s = ResolveToolKeys(*options, std::getenv("IASHIM_COORDINATOR_KEY"));
        !s.ok()) {
      std::fprintf(stderr, "iashim: %s\n", std::string(s.message()).c_str());
      return kExitUsage;
    }
  }
  switch (options->kind) {
    case CommandKind::kHelp:
      std::fputs(Usage(options->help_topic).c_str(), stdout);
      return kExitOk;
    case CommandKind::kVersion:
      std::printf("iashim %s\n", IASHIM_CLI_VERSION);
      return kExitOk;
    case CommandKind::kRun:
      return RunCommand(*options);
    case CommandKind::kPlace:
      return PlaceCommand(*options);
    case CommandKind::kStatus:
      return StatusCommand(*options);
    case CommandKind::kDrain:
    case CommandKind::kUndrain:
    case CommandKind::kPriority:
      return AdminCommand(*options);
  }
  return kExitUsage;
}

}  // namespace
}  // namespace iashim::cli

#if defined(IASHIM_SANITIZE_THREAD)
// TSan builds only: libzmq is not instrumented, so its I/O thread's hand-offs
// (which it synchronises itself) look like races.
extern "C" const char* __tsan_default_suppressions() { return "race:libzmq.so\n"; }
#endif

int main(int argc, char** argv) {
  // Nothing below should throw past its own handling; if something does
  // (out of memory), say so in one line rather than abort with a core.
  try {
    return iashim::cli::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iashim: %s\n", e.what());
    return iashim::cli::kExitRefused;
  }
}
