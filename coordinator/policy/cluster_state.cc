#include "coordinator/policy/cluster_state.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace iashim::policy {

const GpuInfo* ClusterState::FindGpu(const GpuId& id) const {
  for (const GpuInfo& g : cluster.gpus) {
    if (g.id == id) return &g;
  }
  return nullptr;
}

std::span<const PlacedJob> ClusterState::JobsOn(const GpuId& id) const {
  auto it = jobs.find(id);
  if (it == jobs.end()) return {};
  return it->second;
}

const GpuId* ClusterState::FindJob(const std::string& job) const {
  for (const auto& [gpu, placed] : jobs) {
    for (const PlacedJob& p : placed) {
      if (p.job == job) return &gpu;
    }
  }
  return nullptr;
}

std::vector<GpuId> ClusterState::FindJobGpus(const std::string& job) const {
  std::vector<GpuId> gpus;
  for (const auto& [gpu, placed] : jobs) {
    for (const PlacedJob& p : placed) {
      if (p.job == job) {
        gpus.push_back(gpu);
        break;
      }
    }
  }
  return gpus;
}

std::map<std::string, int> ClusterState::GuaranteedGresUsed() const {
  std::map<std::string, int> used;
  for (const auto& [gpu, placed] : jobs) {
    for (const PlacedJob& j : placed) {
      if (AsksGuaranteedGres(j.priority, j.gpu_count)) ++used[gpu.host];
    }
  }
  return used;
}

bool AsksGuaranteedGres(Priority priority, int gpu_count) {
  return priority == Priority::kGuaranteed || gpu_count > 1;
}

std::string GpuName(const GpuId& id) { return absl::StrCat(id.host, ":", id.index); }

uint64_t ReservedBytes(const GpuInfo& gpu, std::span<const PlacedJob> jobs) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t reserved = 0;
  for (const PlacedJob& j : jobs) {
    const uint64_t bytes = j.mem_bytes == 0 ? gpu.memory_bytes : j.mem_bytes;
    reserved = bytes > kMax - reserved ? kMax : reserved + bytes;
  }
  return reserved;
}

uint64_t FreeBytes(const GpuInfo& gpu, std::span<const PlacedJob> jobs) {
  return gpu.memory_bytes - std::min(gpu.memory_bytes, ReservedBytes(gpu, jobs));
}

bool FitsNow(const GpuInfo& gpu, std::span<const PlacedJob> jobs, uint64_t mem_bytes) {
  if (mem_bytes == 0) return jobs.empty();
  for (const PlacedJob& j : jobs) {
    if (j.mem_bytes == 0) return false;  // someone holds the whole GPU
  }
  if (gpu.memory_bytes == 0) return true;
  return mem_bytes <= FreeBytes(gpu, jobs);
}

bool CanEverFit(const GpuInfo& gpu, uint64_t mem_bytes) {
  return mem_bytes == 0 || gpu.memory_bytes == 0 || mem_bytes <= gpu.memory_bytes;
}

double TotalBusy(std::span<const PlacedJob> jobs) {
  double total = 0;
  for (const PlacedJob& j : jobs) {
    if (std::isfinite(j.busy) && j.busy > 0) total += j.busy;
  }
  return total;
}

}  // namespace iashim::policy
