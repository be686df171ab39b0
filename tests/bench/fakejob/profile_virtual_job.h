// A model profile as simgpu's device model sees it when iashim-fakejob replays
// it, and the model's prediction for jobs sharing one GPU.
#ifndef IASHIM_TESTS_BENCH_FAKEJOB_PROFILE_VIRTUAL_JOB_H_
#define IASHIM_TESTS_BENCH_FAKEJOB_PROFILE_VIRTUAL_JOB_H_

#include <string>
#include <vector>

#include "bench/fakejob/model_profile.h"
#include "simgpu/src/config_parse.h"
#include "simgpu/src/module_image.h"
#include "simgpu/src/virtual_cosim.h"

namespace iashim_test {

inline simgpu::DeviceSpec DefaultV100() {
  std::vector<simgpu::DeviceSpec> specs;
  std::string error;
  simgpu::ParseDeviceList(simgpu::kDefaultDevices, "virtual", &specs, &error);
  return specs.at(0);
}

inline simgpu::VirtualJob ToVirtualJob(const iashim::fakejob::ModelProfile& p, int sm_count) {
  simgpu::VirtualJob job;
  job.host_gap_ns = p.host_gap_us * 1000;
  for (const auto& k : p.launches) {
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

// Loads bench/data/models/<name>.model.
inline iashim::fakejob::ModelProfile LoadBundledProfile(const std::string& name) {
  auto p = iashim::fakejob::LoadModelProfile(std::string(IASHIM_SOURCE_DIR) +
                                             "/bench/data/models/" + name + ".model");
  return p.ok() ? *p : iashim::fakejob::ModelProfile{};
}

}  // namespace iashim_test

#endif  // IASHIM_TESTS_BENCH_FAKEJOB_PROFILE_VIRTUAL_JOB_H_
