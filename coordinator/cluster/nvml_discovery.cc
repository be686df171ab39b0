#include "coordinator/cluster/nvml_discovery.h"

#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/nvml/nvml_library.h"
#include "coordinator/cluster/cluster_file.h"
#include "coordinator/cluster/gpu_type.h"

namespace iashim::cluster {
namespace {

// NVML must be shut down once initialised, on every path out.
class Session {
 public:
  explicit Session(const nvml::Api& api) : api_(api) {}
  ~Session() { api_.shutdown(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

 private:
  const nvml::Api& api_;
};

absl::Status CallFailed(const nvml::Library& library, absl::string_view call, nvml::Return rc) {
  return absl::UnavailableError(absl::StrCat(call, " failed: ", library.Describe(rc)));
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

  std::string why;
  std::unique_ptr<nvml::Library> library = nvml::Library::Open(options.library, &why);
  if (library == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot load NVML ('", options.library, "'): ", why,
        "; install the NVIDIA driver, describe the GPUs with --cluster FILE, or, on a machine "
        "without a GPU, use simgpu's simulated GPU: LD_LIBRARY_PATH=build/simgpu "
        "iashim-coordinator, and run jobs with iashim run --simgpu"));
  }
  using nvml::Entry;
  if (const char* missing = library->FirstMissing(
          {Entry::kInit, Entry::kShutdown, Entry::kDeviceCount, Entry::kDeviceHandle,
           Entry::kDeviceName, Entry::kDeviceUuid, Entry::kMemoryInfo})) {
    return absl::FailedPreconditionError(
        absl::StrCat("NVML library '", options.library, "' lacks ", missing,
                     "; the NVIDIA driver is too old or this is not NVML"));
  }
  const nvml::Api& api = library->api();
  if (nvml::Return rc = api.init(); rc != nvml::kSuccess) {
    return CallFailed(*library, "nvmlInit_v2", rc);
  }
  Session session(api);

  unsigned int count = 0;
  if (nvml::Return rc = api.device_count(&count); rc != nvml::kSuccess) {
    return CallFailed(*library, "nvmlDeviceGetCount_v2", rc);
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
    nvml::Device device = nullptr;
    if (nvml::Return rc = api.device_handle(i, &device); rc != nvml::kSuccess) {
      return CallFailed(*library, absl::StrCat("nvmlDeviceGetHandleByIndex_v2", at), rc);
    }
    char name[nvml::kNameBufferSize] = {};
    if (nvml::Return rc = api.device_name(device, name, nvml::kNameBufferSize);
        rc != nvml::kSuccess) {
      return CallFailed(*library, absl::StrCat("nvmlDeviceGetName", at), rc);
    }
    char uuid[nvml::kUuidBufferSize] = {};
    if (nvml::Return rc = api.device_uuid(device, uuid, nvml::kUuidBufferSize);
        rc != nvml::kSuccess) {
      return CallFailed(*library, absl::StrCat("nvmlDeviceGetUUID", at), rc);
    }
    nvml::Memory memory = {};
    if (nvml::Return rc = api.memory_info(device, &memory); rc != nvml::kSuccess) {
      return CallFailed(*library, absl::StrCat("nvmlDeviceGetMemoryInfo", at), rc);
    }
    // A library that fills a buffer without a terminator must not make us
    // read past it.
    name[nvml::kNameBufferSize - 1] = '\0';
    uuid[nvml::kUuidBufferSize - 1] = '\0';

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
