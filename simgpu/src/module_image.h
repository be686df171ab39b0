// The text image a simulated module is loaded from (cuModuleLoadData).
//
//   simgpu-module 1
//   # comment
//   kernel volta_sgemm_128x64_nn fixed_us=120 mem=0.2
//   kernel elementwise_relu us_per_block=0.5 mem=0.9
//
// A kernel's modelled solo duration is fixed_us + us_per_block * max(1, blocks/SMs),
// and it occupies min(1, blocks/SMs) of the device's SMs. `mem` is its memory
// intensity: 0 compute-bound, 1 memory-bound (default 0.5).
//
//   kernel ncclDevKernel_AllReduce_Sum_f32_RING_LL collective=allreduce mem=0.1
//
// makes the kernel a collective: its launch names its group, rank and message
// size (simgpu/include/simgpu/collective.h), and it takes as long as the ranks
// take to meet plus the all-reduce's transfer (collective_cost.h), instead of
// fixed_us and us_per_block.
#ifndef SIMGPU_MODULE_IMAGE_H_
#define SIMGPU_MODULE_IMAGE_H_

#include <string>
#include <string_view>
#include <vector>

namespace simgpu {

enum class Collective { kNone, kAllReduce };

struct KernelModel {
  std::string name;
  double fixed_us = 0;
  double us_per_block = 0;
  float mem_intensity = 0.5f;
  Collective collective = Collective::kNone;

  // Solo duration in ns of a launch with `blocks` blocks on `sm_count` SMs.
  double DurationNs(uint64_t blocks, int sm_count) const;
  static float SmFill(uint64_t blocks, int sm_count);
};

// Parses an image; on failure returns false and sets `error` to "line N: ...".
// Images are capped at 1 MiB and 65536 kernels.
bool ParseModuleImage(std::string_view image, std::vector<KernelModel>* kernels,
                      std::string* error);

}  // namespace simgpu

#endif  // SIMGPU_MODULE_IMAGE_H_
