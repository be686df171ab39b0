#include "bench/predict/profile_job.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "simgpu/src/module_image.h"

namespace iashim::predict {

simgpu::VirtualJob ProfileJob(const fakejob::ModelProfile& profile, int sm_count) {
  simgpu::VirtualJob job;
  job.host_gap_ns = profile.host_gap_us * 1000;
  for (const auto& k : profile.launches) {
    simgpu::KernelModel model;
    model.fixed_us = k.duration_us;
    model.mem_intensity = static_cast<float>(k.mem_intensity);
    simgpu::Op op{};
    op.kind = simgpu::OpKind::kKernel;
    op.remaining_ns = model.DurationNs(k.grid_blocks, sm_count);
    op.mem_intensity = model.mem_intensity;
    op.sm_fill = simgpu::KernelModel::SmFill(k.grid_blocks, sm_count);
    op.event_slot = -1;
    job.iteration.push_back({k.stream, op});
  }
  return job;
}

absl::StatusOr<std::vector<MappedProfile>> ReadGavelMap(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::vector<MappedProfile> mapped;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    if (space == 0 || space == std::string::npos || space + 1 == line.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ":", number, ": expected '<model> <Gavel job type key>' or '<model> estimate N'"));
    }
    std::string key = line.substr(space + 1);
    if (key.rfind("estimate", 0) == 0) key.clear();  // no Gavel job type
    mapped.push_back({line.substr(0, space), std::move(key)});
  }
  return mapped;
}

}  // namespace iashim::predict
