#include "bench/load/cluster_layout.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace iashim::load {

int GpuCount(int shims, int shims_per_gpu) { return (shims + shims_per_gpu - 1) / shims_per_gpu; }

std::string HostOf(int gpu) { return absl::StrFormat("load-node-%04d", gpu); }

absl::Status WriteClusterFile(const std::string& path, int shims, int shims_per_gpu) {
  std::ofstream out(path, std::ios::trunc);
  out << "# iashim-loadgen --shims " << shims << " --shims-per-gpu " << shims_per_gpu
      << ": one GPU per simulated node.\n";
  for (int g = 0; g < GpuCount(shims, shims_per_gpu); ++g) {
    out << "node " << HostOf(g) << "\n  gpu 0 h100 80GiB name=\"simulated H100 (iashim-loadgen)\"\n";
  }
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write the cluster file ", path));
  return absl::OkStatus();
}

}  // namespace iashim::load
