// iashim-fakejob's command line (bench/fakejob/options.h, over cli_args.h):
// the input is argv[1..], NUL-separated.
#include <cstdint>

#include "bench/fakejob/options.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  const absl::StatusOr<fakejob::Options> o = fakejob::ParseOptions(fuzz::SplitArgs(data, size));
  if (!o.ok() && o.status().message().empty()) fuzz::Fail("a refusal without a reason");
  return 0;
}
