#include "common/nvml/nvml_library.h"

#include <dlfcn.h>

namespace iashim::nvml {
namespace {

template <typename Fn>
void Resolve(void* handle, Entry entry, Fn* out) {
  *out = reinterpret_cast<Fn>(::dlsym(handle, EntryName(entry)));
}

bool Has(const Api& api, Entry entry) {
  switch (entry) {
    case Entry::kInit: return api.init != nullptr;
    case Entry::kShutdown: return api.shutdown != nullptr;
    case Entry::kErrorString: return api.error_string != nullptr;
    case Entry::kDeviceCount: return api.device_count != nullptr;
    case Entry::kDeviceHandle: return api.device_handle != nullptr;
    case Entry::kDeviceName: return api.device_name != nullptr;
    case Entry::kDeviceUuid: return api.device_uuid != nullptr;
    case Entry::kMemoryInfo: return api.memory_info != nullptr;
    case Entry::kProcessUtilization: return api.process_utilization != nullptr;
    case Entry::kRunningProcesses: return api.running_processes != nullptr;
    case Entry::kTotalEnergy: return api.total_energy != nullptr;
  }
  return false;
}

}  // namespace

const char* EntryName(Entry entry) {
  switch (entry) {
    case Entry::kInit: return "nvmlInit_v2";
    case Entry::kShutdown: return "nvmlShutdown";
    case Entry::kErrorString: return "nvmlErrorString";
    case Entry::kDeviceCount: return "nvmlDeviceGetCount_v2";
    case Entry::kDeviceHandle: return "nvmlDeviceGetHandleByIndex_v2";
    case Entry::kDeviceName: return "nvmlDeviceGetName";
    case Entry::kDeviceUuid: return "nvmlDeviceGetUUID";
    case Entry::kMemoryInfo: return "nvmlDeviceGetMemoryInfo";
    case Entry::kProcessUtilization: return "nvmlDeviceGetProcessUtilization";
    case Entry::kRunningProcesses: return "nvmlDeviceGetComputeRunningProcesses";
    case Entry::kTotalEnergy: return "nvmlDeviceGetTotalEnergyConsumption";
  }
  return "?";
}

std::unique_ptr<Library> Library::Open(const std::string& soname, std::string* error) {
  ::dlerror();
  void* handle = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    *error = why != nullptr ? why : "unknown error";
    return nullptr;
  }
  return std::unique_ptr<Library>(new Library(handle));
}

Library::Library(void* handle) : handle_(handle) {
  Resolve(handle, Entry::kInit, &api_.init);
  Resolve(handle, Entry::kShutdown, &api_.shutdown);
  Resolve(handle, Entry::kErrorString, &api_.error_string);
  Resolve(handle, Entry::kDeviceCount, &api_.device_count);
  Resolve(handle, Entry::kDeviceHandle, &api_.device_handle);
  Resolve(handle, Entry::kDeviceName, &api_.device_name);
  Resolve(handle, Entry::kDeviceUuid, &api_.device_uuid);
  Resolve(handle, Entry::kMemoryInfo, &api_.memory_info);
  Resolve(handle, Entry::kProcessUtilization, &api_.process_utilization);
  Resolve(handle, Entry::kRunningProcesses, &api_.running_processes);
  Resolve(handle, Entry::kTotalEnergy, &api_.total_energy);
}

Library::~Library() {
  if (!keep_loaded_) ::dlclose(handle_);
}

const char* Library::FirstMissing(std::initializer_list<Entry> needed) const {
  for (Entry entry : needed) {
    if (!Has(api_, entry)) return EntryName(entry);
  }
  return nullptr;
}

std::string Library::Describe(Return rc) const {
  const char* text = api_.error_string != nullptr ? api_.error_string(rc) : nullptr;
  if (text == nullptr) return "NVML error " + std::to_string(rc);
  return std::string(text) + " (NVML error " + std::to_string(rc) + ")";
}

}  // namespace iashim::nvml
