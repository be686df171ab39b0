#include "coordinator/cluster/nvml_discovery.h"

#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "coordinator/cluster/cluster_file.h"
#include "coordinator/cluster/gpu_type.h"

namespace iashim::cluster {
namespace {

// The subset of nvml.h this file uses, with NVML's public signatures; nvml.h
// itself is not installed with the CUDA toolkit headers the build has.
extern "C" {
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;
}
constexpr nvmlReturn_t kNvmlSuccess = 0;
// NVML_DEVICE_NAME_V2_BUFFER_SIZE and NVML_DEVICE_UUID_V2_BUFFER_SIZE.
constexpr unsigned int kNameBufferSize = 96;
constexpr unsigned int kUuidBufferSize = 96;

using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using ErrorStringFn = const char* (*)(nvmlReturn_t);
using GetCountFn = nvmlReturn_t (*)(unsigned int*);
using GetHandleFn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using GetStringFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using GetMemoryFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);

// Closes the library when discovery ends, however it ends.
class Library {
 public:
  explicit Library(void* handle) : handle_(handle) {}
  ~Library() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  void* get() const { return handle_; }

 private:
  void* handle_;
};

struct Api {
  InitFn init = nullptr;
  ShutdownFn shutdown = nullptr;
  ErrorStringFn error_string = nullptr;  // optional: only improves messages
  GetCountFn get_count = nullptr;
  GetHandleFn get_handle = nullptr;
  GetStringFn get_name = nullptr;
  GetStringFn get_uuid = nullptr;
  GetMemoryFn get_memory = nullptr;

  std::string Describe(nvmlReturn_t rc) const {
    const char* text = error_string != nullptr ? error_string(rc) : nullptr;
    return absl::StrCat(text != nullptr ? text : "unknown error", " (NVML error ", rc, ")");
  }
};

template <typename Fn>
absl::Status Resolve(void* handle, const std::string& library, const char* symbol, Fn* out) {
  ::dlerror();
  void* p = ::dlsym(handle, symbol);
  if (p == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("NVML library '", library, "' lacks ", symbol,
                     "; the NVIDIA driver is too old or this is not NVML"));
  }
  *out = reinterpret_cast<Fn>(p);
  return absl::OkStatus();
}

// NVML must be shut down once initialised, on every path out.
class Session {
 public:
  explicit Session(const Api& api) : api_(api) {}
  ~Session() { api_.shutdown(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

 private:
  const Api& api_;
};

absl::Status CallFailed(const Api& api, absl::string_view call, nvmlReturn_t rc) {
  return absl::UnavailableError(absl::StrCat(call, " failed: ", api.Describe(rc)));
}

absl::StatusOr<std::string> HostName() {
  char host[HOST_NAME_MAX + 1] = {};
  if (::gethostname(host, sizeof host - 1) != 0) {
    return absl::InternalError(absl::StrCat("gethostname failed: ", std::strerror(errno)));
  }
  if (host[0] == '\0') return absl::InternalError("gethostname returned an empty name");
  return std::string(host);
}

}  // namespace

absl::StatusOr<policy::Cluster> DiscoverLocalGpus(const NvmlDiscoveryOptions& options) {
  absl::StatusOr<std::string> host = HostName();
  if (!host.ok()) return host.status();

  // RTLD_LOCAL: NVML's symbols must not satisfy anyone else's look-ups.
  Library library(::dlopen(options.library.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (library.get() == nullptr) {
    const char* why = ::dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot load NVML ('", options.library, "'): ", why != nullptr ? why : "unknown error",
        "; install the NVIDIA driver, describe the GPUs with --cluster FILE, or, on a machine "
        "without a GPU, use simgpu's simulated GPU: LD_LIBRARY_PATH=build/simgpu "
        "iashim-coordinator, and run jobs with iashim run --simgpu"));
  }
  Api api;
  const std::string& lib = options.library;
  for (absl::Status s : {
           Resolve(library.get(), lib, "nvmlInit_v2", &api.init),
           Resolve(library.get(), lib, "nvmlShutdown", &api.shutdown),
           Resolve(library.get(), lib, "nvmlDeviceGetCount_v2", &api.get_count),
           Resolve(library.get(), lib, "nvmlDeviceGetHandleByIndex_v2", &api.get_handle),
           Resolve(library.get(), lib, "nvmlDeviceGetName", &api.get_name),
           Resolve(library.get(), lib, "nvmlDeviceGetUUID", &api.get_uuid),
           Resolve(library.get(), lib, "nvmlDeviceGetMemoryInfo", &api.get_memory),
       }) {
    if (!s.ok()) return s;
  }
  if (!Resolve(library.get(), lib, "nvmlErrorString", &api.error_string).ok()) {
    api.error_string = nullptr;
  }

  if (nvmlReturn_t rc = api.init(); rc != kNvmlSuccess) return CallFailed(api, "nvmlInit_v2", rc);
  Session session(api);

  unsigned int count = 0;
  if (nvmlReturn_t rc = api.get_count(&count); rc != kNvmlSuccess) {
    return CallFailed(api, "nvmlDeviceGetCount_v2", rc);
  }
  if (count == 0) {
    return absl::NotFoundError(
        absl::StrCat("NVML lists no GPU on ", *host, "; describe the cluster with --cluster FILE"));
  }
  if (count > static_cast<unsigned int>(kMaxGpuIndex) + 1) {
    return absl::UnavailableError(
        absl::StrCat("nvmlDeviceGetCount_v2 returned an implausible ", count, " GPUs"));
  }

  policy::Cluster cluster;
  for (unsigned int i = 0; i < count; ++i) {
    const std::string at = absl::StrCat(" for GPU ", i);
    nvmlDevice_t device = nullptr;
    if (nvmlReturn_t rc = api.get_handle(i, &device); rc != kNvmlSuccess) {
      return CallFailed(api, absl::StrCat("nvmlDeviceGetHandleByIndex_v2", at), rc);
    }
    char name[kNameBufferSize] = {};
    if (nvmlReturn_t rc = api.get_name(device, name, kNameBufferSize); rc != kNvmlSuccess) {
      return CallFailed(api, absl::StrCat("nvmlDeviceGetName", at), rc);
    }
    char uuid[kUuidBufferSize] = {};
    if (nvmlReturn_t rc = api.get_uuid(device, uuid, kUuidBufferSize); rc != kNvmlSuccess) {
      return CallFailed(api, absl::StrCat("nvmlDeviceGetUUID", at), rc);
    }
    nvmlMemory_t memory = {};
    if (nvmlReturn_t rc = api.get_memory(device, &memory); rc != kNvmlSuccess) {
      return CallFailed(api, absl::StrCat("nvmlDeviceGetMemoryInfo", at), rc);
    }
    // A library that fills a buffer without a terminator must not make us
    // read past it.
    name[kNameBufferSize - 1] = '\0';
    uuid[kUuidBufferSize - 1] = '\0';

    policy::GpuInfo gpu;
    gpu.id = policy::GpuId{*host, static_cast<int>(i)};
    gpu.name = name;
    gpu.type = GpuTypeFromName(gpu.name);
    gpu.uuid = uuid;
    gpu.memory_bytes = memory.total;
    cluster.gpus.push_back(std::move(gpu));
  }
  return cluster;
}

}  // namespace iashim::cluster
