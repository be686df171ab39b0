// iashim-clustersim's command lines (coordinator/clustersim/cli_options.h and
// alibaba_cli.h): the input is argv[1..], NUL-separated, and goes where main()
// would send it.
#include <cstdint>

#include "coordinator/clustersim/alibaba_cli.h"
#include "coordinator/clustersim/cli_options.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  using namespace iashim::clustersim;
  const std::vector<std::string> args = fuzz::SplitArgs(data, size);
  if (IsAlibabaCommandLine(args)) {
    const std::vector<std::string_view> views(args.begin(), args.end());
    const absl::StatusOr<AlibabaCliOptions> o = ParseAlibabaCliArgs(views);
    if (!o.ok() && o.status().message().empty()) fuzz::Fail("a refusal without a reason");
    return 0;
  }
  const absl::StatusOr<CliOptions> o = ParseCliOptions(args);
  if (!o.ok() && o.status().message().empty()) fuzz::Fail("a refusal without a reason");
  return 0;
}
