// GPU fragmentation of a cluster whose GPUs are shared in thousandths
// ("milli"), after Weng et al., "Beware of Fragmentation", USENIX ATC 2023.
//
// Every GPU has 1000 milli. Two measures, both shares of the free milli:
//  - partial_share: the free milli that sits on partially allocated GPUs
//    (0 < allocated < 1000). A whole-GPU request cannot use any of it.
//  - workload_share: the free milli the arriving workload cannot use, in
//    expectation over its request classes (the paper's fragmentation for a
//    target workload). For one class, a GPU's free milli is unusable when
//     * the class does not accept the GPU's model (gpu_spec), or
//     * the class asks a share d < 1000 of one GPU and the GPU has less than
//       d free, or
//     * the class asks k whole GPUs and the GPU is partially allocated, or
//       its node (GPUs of one host and model) has fewer than k GPUs free.
//    The classes are weighted by their share of the arrivals. As in the
//    paper, this counts capacity no placement could make usable (a model a
//    class refuses, a node too small for its gang): an empty cluster has a
//    baseline above 0.
// CPU and host memory are ignored: the placement policies do not use them.
//
// FragmentationTracker keeps per-model histograms up to date as GPUs are
// allocated and freed, so a measure costs O(models * 1000 + classes), not a
// walk over every GPU; the replay samples it at every arrival.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_FRAGMENTATION_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_FRAGMENTATION_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/policy/cluster_state.h"

namespace iashim::clustersim {

inline constexpr int kGpuMilli = 1000;

// One kind of request in the arriving workload.
struct WorkloadClass {
  int milli = kGpuMilli;            // per GPU: 1..1000
  int gpus = 1;                     // > 1: whole GPUs (milli 1000) on one node
  std::vector<std::string> models;  // GPU models accepted; empty: any
  double weight = 0;                // share of the arrivals (the weights sum to 1)
};

struct Fragmentation {
  int64_t total_milli = 0;
  int64_t allocated_milli = 0;
  int64_t free_milli = 0;
  int64_t partial_free_milli = 0;  // free milli on partially allocated GPUs
  double alloc_rate = 0;           // allocated / total
  double partial_share = 0;        // partial_free / free (0 when nothing is free)
  double workload_share = 0;       // expected unusable free / free (0 when nothing is free)
};

class FragmentationTracker {
 public:
  // Every GPU of `cluster`, all free; GPU i is cluster.gpus[i].
  explicit FragmentationTracker(const policy::Cluster& cluster);

  // GPU i now has `milli` allocated (clamped to 0..1000).
  void SetAllocated(int gpu, int milli);
  int allocated(int gpu) const { return kGpuMilli - free_[gpu]; }

  Fragmentation Measure(std::span<const WorkloadClass> workload) const;

 private:
  // A "unit" is the GPUs of one host and one model: where a gang can go.
  void AddUnit(int unit, int sign);

  std::vector<std::string> models_;
  std::vector<int> gpu_model_;
  std::vector<int> gpu_unit_;
  std::vector<int> unit_model_;
  std::vector<int> free_;                  // per GPU
  std::vector<int> unit_full_;             // per unit: GPUs wholly free
  std::vector<int64_t> unit_free_;         // per unit: free milli
  std::vector<int64_t> unit_partial_;      // per unit: free milli on partial GPUs
  int max_unit_gpus_ = 0;
  // Per model: GPUs by free milli (0..1000), and free / partial-free milli of
  // units by how many wholly free GPUs they have (0..max_unit_gpus_).
  std::vector<std::vector<int64_t>> gpus_by_free_;
  std::vector<std::vector<int64_t>> free_by_full_;
  std::vector<std::vector<int64_t>> partial_by_full_;
  std::vector<int64_t> model_free_;
  int64_t total_free_ = 0;
  int64_t partial_free_ = 0;
};

// From scratch, from a state whose GPUs all have memory_bytes == 1000 (one
// unit per milli; a job reserving 0 holds the whole GPU). For tests and
// checks; the replay keeps a tracker instead.
absl::StatusOr<Fragmentation> MeasureFragmentation(const policy::ClusterState& state,
                                                   std::span<const WorkloadClass> workload);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_FRAGMENTATION_H_
