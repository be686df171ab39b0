// iashim-clustersim's reader of Gavel's throughputs JSON
// (coordinator/clustersim/gavel_throughputs.h) for GPU type "v100", and the
// job type key parser: a key it accepts must print back to itself.
#include <cmath>
#include <cstdint>

#include "coordinator/clustersim/gavel_throughputs.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  using namespace iashim::clustersim;
  const std::string_view text = fuzz::AsText(data, size);
  if (const absl::StatusOr<JobType> type = ParseJobTypeKey(text); type.ok()) {
    if (JobTypeKey(*type) != text) fuzz::Fail("a job type key that does not print back");
  }
  const absl::StatusOr<GavelThroughputs> t = ParseGavelThroughputs(text, "v100", "fuzz.json");
  if (!t.ok()) {
    if (t.status().message().empty()) fuzz::Fail("a refusal without a reason");
    return 0;
  }
  const std::vector<JobType> types = t->Types();
  for (const JobType& a : types) {
    const std::optional<double> solo = t->Solo(a);
    if (!solo.has_value() || !std::isfinite(*solo) || *solo < 0) fuzz::Fail("a bad solo speed");
    for (const JobType& b : types) {
      if (const std::optional<PairThroughput> p = t->Pair(a, b); p.has_value()) {
        if (!std::isfinite(p->a) || !std::isfinite(p->b) || p->a < 0 || p->b < 0) {
          fuzz::Fail("a bad pair speed");
        }
      }
    }
  }
  return 0;
}
