// iashim-top's command line (coordinator/top/options.h): the input is
// argv[1..], NUL-separated. Unless it asks for help or the version, an
// accepted command line has an endpoint that passes ValidateEndpoint.
#include <cstdint>

#include "coordinator/top/options.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  const absl::StatusOr<top::TopOptions> o = top::ParseOptions(fuzz::SplitArgs(data, size));
  if (!o.ok()) {
    if (o.status().message().empty()) fuzz::Fail("a refusal without a reason");
    return 0;
  }
  // --help and --version answer whatever else is on the line.
  if (!o->help && !o->version && !top::ValidateEndpoint(o->pub_endpoint).ok()) {
    fuzz::Fail("an accepted bad endpoint");
  }
  return 0;
}
