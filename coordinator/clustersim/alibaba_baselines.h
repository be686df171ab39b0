// Packing baselines for the Alibaba replay, in the same harness as iashim
// (`iashim-clustersim --alibaba-policy bestfit|firstfit|fgd|iashim`). GPU
// dimension only, as the ATC'23 paper's baselines: capacity is milli
// (alibaba_replay.h: PlacementRequest.mem_bytes is the share asked, 0 = whole
// GPUs), and CPU and host memory are ignored.
//  - AlibabaBestFit: a share of one GPU goes to the GPU it fits tightest (the
//    least capacity left after it), ties in GpuId order; whole GPUs to
//    policy::BestFitEmptyGpus (the node with the fewest empty GPUs that has
//    enough), the rule every policy uses for empty GPUs.
//  - AlibabaFirstFit: the first GPU in GpuId order with room; whole GPUs:
//    the first node, in host order, with enough empty GPUs.
//  - AlibabaFgd: fragmentation gradient descent (Weng et al., ATC'23): the
//    GPU, or for whole GPUs the node (its first k empty GPUs), where the pod
//    adds the least fragmentation (policy/fragmentation.h) for the mix of
//    requests seen so far (policy::RequestMix, which the replay feeds at
//    every arrival; the paper takes the whole trace's mix, which a live
//    scheduler cannot know). Ties in GpuId order.
// None ever refuses a pod that fits somewhere now; a pod that fits nowhere
// is queued.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_BASELINES_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_BASELINES_H_

#include "coordinator/policy/placement.h"
#include "coordinator/policy/request_mix.h"

namespace iashim::clustersim {

class AlibabaBestFit : public policy::PlacementPolicy {
 public:
  policy::PlacementDecision Place(const policy::PlacementRequest& request,
                                  const policy::ClusterState& state) const override;
};

class AlibabaFirstFit : public policy::PlacementPolicy {
 public:
  policy::PlacementDecision Place(const policy::PlacementRequest& request,
                                  const policy::ClusterState& state) const override;
};

class AlibabaFgd : public policy::PlacementPolicy {
 public:
  // `mix` must outlive the policy.
  explicit AlibabaFgd(const policy::RequestMix* mix) : mix_(mix) {}

  policy::PlacementDecision Place(const policy::PlacementRequest& request,
                                  const policy::ClusterState& state) const override;

 private:
  const policy::RequestMix* mix_;
};

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_ALIBABA_BASELINES_H_
