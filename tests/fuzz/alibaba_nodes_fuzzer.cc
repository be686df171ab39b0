// iashim-clustersim's parser of Alibaba's 2023 node list
// (coordinator/clustersim/alibaba_trace.h ParseAlibabaNodes).
#include <cstdint>
#include <set>

#include "coordinator/clustersim/alibaba_trace.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  using namespace iashim::clustersim;
  const absl::StatusOr<std::vector<AlibabaNode>> nodes =
      ParseAlibabaNodes(fuzz::AsText(data, size), "nodes.csv");
  if (!nodes.ok()) {
    if (nodes.status().message().find("nodes.csv") == std::string_view::npos) {
      fuzz::Fail("an error that does not name the source");
    }
    return 0;
  }
  std::set<std::string> names;
  for (const AlibabaNode& n : *nodes) {
    if (n.gpus < 1 || n.gpus > kMaxGpusPerNode) fuzz::Fail("a GPU count out of range");
    if (!names.insert(n.sn).second) fuzz::Fail("a node listed twice");
  }
  return 0;
}
