// The coordinator's cluster file (coordinator/cluster/cluster_file.h). Every
// refusal names the source and a line; an accepted cluster stays within the
// file's limits, without two GPUs of one name.
#include <cstdint>
#include <set>

#include "coordinator/cluster/cluster_file.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  const absl::StatusOr<policy::Cluster> cluster =
      cluster::ParseClusterText(fuzz::AsText(data, size), "fuzz.cluster");
  if (!cluster.ok()) {
    if (cluster.status().message().find("fuzz.cluster") == std::string_view::npos) {
      fuzz::Fail("an error that does not name the file");
    }
    return 0;
  }
  std::set<policy::GpuId> seen;
  for (const policy::GpuInfo& gpu : cluster->gpus) {
    if (gpu.id.host.empty()) fuzz::Fail("a GPU without a host");
    if (gpu.id.index < 0 || gpu.id.index > cluster::kMaxGpuIndex) fuzz::Fail("index out of range");
    if (gpu.memory_bytes < cluster::kMinGpuMemoryBytes ||
        gpu.memory_bytes > cluster::kMaxGpuMemoryBytes) {
      fuzz::Fail("memory out of range");
    }
    if (!seen.insert(gpu.id).second) fuzz::Fail("one GPU listed twice");
  }
  return 0;
}
