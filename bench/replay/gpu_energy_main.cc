// iashim-gpu-energy: each GPU's energy counter, as NVML reports it, one line
// per GPU: "<index>\t<millijoules>\t<name>". The live trace replay
// (scripts/live-replay.sh) reads it on every node before and after a run, so
// jobs run with and without the shim are measured alike. NVML is loaded at
// run time (libnvidia-ml.so.1: the driver's, or simgpu's through
// LD_LIBRARY_PATH), so the same binary reads a real GPU.
//
// Exit status: 0 read; 1 NVML could not be loaded or answered an error
// (named on stderr); 2 a bad argument.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "common/nvml/nvml_library.h"

namespace {

using iashim::nvml::Entry;
namespace nvml = iashim::nvml;

int Fail(const nvml::Library& library, const char* what, nvml::Return rc) {
  std::fprintf(stderr, "iashim-gpu-energy: %s failed: %s\n", what, library.Describe(rc).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    const bool help = std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0;
    std::fprintf(help ? stdout : stderr,
                 "usage: iashim-gpu-energy\n"
                 "prints, per GPU, its index, NVML's total energy counter (mJ) and its name\n");
    return help ? 0 : 2;
  }
  std::string why;
  std::unique_ptr<nvml::Library> library = nvml::Library::Open("libnvidia-ml.so.1", &why);
  if (library == nullptr) {
    std::fprintf(stderr, "iashim-gpu-energy: cannot load libnvidia-ml.so.1 (%s); "
                 "for simgpu, put its build directory on LD_LIBRARY_PATH\n", why.c_str());
    return 1;
  }
  if (const char* missing = library->FirstMissing({Entry::kInit, Entry::kShutdown,
                                                   Entry::kDeviceCount, Entry::kDeviceHandle,
                                                   Entry::kDeviceName, Entry::kTotalEnergy})) {
    std::fprintf(stderr, "iashim-gpu-energy: libnvidia-ml.so.1 lacks %s "
                 "(nvmlDeviceGetTotalEnergyConsumption needs a Volta or newer GPU's driver)\n",
                 missing);
    return 1;
  }
  const nvml::Api& api = library->api();
  if (nvml::Return rc = api.init(); rc != nvml::kSuccess) return Fail(*library, "nvmlInit_v2", rc);
  unsigned n = 0;
  int status = 0;
  if (nvml::Return rc = api.device_count(&n); rc != nvml::kSuccess) {
    status = Fail(*library, "nvmlDeviceGetCount_v2", rc);
    n = 0;
  }
  for (unsigned i = 0; i < n && status == 0; ++i) {
    nvml::Device device = nullptr;
    char text[nvml::kNameBufferSize] = {};
    unsigned long long mj = 0;
    if (nvml::Return rc = api.device_handle(i, &device); rc != nvml::kSuccess) {
      status = Fail(*library, "nvmlDeviceGetHandleByIndex_v2", rc);
    } else if (rc = api.device_name(device, text, sizeof text); rc != nvml::kSuccess) {
      status = Fail(*library, "nvmlDeviceGetName", rc);
    } else if (rc = api.total_energy(device, &mj); rc != nvml::kSuccess) {
      status = Fail(*library, "nvmlDeviceGetTotalEnergyConsumption", rc);
    } else {
      text[sizeof text - 1] = '\0';
      std::printf("%u\t%llu\t%s\n", i, mj, text);
    }
  }
  api.shutdown();  // on every path after a successful init
  return status;
}
