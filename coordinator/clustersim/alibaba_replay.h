// Replays the Alibaba 2023 trace through a placement policy, for scale: how
// long each decision takes on a 6,212-GPU cluster, how well the policy packs
// fractional GPUs, and how fragmented the cluster gets.
//
// The cluster: one policy::GpuInfo per GPU, host = the node's sn, index
// 0..gpus-1, type = the node's model, memory_bytes = 1000: capacity counted
// in thousandths of a GPU ("milli"), so a pod's gpu_milli is its
// PlacementRequest.mem_bytes. A pod asking 1000 milli of one GPU, or several
// GPUs (a gang, gpu_count = num_gpu), asks whole GPUs (mem_bytes 0). Pods
// with num_gpu 0 are skipped and counted. Every pod is opportunistic: the
// trace shares GPUs by quota (gpu_milli), and the QoS classes carry no
// slowdown targets; a guaranteed pod could never share under iashim's rules.
//
// gpu_spec (the models a pod accepts) is honoured without a PlacementRequest
// field: the policy is offered a ClusterState *view* holding only the GPUs of
// accepted models. One view per distinct spec is built once and kept up to
// date with every placement and deletion, so asking costs nothing extra.
//
// The queue's demand (GPUs' worth: milli / 1000 times GPUs, summed over the
// waiting pods) is the state's queued_gpus when the policy is asked.
//
// Time: pods arrive at creation_time and keep their trace duration
// (deletion_time - creation_time) from when they start. A pod the policy
// queues waits in a FIFO queue; after the deletions of each instant the queue
// is retried in order. Within one retry pass, and for an arrival behind a
// waiting pod of the same request, a request that was just refused is not
// asked again: capacity only shrank since, so the answer would not change.
// Deletions at an instant are handled before arrivals at that instant.
//
// Each Place() call is timed with std::chrono::steady_clock (the driver reads
// the clock; the policy never does). Fragmentation (alibaba_fragmentation.h)
// is sampled after every arrival; "peak" is the sample with the most milli
// allocated (the first, on ties).
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_REPLAY_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_REPLAY_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/clustersim/alibaba_fragmentation.h"
#include "coordinator/clustersim/alibaba_trace.h"
#include "coordinator/policy/cluster.h"
#include "coordinator/policy/cluster_state.h"
#include "coordinator/policy/interference_placement.h"
#include "coordinator/policy/placement.h"
#include "coordinator/policy/request_mix.h"

