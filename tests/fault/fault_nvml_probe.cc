// fault-nvml-probe: what NVML says about simulated GPU 0, as one JSON line,
// for the shell fault tests (the way nvidia-smi would be used on a real GPU):
//   {"mem_used": 1073741824, "mem_total": 34359738368, "processes": [{"pid": 12, "mem": 1073741824}]}
// Every process holding a slot on the device is listed (as NVML lists
// processes with a context). NVML is dlopen'ed as monitoring tools load it:
// libnvidia-ml.so.1 from the library path (LD_LIBRARY_PATH=build/simgpu).
#include <dlfcn.h>

#include <cstdio>
#include <string>

namespace {

struct Memory {
  unsigned long long total, free, used;
};
struct Process {  // nvmlProcessInfo_t (v2/v3)
  unsigned pid;
  unsigned long long used;
  unsigned gpu_instance, compute_instance;
};

template <typename F>
F Get(void* lib, const char* name) {
  F f = reinterpret_cast<F>(dlsym(lib, name));
  if (f == nullptr) std::fprintf(stderr, "fault-nvml-probe: no %s in NVML\n", name);
  return f;
}

}  // namespace

int main() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "fault-nvml-probe: %s\n", dlerror());
    return 1;
  }
  auto init = Get<int (*)()>(lib, "nvmlInit_v2");
  auto handle = Get<int (*)(unsigned, void**)>(lib, "nvmlDeviceGetHandleByIndex_v2");
  auto memory = Get<int (*)(void*, Memory*)>(lib, "nvmlDeviceGetMemoryInfo");
  auto running = Get<int (*)(void*, unsigned*, Process*)>(lib, "nvmlDeviceGetComputeRunningProcesses_v3");
  auto shutdown = Get<int (*)()>(lib, "nvmlShutdown");
  if (!init || !handle || !memory || !running || !shutdown) return 1;
  void* dev = nullptr;
  Memory mem{};
  static Process procs[1024];
  unsigned n = 1024;
  int rc;
  if ((rc = init()) != 0 || (rc = handle(0, &dev)) != 0 || (rc = memory(dev, &mem)) != 0 ||
      (rc = running(dev, &n, procs)) != 0) {
    std::fprintf(stderr, "fault-nvml-probe: NVML call failed with %d\n", rc);
    return 1;
  }
  std::string out = "{\"mem_used\": " + std::to_string(mem.used) +
                    ", \"mem_total\": " + std::to_string(mem.total) + ", \"processes\": [";
  for (unsigned i = 0; i < n; ++i) {
    out += (i ? ", " : "") + std::string("{\"pid\": ") + std::to_string(procs[i].pid) +
           ", \"mem\": " + std::to_string(procs[i].used) + "}";
  }
  std::printf("%s]}\n", out.c_str());
  shutdown();
  return 0;
}
