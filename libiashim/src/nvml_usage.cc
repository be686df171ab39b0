#include "libiashim/src/nvml_usage.h"

#include <dlfcn.h>

#include <algorithm>

namespace iashim {
namespace {

// The few NVML declarations used (nvml.h is not needed to build the shim).
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
struct nvmlProcessUtilizationSample_t {
  unsigned int pid;
  unsigned long long timeStamp;  // microseconds
  unsigned int smUtil, memUtil, encUtil, decUtil;
};
// nvmlProcessInfo_v1_t, as the unversioned nvmlDeviceGetComputeRunningProcesses
// fills it.
struct nvmlProcessInfoV1 {
  unsigned int pid;
  unsigned long long usedGpuMemory;
};
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kNvmlInsufficientSize = 7;
// Samples asked for at once; a GPU runs far fewer processes.
constexpr unsigned kMaxSamples = 256;

}  // namespace

struct NvmlUsage::Api {
  nvmlReturn_t (*init)();
  nvmlReturn_t (*shutdown)();
  nvmlReturn_t (*count)(unsigned*);
  nvmlReturn_t (*handle)(unsigned, nvmlDevice_t*);
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlProcessUtilizationSample_t*, unsigned*,
                              unsigned long long);
  // Optional: without them, no energy readings.
  nvmlReturn_t (*processes)(nvmlDevice_t, unsigned*, nvmlProcessInfoV1*);
  nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long*);
  std::vector<nvmlDevice_t> devices;
};

std::unique_ptr<NvmlUsage> NvmlUsage::Open(std::string* error) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    *error = "cannot load libnvidia-ml.so.1";
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  api->init = reinterpret_cast<nvmlReturn_t (*)()>(dlsym(lib, "nvmlInit_v2"));
  api->shutdown = reinterpret_cast<nvmlReturn_t (*)()>(dlsym(lib, "nvmlShutdown"));
  api->count = reinterpret_cast<nvmlReturn_t (*)(unsigned*)>(dlsym(lib, "nvmlDeviceGetCount_v2"));
  api->handle = reinterpret_cast<nvmlReturn_t (*)(unsigned, nvmlDevice_t*)>(
      dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
  api->utilization = reinterpret_cast<decltype(api->utilization)>(
      dlsym(lib, "nvmlDeviceGetProcessUtilization"));
  api->processes = reinterpret_cast<decltype(api->processes)>(
      dlsym(lib, "nvmlDeviceGetComputeRunningProcesses"));
  api->energy = reinterpret_cast<decltype(api->energy)>(
      dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption"));
  if (!api->init || !api->shutdown || !api->count || !api->handle || !api->utilization) {
    *error = "libnvidia-ml.so.1 lacks the per-process utilisation entry points";
    dlclose(lib);
    return nullptr;
  }
  unsigned count = 0;
  if (nvmlReturn_t rc = api->init(); rc != kNvmlSuccess) {
    *error = "nvmlInit_v2 failed with " + std::to_string(rc);
    dlclose(lib);
    return nullptr;
  }
  if (nvmlReturn_t rc = api->count(&count); rc != kNvmlSuccess) {
    *error = "nvmlDeviceGetCount_v2 failed with " + std::to_string(rc);
    api->shutdown();
    dlclose(lib);
    return nullptr;
  }
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t d = nullptr;
    if (api->handle(i, &d) == kNvmlSuccess) api->devices.push_back(d);
  }
  return std::unique_ptr<NvmlUsage>(new NvmlUsage(std::move(api), count));
}

NvmlUsage::NvmlUsage(std::unique_ptr<Api> api, unsigned devices)
    : api_(std::move(api)), last_seen_us_(devices, 0) {}

NvmlUsage::~NvmlUsage() {
  // The library stays loaded: other code in the process may use NVML too, and
  // unloading at exit gains nothing.
  api_->shutdown();
}

std::optional<double> NvmlUsage::ShareSinceLastCall(int pid) {
  std::optional<double> best;
  nvmlProcessUtilizationSample_t samples[kMaxSamples];
  for (size_t i = 0; i < api_->devices.size(); ++i) {
    unsigned n = kMaxSamples;
    const nvmlReturn_t rc = api_->utilization(api_->devices[i], samples, &n, last_seen_us_[i]);
    if (rc != kNvmlSuccess && rc != kNvmlInsufficientSize) continue;
    n = std::min(n, kMaxSamples);
    // NVML may return several samples per process (one per sampling period):
    // their mean is the process's utilisation over the interval.
    double sum = 0;
    unsigned mine = 0;
    for (unsigned k = 0; k < n; ++k) {
      last_seen_us_[i] = std::max(last_seen_us_[i], samples[k].timeStamp);
      if (samples[k].pid != static_cast<unsigned>(pid) || samples[k].smUtil > 100) continue;
      sum += samples[k].smUtil;
      ++mine;
    }
    if (mine > 0) best = std::max(best.value_or(0.0), sum / mine / 100.0);
  }
  if (!started_) {
    started_ = true;
    return std::nullopt;
  }
  return best;
}

std::optional<double> NvmlUsage::EnergyJoules(int pid) {
  if (api_->processes == nullptr || api_->energy == nullptr) return std::nullopt;
  auto lists = [&](size_t device) {
    nvmlProcessInfoV1 infos[kMaxSamples];
    unsigned n = kMaxSamples;
    if (api_->processes(api_->devices[device], &n, infos) != kNvmlSuccess) return false;
    n = std::min(n, kMaxSamples);
    for (unsigned k = 0; k < n; ++k) {
      if (infos[k].pid == static_cast<unsigned>(pid)) return true;
    }
    return false;
  };
  // The process stays on its GPU: look it up again only when the last one
  // stops listing it.
  if (energy_device_ < 0 || size_t(energy_device_) >= api_->devices.size() ||
      !lists(size_t(energy_device_))) {
    energy_device_ = -1;
    for (size_t i = 0; i < api_->devices.size() && energy_device_ < 0; ++i) {
      if (lists(i)) energy_device_ = int(i);
    }
    if (energy_device_ < 0) return std::nullopt;
  }
  unsigned long long millijoules = 0;
  if (api_->energy(api_->devices[size_t(energy_device_)], &millijoules) != kNvmlSuccess) {
    return std::nullopt;
  }
  return double(millijoules) / 1000.0;
}

}  // namespace iashim
