// Alibaba's GPU-sharing cluster trace of 2023 (bench/data/alibaba-v2023/):
// the GPU nodes and the pods, parsed strictly. The trace has no throughput or
// interference figures; iashim replays it for scale (alibaba_replay.h).
//
//   nodes: sn,cpu_milli,memory_mib,gpu,model
//   pods:  name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,
//          creation_time,deletion_time,scheduled_time
//
// Errors name "<source>:<line>:" and the field, e.g.
//   "pods.csv:12: field gpu_milli: '1200' is not an integer in 0..1000".
// Strict on purpose: a truncated, hand-edited or differently shaped trace
// must not pass silently. The header must be exactly the one above; no
// quoting; blank lines are errors; a final newline and CRLF line ends are
// accepted.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_TRACE_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_TRACE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace iashim::clustersim {

struct AlibabaNode {
  std::string sn;  // unique
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpus = 0;       // 1..kMaxGpusPerNode
  std::string model;  // "V100M16", "T4", ...: the GPU type
};

struct AlibabaPod {
  std::string name;  // unique
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  // 0: a CPU-only pod (the replay skips it). 1: one GPU, possibly a share of
  // it. >1: whole GPUs, all on one node.
  int num_gpu = 0;
  // Thousandths of a GPU asked per GPU: 0 when num_gpu is 0, 1..1000 when it
  // is 1, exactly 1000 when it is more.
  int gpu_milli = 0;
  std::vector<std::string> gpu_spec;  // GPU models the pod accepts; empty: any
  std::string qos;                    // LS, BE, Burstable or Guaranteed
  std::string phase;                  // Running, Pending, Succeeded or Failed
  int64_t creation_s = 0;
  int64_t deletion_s = 0;                 // >= creation_s
  std::optional<int64_t> scheduled_s;     // absent for pods never scheduled
  // False for a pod from a list of requests only (header
  // name,cpu_milli,memory_mib,num_gpu,gpu_milli): no times, no gpu_spec, no
  // qos or phase. Such pods can be replayed in fill mode only.
  bool has_times = true;
};

inline constexpr int kMaxGpusPerNode = 64;

// `source` names the text in errors (usually the file's path).
absl::StatusOr<std::vector<AlibabaNode>> ParseAlibabaNodes(std::string_view text,
                                                           std::string_view source);
absl::StatusOr<std::vector<AlibabaPod>> ParseAlibabaPods(std::string_view text,
                                                         std::string_view source);

absl::StatusOr<std::vector<AlibabaNode>> ReadAlibabaNodesFile(const std::string& path);
absl::StatusOr<std::vector<AlibabaPod>> ReadAlibabaPodsFile(const std::string& path);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_TRACE_H_