namespace iashim::clustersim {

// kTimed: the trace's times, as above. The trace spans 149 days of mostly
// short pods, so at most ~50 run at once and the cluster stays nearly empty.
// kFill: the ATC'23 paper's method: the pods arrive in trace order and never
// leave, filling the cluster (the GPU pods ask ~96% of it in all); a pod
// that cannot be placed when it arrives is never placed. This is the scale
// test: every decision faces thousands of placed pods.
enum class AlibabaReplayMode { kTimed, kFill };

struct AlibabaReplayOptions {
  AlibabaReplayMode mode = AlibabaReplayMode::kTimed;
  // Only the first `max_pods` pods of the file (all when < 0).
  int64_t max_pods = -1;
  // Stop right after this many arrivals were handled (all when < 0); with
  // `final_state`, the bench uses it to rebuild the state at the peak.
  int64_t stop_after_arrivals = -1;
  // For the default policy: memory (milli) is the only per-GPU limit.
  policy::InterferenceAwarePlacement::Options placement{.max_jobs_per_gpu = 0};
  // What iashim's policy predicts of two pods on one GPU:
  //  kQuota: each runs at its quota (throughput 1, certain): the trace's
  //    gpu_milli is a compute and memory quota the sharing layer enforces,
  //    so a pod's progress does not depend on its co-runners.
  //  kPrior: an InterferenceModel with no observations (its prior, 0.68 of
  //    solo speed each): what iashim assumes of unmeasured jobs sharing by
  //    time slices without quotas.
  enum class Interference { kQuota, kPrior };
  Interference interference = Interference::kQuota;
  // iashim's fragmentation term (interference_placement.h), over the mix of
  // the pods that arrived so far.
  bool packing = true;
};

struct AlibabaReplayResult {
  // The cluster.
  int64_t nodes = 0;
  int64_t gpus = 0;
  // The pods.
  int64_t pods = 0;           // read (after max_pods)
  int64_t skipped = 0;        // num_gpu 0
  int64_t gpu_pods = 0;       // replayed
  int64_t arrivals = 0;       // handled (stop_after_arrivals may cut them short)
  int64_t placed = 0;         // started, at once or after waiting
  int64_t placed_at_once = 0;
  int64_t waited = 0;         // queued on arrival (placed later or never)
  int64_t never_placed = 0;   // still waiting when the replay ended
  int64_t rejected = 0;       // could never run as asked
  int64_t max_queue = 0;      // longest the queue got
  double wait_mean_s = 0;     // over the pods that waited and then started
  double wait_p50_s = 0;
  double wait_p99_s = 0;
  double wait_max_s = 0;
  // The decisions: one per Place() call.
  int64_t decisions = 0;
  double latency_mean_us = 0;
  double latency_p50_us = 0;
  double latency_p99_us = 0;
  double latency_max_us = 0;
  // The same in the calling thread's CPU time: what a Place() costs when the
  // machine is shared (wall-clock latency counts time the thread waited).
  double cpu_p50_us = 0;
  double cpu_p99_us = 0;
  double cpu_max_us = 0;
  double place_total_s = 0;   // the sum of the Place() calls
  double wall_s = 0;          // the whole replay (state upkeep and sampling included)
  // Fragmentation, sampled after every arrival.
  int64_t samples = 0;
  double frag_workload_empty = 0;  // workload_share of the empty cluster: the baseline
  double frag_partial_mean = 0;   // mean partial_share
  double frag_workload_mean = 0;  // mean workload_share
  double alloc_rate_mean = 0;
  Fragmentation peak;             // at the sample with the most milli allocated
  double peak_time_s = 0;         // trace time of that sample
  int64_t peak_arrivals = 0;      // arrivals handled by then
  int64_t peak_running = 0;       // pods running then
  double end_time_s = 0;          // trace time of the last event handled
};

// AlibabaReplayOptions::Interference::kQuota: a pod runs at its quota
// whatever shares its GPU.
class AlibabaQuotaPredictor : public policy::InterferencePredictor {
 public:
  policy::InterferencePrediction Predict(const policy::JobTraits&,
                                         const policy::JobTraits&) const override {
    return {.throughput = 1.0, .uncertainty = 0.0, .evidence = 0};
  }
};

// The PlacementRequest.mem_bytes a GPU pod asks, as above: its gpu_milli
// for a share of one GPU, 0 (whole GPUs) for 1000 milli or a gang.
uint64_t AlibabaMemBytes(const AlibabaPod& pod);

// The cluster of `nodes` as described above; an error if a sn repeats.
absl::StatusOr<policy::Cluster> AlibabaCluster(std::span<const AlibabaNode> nodes);

// The arriving workload's request classes (milli, GPUs, accepted models),
// weighted by how many GPU pods ask each.
std::vector<WorkloadClass> AlibabaWorkload(std::span<const AlibabaPod> pods);

// Replays with iashim's InterferenceAwarePlacement with options.placement,
// options.interference and options.packing.
absl::StatusOr<AlibabaReplayResult> ReplayAlibaba(std::span<const AlibabaNode> nodes,
                                                  std::span<const AlibabaPod> pods,
                                                  const AlibabaReplayOptions& options,
                                                  policy::ClusterState* final_state = nullptr);

// The same with any policy. `final_state`, when given, receives the state
// over every GPU when the replay stops. `mix`, when given, records every
// arriving pod's request before the policy is asked (a policy that packs by
// the mix reads it). An error when the policy answers something impossible
// (a GPU not offered, one that is full, the wrong number of GPUs): the
// replay does not paper over a policy bug.
absl::StatusOr<AlibabaReplayResult> ReplayAlibabaWith(const policy::PlacementPolicy& policy,
                                                      std::span<const AlibabaNode> nodes,
                                                      std::span<const AlibabaPod> pods,
                                                      const AlibabaReplayOptions& options,
                                                      policy::ClusterState* final_state = nullptr,
                                                      policy::RequestMix* mix = nullptr);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_REPLAY_H_
