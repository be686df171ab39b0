// A model profile (bench/data/models/*.model) as simgpu's device model sees
// it when iashim-fakejob replays it, and the profiles' Gavel job types
// (gavel_map.txt): what the calibration tests and iashim-simgpu-throughputs
// simulate.
#ifndef IASHIM_BENCH_PREDICT_PROFILE_JOB_H_
#define IASHIM_BENCH_PREDICT_PROFILE_JOB_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/fakejob/model_profile.h"
#include "simgpu/src/virtual_cosim.h"

namespace iashim::predict {

// One iteration of `profile` on a GPU of `sm_count` SMs: its launches in
// order, each kernel's duration and SM fill as simgpu gives them, and its
// host gap.
simgpu::VirtualJob ProfileJob(const fakejob::ModelProfile& profile, int sm_count);

// A line of gavel_map.txt: a profile and the Gavel job type key it is
// calibrated to ("('ResNet-50 (batch size 64)', 1)"); empty for a profile
// whose speed is an estimate.
struct MappedProfile {
  std::string model;
  std::string gavel_key;
};

// Reads gavel_map.txt (comments and blank lines skipped); an error names the
// file and the line.
absl::StatusOr<std::vector<MappedProfile>> ReadGavelMap(const std::string& path);

}  // namespace iashim::predict

#endif  // IASHIM_BENCH_PREDICT_PROFILE_JOB_H_
