// iashim-clustersim's parser of Alibaba's 2023 pod list
// (coordinator/clustersim/alibaba_trace.h ParseAlibabaPods): accepted pods
// keep the invariants the header promises.
#include <cstdint>
#include <set>

#include "coordinator/clustersim/alibaba_trace.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  using namespace iashim::clustersim;
  const absl::StatusOr<std::vector<AlibabaPod>> pods =
      ParseAlibabaPods(fuzz::AsText(data, size), "pods.csv");
  if (!pods.ok()) {
    if (pods.status().message().find("pods.csv") == std::string_view::npos) {
      fuzz::Fail("an error that does not name the source");
    }
    return 0;
  }
  std::set<std::string> names;
  for (const AlibabaPod& p : *pods) {
    if (!names.insert(p.name).second) fuzz::Fail("a pod listed twice");
    if (p.num_gpu < 0) fuzz::Fail("a negative GPU count");
    if (p.num_gpu == 0 && p.gpu_milli != 0) fuzz::Fail("a CPU pod asking GPU");
    if (p.num_gpu == 1 && (p.gpu_milli < 1 || p.gpu_milli > 1000)) fuzz::Fail("bad gpu_milli");
    if (p.num_gpu > 1 && p.gpu_milli != 1000) fuzz::Fail("multi-GPU pod with a share");
    if (p.deletion_s < p.creation_s) fuzz::Fail("deleted before created");
  }
  return 0;
}
