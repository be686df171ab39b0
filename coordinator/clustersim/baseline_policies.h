// The policies iashim is measured against. Each is a PlacementPolicy, so the
// simulator treats them exactly like iashim's own; all three share the same
// choice of empty GPUs (EmptyGpus) and the same ShareRule, so only the
// sharing decision differs.
//  - ExclusivePlacement: one job per GPU; queue when no GPU is free (FIFO
//    order comes from the simulator's queue).
//  - FirstFitPlacement: a one-GPU job goes to the first GPU, in GpuId order,
//    where it fits (empty, or one job the ShareRule lets it join), even when
//    another GPU is empty: packing, blind to interference. With
//    guaranteed_take_whole_gpus, a guaranteed job takes only an empty GPU
//    and no job joins it: plain Slurm giving guaranteed jobs --gres=gpu:1
//    and the rest shards (SimConfig::guaranteed_take_whole_gpus).
//  - IadeepPlacement: IADeep's published rule. An empty GPU first; otherwise
//    the shareable GPU with the lowest predicted interference (the largest
//    sum of both jobs' predicted normalised throughputs); it never refuses to
//    co-locate when a GPU can take the job. Its predictor is a PairTable.
// Gangs (gpu_count > 1) always take empty GPUs of one node.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_BASELINE_POLICIES_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_BASELINE_POLICIES_H_

#include <optional>
#include <vector>

#include "coordinator/policy/interference_model.h"
#include "coordinator/policy/placement.h"

namespace iashim::clustersim {

// Every GPU of `state`, in GpuId order (each node's GPUs adjacent).
std::vector<const policy::GpuInfo*> GpusInOrder(const policy::ClusterState& state);
// Those without jobs, in the same order: what policy::BestFitEmptyGpus takes.
std::vector<const policy::GpuInfo*> EmptyGpusInOrder(const policy::ClusterState& state);

// Places a job alone on `gpus`: one empty GPU, or a gang's of one node.
policy::PlacementDecision PlacedOnEmpty(std::vector<policy::GpuId> gpus);

// `count` empty GPUs of one node, chosen by policy::BestFitEmptyGpus, the
// rule InterferenceAwarePlacement uses too: the node with the fewest empty
// GPUs that still has enough (keeps whole nodes free for gangs), ties in host
// order; its lowest-indexed empty GPUs. nullopt when no node has enough.
std::optional<std::vector<policy::GpuId>> EmptyGpus(const policy::ClusterState& state, int count);

// Whether a one-GPU `request` may join `gpu` now: exactly one job there, a
// one-GPU job, and the rule lets the two share.
bool MayJoin(const policy::PlacementRequest& request, const policy::ClusterState& state,
             const policy::GpuId& gpu, const policy::ShareRule& rule);

class ExclusivePlacement : public policy::PlacementPolicy {
 public:
  policy::PlacementDecision Place(const policy::PlacementRequest& request,
                                  const policy::ClusterState& state) const override;
};

class FirstFitPlacement : public policy::PlacementPolicy {
 public:
  explicit FirstFitPlacement(const policy::ShareRule* rule, bool guaranteed_take_whole_gpus = false)
      : rule_(rule), guaranteed_take_whole_gpus_(guaranteed_take_whole_gpus) {}
  policy::PlacementDecision Place(const policy::PlacementRequest& request,
                                  const policy::ClusterState& state) const override;

 private:
  const policy::ShareRule* rule_;  // not owned
  bool guaranteed_take_whole_gpus_;
};

class IadeepPlacement : public policy::PlacementPolicy {
 public:
  IadeepPlacement(const policy::InterferencePredictor* predictor, const policy::ShareRule* rule)
      : predictor_(predictor), rule_(rule) {}
  policy::PlacementDecision Place(const policy::PlacementRequest& request,
                                  const policy::ClusterState& state) const override;

 private:
  const policy::InterferencePredictor* predictor_;  // not owned; may learn between calls
  const policy::ShareRule* rule_;                   // not owned
};

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_BASELINE_POLICIES_H_
