// The local node's GPUs as NVML reports them: what the coordinator uses when
// it runs on the (single) GPU node it schedules and no --cluster FILE is given.
//
// NVML is loaded with dlopen at run time, not linked, so the coordinator
// starts (and can be given --cluster FILE) on machines without the NVIDIA
// driver. With LD_LIBRARY_PATH=build/simgpu it finds simgpu's NVML instead.
#ifndef IASHIM_COORDINATOR_CLUSTER_NVML_DISCOVERY_H_
#define IASHIM_COORDINATOR_CLUSTER_NVML_DISCOVERY_H_

#include <string>

#include "absl/status/statusor.h"
#include "coordinator/policy/cluster.h"

namespace iashim::cluster {

struct NvmlDiscoveryOptions {
  // What dlopen is given: a soname searched as the dynamic loader does, or a path.
  std::string library = "libnvidia-ml.so.1";
};

// One GpuInfo per device NVML lists, with host = gethostname(), the NVML index
// as the GPU index, type = GpuTypeFromName(name), and total memory. Errors
// name the failing step: FailedPrecondition when the library cannot be loaded
// or lacks an entry point, Unavailable when an NVML call fails (with NVML's
// error string and code), NotFound when NVML lists no GPU. NVML is initialised
// and shut down within the call.
absl::StatusOr<policy::Cluster> DiscoverLocalGpus(const NvmlDiscoveryOptions& options = {});

}  // namespace iashim::cluster

#endif  // IASHIM_COORDINATOR_CLUSTER_NVML_DISCOVERY_H_
