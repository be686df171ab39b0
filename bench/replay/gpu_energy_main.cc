// iashim-gpu-energy: each GPU's energy counter, as NVML reports it, one line
// per GPU: "<index>\t<millijoules>\t<name>". The live trace replay
// (scripts/live-replay.sh) reads it on every node before and after a run, so
// jobs run with and without the shim are measured alike. NVML is loaded at
// run time (libnvidia-ml.so.1: the driver's, or simgpu's through
// LD_LIBRARY_PATH), so the same binary reads a real GPU.
//
// Exit status: 0 read; 1 NVML could not be loaded or answered an error
// (named on stderr); 2 a bad argument.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

namespace {

// The few NVML declarations used (nvml.h is not needed to build this).
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;

template <typename Fn>
Fn Symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

int Fail(const char* what, nvmlReturn_t rc) {
  std::fprintf(stderr, "iashim-gpu-energy: %s failed (NVML error %d)\n", what, rc);
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
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "iashim-gpu-energy: cannot load libnvidia-ml.so.1 (%s); "
                 "for simgpu, put its build directory on LD_LIBRARY_PATH\n", dlerror());
    return 1;
  }
  auto init = Symbol<nvmlReturn_t (*)()>(lib, "nvmlInit_v2");
  auto count = Symbol<nvmlReturn_t (*)(unsigned*)>(lib, "nvmlDeviceGetCount_v2");
  auto handle = Symbol<nvmlReturn_t (*)(unsigned, nvmlDevice_t*)>(lib, "nvmlDeviceGetHandleByIndex_v2");
  auto name = Symbol<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>(lib, "nvmlDeviceGetName");
  auto energy = Symbol<nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*)>(
      lib, "nvmlDeviceGetTotalEnergyConsumption");
  auto shutdown = Symbol<nvmlReturn_t (*)()>(lib, "nvmlShutdown");
  if (!init || !count || !handle || !name || !energy || !shutdown) {
    std::fprintf(stderr, "iashim-gpu-energy: libnvidia-ml.so.1 lacks a function it needs "
                 "(nvmlDeviceGetTotalEnergyConsumption needs a Volta or newer GPU's driver)\n");
    return 1;
  }
  if (nvmlReturn_t rc = init(); rc != kNvmlSuccess) return Fail("nvmlInit_v2", rc);
  unsigned n = 0;
  if (nvmlReturn_t rc = count(&n); rc != kNvmlSuccess) return Fail("nvmlDeviceGetCount_v2", rc);
  for (unsigned i = 0; i < n; ++i) {
    nvmlDevice_t device = nullptr;
    char text[96] = {};
    unsigned long long mj = 0;
    if (nvmlReturn_t rc = handle(i, &device); rc != kNvmlSuccess) return Fail("nvmlDeviceGetHandleByIndex_v2", rc);
    if (nvmlReturn_t rc = name(device, text, sizeof text); rc != kNvmlSuccess) return Fail("nvmlDeviceGetName", rc);
    if (nvmlReturn_t rc = energy(device, &mj); rc != kNvmlSuccess) {
      return Fail("nvmlDeviceGetTotalEnergyConsumption", rc);
    }
    std::printf("%u\t%llu\t%s\n", i, mj, text);
  }
  shutdown();
  return 0;
}
