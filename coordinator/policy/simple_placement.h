// A placement policy that knows nothing about interference: it keeps jobs
// apart when it can and otherwise shares the least busy GPU. It is the
// baseline the interference-aware policy is measured against, and what the
// daemon uses before any interference has been learned.
//
// For a request naming a GPU: that GPU, if it exists and can ever hold the
// memory asked for (else rejected); queued while it cannot take the job now.
// Otherwise, among the GPUs of the requested host (or all GPUs):
//  1. an empty GPU: the smallest one that fits (keeps big GPUs for big jobs),
//     ties in GpuId order;
//  2. else, for a sized request, a GPU where it fits in the free memory and
//     that would not then hold two guaranteed jobs (their slowdown targets
//     could not both be defended by throttling opportunistic jobs): the one
//     with the lowest total busy fraction, then fewest jobs, then most free
//     memory, then GpuId order;
//  3. else queued; rejected if no candidate could ever fit the request.
// Rules the GPU must satisfy are the same in 1-3: FitsNow() for memory, and
// the two-guaranteed rule.
//
// A gang (gpu_count > 1) runs only alone, on empty GPUs of one node: the node
// with the fewest empty GPUs that still has enough (BestFitEmptyGpus), else
// queued; rejected if no node could ever hold it or it names a single GPU.
#ifndef IASHIM_POLICY_SIMPLE_PLACEMENT_H_
#define IASHIM_POLICY_SIMPLE_PLACEMENT_H_

#include "coordinator/policy/placement.h"

namespace iashim::policy {

class SimplePlacement : public PlacementPolicy {
 public:
  PlacementDecision Place(const PlacementRequest& request,
                          const ClusterState& state) const override;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_SIMPLE_PLACEMENT_H_
