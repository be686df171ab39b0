// The cluster file (`iashim-coordinator --cluster FILE`): the nodes and GPUs
// an operator gives the coordinator when it should not (or cannot) ask NVML,
// e.g. on a head node that schedules GPUs of other machines. The format is
// described in README.md next to this file.
//
// Every error names the file, the line and what is wrong, because the person
// reading it is editing that file by hand.
#ifndef IASHIM_COORDINATOR_CLUSTER_CLUSTER_FILE_H_
#define IASHIM_COORDINATOR_CLUSTER_CLUSTER_FILE_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "coordinator/policy/cluster.h"

namespace iashim::cluster {

// Limits beyond which a value is a mistake, not a machine: they keep a typo
// ("gpu 1000", "32TiB" for "32GiB") from reaching the policy.
inline constexpr int kMaxGpuIndex = 255;
inline constexpr int kMaxGpus = 65536;                               // in the whole file
inline constexpr uint64_t kMinGpuMemoryBytes = uint64_t{256} << 20;  // 256 MiB
inline constexpr uint64_t kMaxGpuMemoryBytes = uint64_t{16} << 40;   // 16 TiB
inline constexpr size_t kMaxLineBytes = 4096;
inline constexpr size_t kMaxFileBytes = size_t{16} << 20;

// Parses `text` as a cluster file; `source` names it in error messages
// (normally the path). GPUs are listed in file order. InvalidArgument on any
// error, with a message "SOURCE:LINE: what".
absl::StatusOr<policy::Cluster> ParseClusterText(std::string_view text, std::string_view source);

// Reads and parses the file at `path`. NotFound / PermissionDenied /
// FailedPrecondition when it cannot be read, else as ParseClusterText.
absl::StatusOr<policy::Cluster> ReadClusterFile(std::string_view path);

}  // namespace iashim::cluster

#endif  // IASHIM_COORDINATOR_CLUSTER_CLUSTER_FILE_H_
