// The `iashim` command line (coordinator/cli/cli_options.h): the input is
// argv[1..], NUL-separated. What it accepts must satisfy the rules the shim
// applies later (endpoint, job name, command length).
#include <cstdint>

#include "coordinator/cli/cli_options.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  using namespace iashim::cli;
  const absl::StatusOr<CliOptions> o = ParseCommandLine(fuzz::SplitArgs(data, size), nullptr);
  if (!o.ok()) {
    if (o.status().message().empty()) fuzz::Fail("a refusal without a reason");
    return 0;
  }
  if (o->kind == CommandKind::kHelp) (void)Usage(o->help_topic);
  if (o->kind == CommandKind::kRun || o->kind == CommandKind::kPlace ||
      o->kind == CommandKind::kStatus) {
    if (!cli::ValidEndpoint(o->coordinator)) fuzz::Fail("an accepted endpoint the shim would refuse");
    if (!o->placement.job.empty() && !cli::ValidJobName(o->placement.job)) {
      fuzz::Fail("an accepted job name the shim would refuse");
    }
  }
  return 0;
}
