// iashim-clustersim's Gavel job trace parser
// (coordinator/clustersim/gavel_trace.h). Accepted jobs have a type, a
// positive step count and a finite arrival >= 0; refusals name the source.
#include <cmath>
#include <cstdint>

#include "coordinator/clustersim/gavel_trace.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  const absl::StatusOr<std::vector<clustersim::TraceJob>> jobs =
      clustersim::ParseGavelTrace(fuzz::AsText(data, size), "fuzz.trace", "fuzz");
  if (!jobs.ok()) {
    if (jobs.status().message().find("fuzz.trace") == std::string_view::npos) {
      fuzz::Fail("an error that does not name the source");
    }
    return 0;
  }
  for (const clustersim::TraceJob& job : *jobs) {
    if (job.type.name.empty() || job.type.scale <= 0) fuzz::Fail("a job without a type");
    if (job.total_steps <= 0) fuzz::Fail("a job without steps");
    if (!std::isfinite(job.arrival_s) || job.arrival_s < 0) fuzz::Fail("a bad arrival");
  }
  return 0;
}
