// How much of a node's free capacity the requests to come could not use:
// the fragmentation measure of Weng et al., "Beware of Fragmentation"
// (USENIX ATC 2023), generalised from thousandths of a GPU to memory
// reservations and gangs, so that it applies wherever the policies do.
//
// For one request class (RequestClass: k GPUs of one node, each with m bytes
// free, or empty when m is 0) a GPU is usable when it could take one of the
// class's GPUs now. The class's unusable capacity on a node is
//   - all of the node's free capacity when fewer than k of its GPUs are
//     usable (the class cannot start there at all), else
//   - the free capacity of the GPUs that are not usable.
// A node's fragmentation is its classes' unusable capacity weighted by how
// often each arrives (RequestMix). Capacity is counted in GPUs: a GPU's free
// share is free_bytes / memory_bytes (1 when empty). A GPU whose size is not
// known counts 1 free when empty and 0 otherwise, and is usable by any sized
// request (as FitsNow has it). A GPU holding max_jobs_per_gpu jobs has none free.
//
// A placement that raises fragmentation least ("fragmentation gradient
// descent") keeps the free capacity in the shapes the next requests need.
#ifndef IASHIM_POLICY_FRAGMENTATION_H_
#define IASHIM_POLICY_FRAGMENTATION_H_

#include <cstdint>
#include <span>
#include <vector>

#include "coordinator/policy/cluster.h"
#include "coordinator/policy/cluster_state.h"
#include "coordinator/policy/request_mix.h"

namespace iashim::policy {

// What one GPU could still take.
struct GpuRoom {
  uint64_t free_bytes = 0;    // reservable now (FreeBytes)
  uint64_t memory_bytes = 0;  // the GPU's; 0 = not known
  bool empty = true;          // no jobs: a whole-GPU request fits
  bool full = false;          // max_jobs_per_gpu reached: nothing fits
};

// The share of the GPU still free, 0..1 (the measure's unit, above).
double FreeShare(const GpuRoom& g);

// `max_jobs_per_gpu` 0: no limit beyond memory.
GpuRoom RoomOf(const GpuInfo& gpu, std::span<const PlacedJob> jobs, int max_jobs_per_gpu);

// The room left after a reservation of `mem_bytes` (0 = the whole GPU) is
// placed; `max_jobs_per_gpu` as above, `jobs_before` the jobs there before.
GpuRoom RoomAfter(const GpuRoom& before, uint64_t mem_bytes, size_t jobs_before,
                  int max_jobs_per_gpu);

class FragmentationMeter {
 public:
  // `classes` (RequestMix::Classes()) must outlive the meter. The meter
  // lives for one decision: the rooms it is shown must not change meanwhile.
  explicit FragmentationMeter(std::span<const RequestClass> classes);

  // Expected free capacity on `node`, in GPUs, that a request drawn from the
  // mix could not use.
  double Unusable(std::span<const GpuRoom> node) const;

  // Unusable(node with node[i] replaced by `after`) - Unusable(node), in
  // O(log classes) once the node was seen (its sums are kept for the node
  // last asked, by data pointer and size).
  double Delta(std::span<const GpuRoom> node, size_t i, const GpuRoom& after);

  // The same when each GPU node[chosen[j]] becomes after[j] (a gang).
  double DeltaSet(std::span<const GpuRoom> node, std::span<const size_t> chosen,
                  std::span<const GpuRoom> after) const;

 private:
  // A share of one GPU (gpus 1, memory asked) is blocked by a GPU alone, so
  // its part of Unusable is a sum over GPUs: free share * the weight of the
  // classes asking more than the GPU has free (a suffix sum over them, by
  // memory). Whole-GPU classes need the node's empty GPUs and free share;
  // gangs of shares (rare) are counted GPU by GPU.
  double ShareTerm(const GpuRoom& g) const;
  double NodeTerm(int empty, double free, std::span<const GpuRoom> node) const;

  std::vector<uint64_t> share_mem_;     // share classes' memory, ascending
  std::vector<double> share_weight_above_;  // [j]: weight of share classes j.. (size + 1)
  std::vector<RequestClass> whole_;     // memory 0
  std::vector<RequestClass> gangs_;     // gpus > 1, memory asked
  const GpuRoom* counted_ = nullptr;    // the node last asked
  size_t counted_size_ = 0;
  int counted_empty_ = 0;
  double counted_free_ = 0;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_FRAGMENTATION_H_
