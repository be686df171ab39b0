// A model profile as simgpu's device model sees it when iashim-fakejob replays
// it, and the model's prediction for jobs sharing one GPU.
#ifndef IASHIM_TESTS_BENCH_FAKEJOB_PROFILE_VIRTUAL_JOB_H_
#define IASHIM_TESTS_BENCH_FAKEJOB_PROFILE_VIRTUAL_JOB_H_

#include <string>
#include <vector>

#include "bench/fakejob/model_profile.h"
#include "bench/predict/profile_job.h"
#include "simgpu/src/config_parse.h"
#include "simgpu/src/virtual_cosim.h"

namespace iashim_test {

inline simgpu::DeviceSpec DefaultV100() {
  std::vector<simgpu::DeviceSpec> specs;
  std::string error;
  simgpu::ParseDeviceList(simgpu::kDefaultDevices, "virtual", &specs, &error);
  return specs.at(0);
}

inline simgpu::VirtualJob ToVirtualJob(const iashim::fakejob::ModelProfile& p, int sm_count) {
  return iashim::predict::ProfileJob(p, sm_count);
}

// Loads bench/data/models/<name>.model.
inline iashim::fakejob::ModelProfile LoadBundledProfile(const std::string& name) {
  auto p = iashim::fakejob::LoadModelProfile(std::string(IASHIM_SOURCE_DIR) +
                                             "/bench/data/models/" + name + ".model");
  return p.ok() ? *p : iashim::fakejob::ModelProfile{};
}

}  // namespace iashim_test

#endif  // IASHIM_TESTS_BENCH_FAKEJOB_PROFILE_VIRTUAL_JOB_H_
