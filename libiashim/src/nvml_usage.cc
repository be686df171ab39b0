#include "libiashim/src/nvml_usage.h"

#include <algorithm>

namespace iashim {
namespace {

// Samples asked for at once; a GPU runs far fewer processes.
constexpr unsigned kMaxSamples = 256;

}  // namespace

std::unique_ptr<NvmlUsage> NvmlUsage::Open(std::string* error) {
  std::unique_ptr<nvml::Library> lib = nvml::Library::Open("libnvidia-ml.so.1", error);
  if (lib == nullptr) {
    *error = "cannot load libnvidia-ml.so.1: " + *error;
    return nullptr;
  }
  // Without the process list and the energy counter: no energy readings.
  using nvml::Entry;
  if (const char* missing = lib->FirstMissing({Entry::kInit, Entry::kShutdown, Entry::kDeviceCount,
                                               Entry::kDeviceHandle, Entry::kProcessUtilization})) {
    *error = std::string("libnvidia-ml.so.1 lacks ") + missing +
             " (the per-process utilisation entry points)";
    return nullptr;
  }
  const nvml::Api& api = lib->api();
  if (nvml::Return rc = api.init(); rc != nvml::kSuccess) {
    *error = "nvmlInit_v2 failed: " + lib->Describe(rc);
    return nullptr;
  }
  unsigned count = 0;
  if (nvml::Return rc = api.device_count(&count); rc != nvml::kSuccess) {
    *error = "nvmlDeviceGetCount_v2 failed: " + lib->Describe(rc);
    api.shutdown();
    return nullptr;
  }
  std::vector<nvml::Device> devices;
  for (unsigned i = 0; i < count; ++i) {
    nvml::Device d = nullptr;
    if (api.device_handle(i, &d) == nvml::kSuccess) devices.push_back(d);
  }
  // The library stays loaded: other code in the process may use NVML too,
  // and unloading at exit gains nothing.
  lib->KeepLoaded();
  return std::unique_ptr<NvmlUsage>(new NvmlUsage(std::move(lib), std::move(devices)));
}

NvmlUsage::NvmlUsage(std::unique_ptr<nvml::Library> library, std::vector<nvml::Device> devices)
    : library_(std::move(library)),
      devices_(std::move(devices)),
      last_seen_us_(devices_.size(), 0) {}

NvmlUsage::~NvmlUsage() { library_->api().shutdown(); }

std::optional<double> NvmlUsage::ShareSinceLastCall(int pid) {
  std::optional<double> best;
  const nvml::Api& api = library_->api();
  nvml::ProcessUtilizationSample samples[kMaxSamples];
  for (size_t i = 0; i < devices_.size(); ++i) {
    unsigned n = kMaxSamples;
    const nvml::Return rc = api.process_utilization(devices_[i], samples, &n, last_seen_us_[i]);
    if (rc != nvml::kSuccess && rc != nvml::kInsufficientSize) continue;
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
  const nvml::Api& api = library_->api();
  if (api.running_processes == nullptr || api.total_energy == nullptr) return std::nullopt;
  auto lists = [&](size_t device) {
    nvml::ProcessInfoV1 infos[kMaxSamples];
    unsigned n = kMaxSamples;
    if (api.running_processes(devices_[device], &n, infos) != nvml::kSuccess) return false;
    n = std::min(n, kMaxSamples);
    for (unsigned k = 0; k < n; ++k) {
      if (infos[k].pid == static_cast<unsigned>(pid)) return true;
    }
    return false;
  };
  // The process stays on its GPU: look it up again only when the last one
  // stops listing it.
  if (energy_device_ < 0 || size_t(energy_device_) >= devices_.size() ||
      !lists(size_t(energy_device_))) {
    energy_device_ = -1;
    for (size_t i = 0; i < devices_.size() && energy_device_ < 0; ++i) {
      if (lists(i)) energy_device_ = int(i);
    }
    if (energy_device_ < 0) return std::nullopt;
  }
  unsigned long long millijoules = 0;
  if (api.total_energy(devices_[size_t(energy_device_)], &millijoules) != nvml::kSuccess) {
    return std::nullopt;
  }
  return double(millijoules) / 1000.0;
}

}  // namespace iashim
