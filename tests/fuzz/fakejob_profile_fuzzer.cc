// iashim-fakejob's model profile parser (bench/fakejob/model_profile.h), and
// the module image built from an accepted profile, which simgpu's parser
// must accept with one kernel per function the image declares.
#include <cstdint>

// fakejob's and simgpu's headers share a name: both by their path.
#include "bench/fakejob/model_profile.h"
#include "bench/fakejob/module_image.h"
#include "simgpu/src/module_image.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  const absl::StatusOr<fakejob::ModelProfile> profile =
      fakejob::ParseModelProfile(
          absl::string_view(reinterpret_cast<const char*>(data), size), "fuzz.model");
  if (!profile.ok()) {
    if (profile.status().message().empty()) fuzz::Fail("a refused profile without a reason");
    return 0;
  }
  const fakejob::ModuleImage image = fakejob::BuildModuleImage(*profile);
  if (image.launch_function.size() != profile->launches.size()) {
    fuzz::Fail("the image does not map every launch");
  }
  for (const uint32_t f : image.launch_function) {
    if (f >= image.functions.size()) fuzz::Fail("a launch maps to no function");
  }
  std::vector<simgpu::KernelModel> kernels;
  std::string error;
  if (!simgpu::ParseModuleImage(image.text, &kernels, &error)) {
    fuzz::Fail("simgpu refuses the image fakejob built from an accepted profile");
  }
  if (kernels.size() != image.functions.size()) fuzz::Fail("image kernels != functions");
  return 0;
}
