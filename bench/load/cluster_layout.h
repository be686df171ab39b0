// Where the simulated shims run: node load-node-NNNN has one GPU, shared by
// shims_per_gpu shims (the first guaranteed, the others opportunistic). The
// coordinator must be given the same layout as its cluster file.
#ifndef IASHIM_BENCH_LOAD_CLUSTER_LAYOUT_H_
#define IASHIM_BENCH_LOAD_CLUSTER_LAYOUT_H_

#include <string>

#include "absl/status/status.h"

namespace iashim::load {

int GpuCount(int shims, int shims_per_gpu);
std::string HostOf(int gpu);
// The cluster file (coordinator/cluster/README.md) with GpuCount nodes.
absl::Status WriteClusterFile(const std::string& path, int shims, int shims_per_gpu);

}  // namespace iashim::load

#endif  // IASHIM_BENCH_LOAD_CLUSTER_LAYOUT_H_
