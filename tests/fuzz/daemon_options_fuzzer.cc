// iashim-coordinator's command line (coordinator/daemon/daemon_options.h):
// the input is argv[1..], NUL-separated.
#include <cstdint>

#include "coordinator/daemon/daemon_options.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  const absl::StatusOr<daemon::DaemonOptions> o =
      daemon::ParseDaemonOptions(fuzz::SplitArgs(data, size));
  if (!o.ok() && o.status().message().empty()) fuzz::Fail("a refusal without a reason");
  return 0;
}
