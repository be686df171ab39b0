#include "common/nvml/nvml_library.h"

#include <dlfcn.h>

#include <iterator>
#include <type_traits>

namespace iashim::nvml {
namespace {

// By Entry.
constexpr const char* kEntryNames[] = {
    "nvmlInit_v2",
    "nvmlShutdown",
    "nvmlErrorString",
    "nvmlDeviceGetCount_v2",
    "nvmlDeviceGetHandleByIndex_v2",
    "nvmlDeviceGetName",
    "nvmlDeviceGetUUID",
    "nvmlDeviceGetMemoryInfo",
    "nvmlDeviceGetProcessUtilization",
    "nvmlDeviceGetComputeRunningProcesses",
    "nvmlDeviceGetTotalEnergyConsumption",
};
static_assert(std::size(kEntryNames) == kEntries, "a name for every Entry");

}  // namespace

const char* EntryName(Entry entry) { return kEntryNames[static_cast<size_t>(entry)]; }

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
  for (size_t i = 0; i < kEntries; ++i) symbols_[i] = ::dlsym(handle, kEntryNames[i]);
  auto as = [this](Entry entry, auto* field) {
    *field = reinterpret_cast<std::remove_pointer_t<decltype(field)>>(
        symbols_[static_cast<size_t>(entry)]);
  };
  as(Entry::kInit, &api_.init);
  as(Entry::kShutdown, &api_.shutdown);
  as(Entry::kErrorString, &api_.error_string);
  as(Entry::kDeviceCount, &api_.device_count);
  as(Entry::kDeviceHandle, &api_.device_handle);
  as(Entry::kDeviceName, &api_.device_name);
  as(Entry::kDeviceUuid, &api_.device_uuid);
  as(Entry::kMemoryInfo, &api_.memory_info);
  as(Entry::kProcessUtilization, &api_.process_utilization);
  as(Entry::kRunningProcesses, &api_.running_processes);
  as(Entry::kTotalEnergy, &api_.total_energy);
}

Library::~Library() {
  if (!keep_loaded_) ::dlclose(handle_);
}

const char* Library::FirstMissing(std::initializer_list<Entry> needed) const {
  for (Entry entry : needed) {
    if (symbols_[static_cast<size_t>(entry)] == nullptr) return EntryName(entry);
  }
  return nullptr;
}

std::string Library::Describe(Return rc) const {
  const char* text = api_.error_string != nullptr ? api_.error_string(rc) : nullptr;
  if (text == nullptr) return "NVML error " + std::to_string(rc);
  return std::string(text) + " (NVML error " + std::to_string(rc) + ")";
}

}  // namespace iashim::nvml
