// --metrics HOST:PORT (coordinator/metrics/listen_address.h). An accepted
// address has a printable host and prints to text that parses back to the
// same address.
#include <cstdint>

#include "coordinator/metrics/listen_address.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  using namespace iashim::metrics;
  const absl::StatusOr<ListenAddress> a = ParseListenAddress(fuzz::AsText(data, size));
  if (!a.ok()) {
    if (a.status().message().empty()) fuzz::Fail("a refusal without a reason");
    return 0;
  }
  for (const char c : a->host) {
    if (c <= ' ' || c >= 0x7f) fuzz::Fail("an accepted host with a control character or space");
  }
  const absl::StatusOr<ListenAddress> again = ParseListenAddress(a->ToString());
  if (!again.ok()) fuzz::Fail("an accepted address does not parse after printing");
  if (again->host != a->host || again->port != a->port) fuzz::Fail("printing changed it");
  return 0;
}
