#include "coordinator/clustersim/alibaba_fragmentation.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace iashim::clustersim {

FragmentationTracker::FragmentationTracker(const policy::Cluster& cluster) {
  absl::flat_hash_map<std::string, int> model_index;
  absl::flat_hash_map<std::pair<std::string, std::string>, int> unit_index;
  std::vector<int> unit_size;
  for (const policy::GpuInfo& g : cluster.gpus) {
    auto [m, new_model] = model_index.try_emplace(g.type, static_cast<int>(models_.size()));
    if (new_model) models_.push_back(g.type);
    auto [u, new_unit] =
        unit_index.try_emplace(std::make_pair(g.id.host, g.type), static_cast<int>(unit_size.size()));
    if (new_unit) {
      unit_size.push_back(0);
      unit_model_.push_back(m->second);
    }
    ++unit_size[u->second];
    gpu_model_.push_back(m->second);
    gpu_unit_.push_back(u->second);
  }
  for (int size : unit_size) max_unit_gpus_ = std::max(max_unit_gpus_, size);
  const size_t models = models_.size();
  gpus_by_free_.assign(models, std::vector<int64_t>(kGpuMilli + 1, 0));
  free_by_full_.assign(models, std::vector<int64_t>(max_unit_gpus_ + 1, 0));
  partial_by_full_.assign(models, std::vector<int64_t>(max_unit_gpus_ + 1, 0));
  model_free_.assign(models, 0);
  free_.assign(cluster.gpus.size(), kGpuMilli);
  unit_full_.assign(unit_size.begin(), unit_size.end());
  unit_free_.assign(unit_size.size(), 0);
  unit_partial_.assign(unit_size.size(), 0);
  for (size_t i = 0; i < cluster.gpus.size(); ++i) {
    ++gpus_by_free_[gpu_model_[i]][kGpuMilli];
    model_free_[gpu_model_[i]] += kGpuMilli;
    unit_free_[gpu_unit_[i]] += kGpuMilli;
    total_free_ += kGpuMilli;
  }
  for (size_t u = 0; u < unit_size.size(); ++u) AddUnit(static_cast<int>(u), +1);
}

void FragmentationTracker::AddUnit(int unit, int sign) {
  const int m = unit_model_[unit];
  free_by_full_[m][unit_full_[unit]] += sign * unit_free_[unit];
  partial_by_full_[m][unit_full_[unit]] += sign * unit_partial_[unit];
}

void FragmentationTracker::SetAllocated(int gpu, int milli) {
  const int new_free = kGpuMilli - std::clamp(milli, 0, kGpuMilli);
  const int old_free = free_[gpu];
  if (new_free == old_free) return;
  const int m = gpu_model_[gpu];
  const int u = gpu_unit_[gpu];
  const auto partial = [](int free) { return free > 0 && free < kGpuMilli ? free : 0; };
  AddUnit(u, -1);
  --gpus_by_free_[m][old_free];
  ++gpus_by_free_[m][new_free];
  const int delta = new_free - old_free;
  model_free_[m] += delta;
  total_free_ += delta;
  unit_free_[u] += delta;
  partial_free_ += partial(new_free) - partial(old_free);
  unit_partial_[u] += partial(new_free) - partial(old_free);
  unit_full_[u] += (new_free == kGpuMilli) - (old_free == kGpuMilli);
  free_[gpu] = new_free;
  AddUnit(u, +1);
}

Fragmentation FragmentationTracker::Measure(std::span<const WorkloadClass> workload) const {
  Fragmentation f;
  f.total_milli = static_cast<int64_t>(free_.size()) * kGpuMilli;
  f.free_milli = total_free_;
  f.allocated_milli = f.total_milli - f.free_milli;
  f.partial_free_milli = partial_free_;
  if (f.total_milli > 0) {
    f.alloc_rate = static_cast<double>(f.allocated_milli) / static_cast<double>(f.total_milli);
  }
  if (total_free_ == 0) return f;
  f.partial_share = static_cast<double>(partial_free_) / static_cast<double>(total_free_);

  // below[m][d]: free milli on GPUs of model m with less than d free.
  std::vector<std::vector<int64_t>> below(models_.size(), std::vector<int64_t>(kGpuMilli + 2, 0));
  for (size_t m = 0; m < models_.size(); ++m) {
    for (int free = 0; free <= kGpuMilli; ++free) {
      below[m][free + 1] = below[m][free] + free * gpus_by_free_[m][free];
    }
  }
  double unusable = 0;
  for (const WorkloadClass& c : workload) {
    int64_t class_unusable = 0;
    for (size_t m = 0; m < models_.size(); ++m) {
      const bool accepted = c.models.empty() || std::find(c.models.begin(), c.models.end(),
                                                          models_[m]) != c.models.end();
      if (!accepted) {
        class_unusable += model_free_[m];
      } else if (c.gpus <= 1 && c.milli < kGpuMilli) {
        class_unusable += below[m][std::clamp(c.milli, 0, kGpuMilli)];
      } else {
        // Whole GPUs: units with too few free GPUs are lost entirely; the
        // others lose their partially allocated GPUs.
        const int k = std::max(c.gpus, 1);
        for (int full = 0; full <= max_unit_gpus_; ++full) {
          class_unusable += full < k ? free_by_full_[m][full] : partial_by_full_[m][full];
        }
      }
    }
    unusable += c.weight * static_cast<double>(class_unusable);
  }
  f.workload_share = unusable / static_cast<double>(total_free_);
  return f;
}

absl::StatusOr<Fragmentation> MeasureFragmentation(const policy::ClusterState& state,
                                                   std::span<const WorkloadClass> workload) {
  FragmentationTracker tracker(state.cluster);
  for (size_t i = 0; i < state.cluster.gpus.size(); ++i) {
    const policy::GpuInfo& g = state.cluster.gpus[i];
    if (g.memory_bytes != kGpuMilli) {
      return absl::InvalidArgumentError(absl::StrCat("GPU ", policy::GpuName(g.id), " has ",
                                                     g.memory_bytes, " units; expected ",
                                                     kGpuMilli, " (milli)"));
    }
    const uint64_t reserved = policy::ReservedBytes(g, state.JobsOn(g.id));
    tracker.SetAllocated(static_cast<int>(i),
                         static_cast<int>(std::min<uint64_t>(reserved, kGpuMilli)));
  }
  return tracker.Measure(workload);
}

}  // namespace iashim::clustersim
