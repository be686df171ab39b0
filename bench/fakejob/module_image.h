// Builds the simgpu module image for a profile: the text that the fake job
// hands to cuModuleLoadData, declaring one kernel per distinct
// (name, duration, memory intensity) with its modelled cost.
//
//   simgpu-module 1
//   kernel <name> fixed_us=<duration> mem=<intensity>
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

struct ModuleImage {
  std::string text;                       // the image; .c_str() is NUL-terminated
  std::vector<std::string> functions;     // distinct kernel names, image order
  std::vector<uint32_t> launch_function;  // per launch: index into functions
};

ModuleImage BuildModuleImage(const ModelProfile& profile);

// Fixed-point decimal, locale-independent ("12.500").
std::string FormatFixed(double value, int decimals);

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_MODULE_IMAGE_H_
