// simgpu's module image parser (simgpu/src/module_image.h), what
// cuModuleLoadData reads. A kernel it accepts must model a finite, positive
// duration and a memory intensity in [0, 1].
#include <cmath>
#include <cstdint>

#include "simgpu/src/module_image.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<simgpu::KernelModel> kernels;
  std::string error;
  if (!simgpu::ParseModuleImage(iashim::fuzz::AsText(data, size), &kernels, &error)) {
    if (error.empty()) iashim::fuzz::Fail("a refused image without a reason");
    return 0;
  }
  for (const simgpu::KernelModel& k : kernels) {
    if (k.name.empty()) iashim::fuzz::Fail("a kernel without a name");
    if (!(k.mem_intensity >= 0 && k.mem_intensity <= 1)) iashim::fuzz::Fail("mem out of range");
    for (const uint64_t blocks : {uint64_t{0}, uint64_t{1}, uint64_t{1} << 40}) {
      const double ns = k.DurationNs(blocks, 80);
      if (!std::isfinite(ns) || ns < 0) iashim::fuzz::Fail("a duration that is not finite");
      const float fill = simgpu::KernelModel::SmFill(blocks, 80);
      if (!(fill >= 0 && fill <= 1)) iashim::fuzz::Fail("an SM fill out of [0, 1]");
    }
  }
  return 0;
}
