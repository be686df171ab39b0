// The cluster as the policy sees it: nodes and their GPUs. Plain values, no
// I/O: the daemon fills them from --cluster FILE or NVML; iashim-clustersim
// from a trace.
#ifndef IASHIM_POLICY_CLUSTER_H_
#define IASHIM_POLICY_CLUSTER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace iashim::policy {

// A GPU is named by its node and its index on that node (what
// CUDA_VISIBLE_DEVICES takes there).
struct GpuId {
  std::string host;
  int index = 0;

  friend bool operator==(const GpuId&, const GpuId&) = default;
  friend auto operator<=>(const GpuId&, const GpuId&) = default;
};

struct GpuInfo {
  GpuId id;
  std::string type;          // "v100", "a100", "h200": what interference data is keyed by
  std::string name;          // as the driver reports it, for display
  std::string uuid;          // "GPU-..." when known
  uint64_t memory_bytes = 0;
};

struct Cluster {
  std::vector<GpuInfo> gpus;  // every GPU of every node
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_CLUSTER_H_
