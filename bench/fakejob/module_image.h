// Builds the simgpu module image for a profile: the text that the fake job
// hands to cuModuleLoadData, declaring one kernel per distinct
// (name, duration, memory intensity) with its modelled cost.
//
//   simgpu-module 1
//   kernel <name> fixed_us=<duration> mem=<intensity>
//   kernel ncclDevKernel_AllReduce_Sum_f32_RING_LL collective=allreduce mem=0.1  (data-parallel)
//
// simgpu models a kernel's cost per function, so when a profile uses one
// kernel name with several durations (the same cuDNN kernel at different layer
// shapes) each extra variant becomes its own function, named <name>_L2,
// <name>_L3, ... in order of first use. The class prefix of the name is kept,
// so name-based classification (GEMM vs element-wise) still works.
#ifndef IASHIM_BENCH_FAKEJOB_MODULE_IMAGE_H_
#define IASHIM_BENCH_FAKEJOB_MODULE_IMAGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "bench/fakejob/model_profile.h"

namespace iashim::fakejob {

// The all-reduce of data-parallel training, named as NCCL's kernel is.
inline constexpr char kAllReduceKernel[] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

struct ModuleImage {
  std::string text;                       // the image; .c_str() is NUL-terminated
  std::vector<std::string> functions;     // distinct kernel names, image order
  std::vector<uint32_t> launch_function;  // per launch: index into functions
  int all_reduce_function = -1;           // index into functions, or -1
};

// With `all_reduce`, the image also declares the all-reduce collective.
ModuleImage BuildModuleImage(const ModelProfile& profile, bool all_reduce = false);

// Fixed-point decimal, locale-independent ("12.500").
std::string FormatFixed(double value, int decimals);

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_MODULE_IMAGE_H_
