// NVML, loaded at run time: the shim (per-process GPU time and energy), the
// coordinator (the local GPUs) and the replay's energy reader all read NVML
// without linking it, so each starts on a machine without the NVIDIA driver,
// and simgpu's NVML stands in when its build directory is on LD_LIBRARY_PATH.
//
// The subset of nvml.h the project uses, with NVML's public signatures (nvml.h
// itself does not come with the CUDA toolkit headers the build has), and the
// one place its library is opened and its entry points are looked up.
#ifndef IASHIM_COMMON_NVML_NVML_LIBRARY_H_
#define IASHIM_COMMON_NVML_NVML_LIBRARY_H_

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>

namespace iashim::nvml {

using Return = int;  // nvmlReturn_t
using Device = struct nvmlDevice_st*;
inline constexpr Return kSuccess = 0;
inline constexpr Return kInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
// NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_DEVICE_UUID_V2_BUFFER_SIZE.
inline constexpr unsigned kNameBufferSize = 96;
inline constexpr unsigned kUuidBufferSize = 96;

struct Memory {  // nvmlMemory_t
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct ProcessUtilizationSample {  // nvmlProcessUtilizationSample_t
  unsigned int pid;
  unsigned long long timeStamp;  // microseconds
  unsigned int smUtil, memUtil, encUtil, decUtil;
};
// nvmlProcessInfo_v1_t, as the unversioned nvmlDeviceGetComputeRunningProcesses fills it.
struct ProcessInfoV1 {
  unsigned int pid;
  unsigned long long usedGpuMemory;
};

// The entry points, each null where the library lacks it.
struct Api {
  Return (*init)() = nullptr;                           // nvmlInit_v2
  Return (*shutdown)() = nullptr;                       // nvmlShutdown
  const char* (*error_string)(Return) = nullptr;        // nvmlErrorString
  Return (*device_count)(unsigned*) = nullptr;          // nvmlDeviceGetCount_v2
  Return (*device_handle)(unsigned, Device*) = nullptr;  // nvmlDeviceGetHandleByIndex_v2
  Return (*device_name)(Device, char*, unsigned) = nullptr;  // nvmlDeviceGetName
  Return (*device_uuid)(Device, char*, unsigned) = nullptr;  // nvmlDeviceGetUUID
  Return (*memory_info)(Device, Memory*) = nullptr;          // nvmlDeviceGetMemoryInfo
  Return (*process_utilization)(Device, ProcessUtilizationSample*, unsigned*,
                                unsigned long long) = nullptr;  // nvmlDeviceGetProcessUtilization
  Return (*running_processes)(Device, unsigned*,
                              ProcessInfoV1*) = nullptr;  // nvmlDeviceGetComputeRunningProcesses
  Return (*total_energy)(Device, unsigned long long*) = nullptr;  // nvmlDeviceGetTotalEnergyConsumption
};

// Names an Api member by the NVML function it holds.
enum class Entry {
  kInit,
  kShutdown,
  kErrorString,
  kDeviceCount,
  kDeviceHandle,
  kDeviceName,
  kDeviceUuid,
  kMemoryInfo,
  kProcessUtilization,
  kRunningProcesses,
  kTotalEnergy,
};
inline constexpr size_t kEntries = static_cast<size_t>(Entry::kTotalEnergy) + 1;
const char* EntryName(Entry entry);  // "nvmlInit_v2", ...

class Library {
 public:
  // dlopen(`soname`) with RTLD_LOCAL (NVML's symbols must satisfy no one
  // else's look-ups) and every entry point of Api looked up; null, with
  // dlerror's reason in `error`, when the library cannot be loaded.
  static std::unique_ptr<Library> Open(const std::string& soname, std::string* error);
  // Unloads the library unless KeepLoaded was called.
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  const Api& api() const { return api_; }
  // The first of `needed` the library lacks, or null when it has them all.
  const char* FirstMissing(std::initializer_list<Entry> needed) const;
  // NVML's text for `rc` (with its code), or "NVML error <rc>" without nvmlErrorString.
  std::string Describe(Return rc) const;
  // For a library that stays in a process it does not own (the shim): other
  // code there may use NVML too, and unloading at exit gains nothing.
  void KeepLoaded() { keep_loaded_ = true; }

 private:
  explicit Library(void* handle);

  void* handle_;
  void* symbols_[kEntries];  // by Entry, null where the library lacks it
  Api api_;
  bool keep_loaded_ = false;
};

}  // namespace iashim::nvml

#endif  // IASHIM_COMMON_NVML_NVML_LIBRARY_H_
