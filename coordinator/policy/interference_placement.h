// iashim's placement: chooses the GPU(s) that maximise the cluster's
// progress, using an InterferencePredictor to foresee what sharing costs.
//
// Progress is counted in solo-GPU equivalents: a job holding k GPUs that runs
// at normalised throughput p contributes k * p. For a request:
//  1. Exclusive when enough empty GPUs exist (on one node for a gang): an
//     empty GPU gives the job all of its speed and costs no one anything, so
//     sharing would not help. Among nodes, the one with the fewest empty GPUs
//     that still fits (keeps whole nodes free for gangs); the smallest GPUs
//     that fit.
//  2. Otherwise every GPU (set) where the job fits now (memory, ShareRule,
//     max_jobs_per_gpu, never two guaranteed jobs on one GPU) is scored by
//     the predicted change in progress:
//        gain = k_new * p_new - sum over residents r of k_r * b_r * (1 - p_r)
//     where p_new is the new job's predicted normalised throughput (the
//     product over its co-runners, the minimum over a gang's GPUs), p_r a
//     resident's throughput after the new job joins, relative to before, and
//     b_r its throughput before (so b_r * (1 - p_r) is what it loses; a
//     resident gang sharing several of a new gang's GPUs loses once).
//     A guaranteed job (new or resident) is held at its slowdown target by
//     the share controller, which throttles its opportunistic co-runners:
//     when it would be predicted below 1 / (1 + target), the prediction
//     throttles them too (each share cut to (1 - floor) / (1 - p_g), their
//     throughput scaled by it), and a GPU where that share would fall below
//     min_share is not a candidate (with protect_by_throttling off: any GPU
//     where a guaranteed job is predicted past its target unthrottled).
//  3. The best candidate (the highest adjusted gain, gain -
//     uncertainty_weight * uncertainty) is taken if its adjusted gain plus
//     exploration * uncertainty (optimism: an upper confidence bound) is at
//     least min_gain (sharing must beat leaving the job queued); otherwise
//     the job is queued, with a reason naming the best candidate and its
//     predicted harm.
// Packing (a RequestMix given, and the request a share of one GPU: memory
// asked, one GPU): an empty GPU no longer wins outright. Each candidate,
// the best-fit empty GPU of step 1 (gain 1) and every admissible shared GPU,
// is scored by its adjusted gain less pressure * the fragmentation it adds
// (fragmentation.h: the capacity, in GPUs, that the requests seen so far
// could no longer use), and the best is taken. Pressure is the share of the
// capacity allocated or asked (queue included: ClusterState::queued_gpus),
// at most 1: fragmented capacity costs a GPU's worth of progress only when
// demand would fill it, so the policy packs harder as the queue grows.
// Where sharing costs little (or nothing, under compute quotas), the
// candidates' gains tie and the fragmentation decides; where it costs much,
// the gain does. Whole GPUs and gangs keep step 1's best fit by node.
// Ties break in GpuId order, so the daemon and the simulator decide alike.
#ifndef IASHIM_POLICY_INTERFERENCE_PLACEMENT_H_
#define IASHIM_POLICY_INTERFERENCE_PLACEMENT_H_

#include "coordinator/policy/interference_model.h"
#include "coordinator/policy/placement.h"
#include "coordinator/policy/request_mix.h"

namespace iashim::policy {

class InterferenceAwarePlacement : public PlacementPolicy {
 public:
  struct Options {
    double min_gain = 0.05;           // solo-GPU equivalents sharing must add
    double uncertainty_weight = 0.0;  // how much predicted uncertainty costs in the choice
    // Optimism in admission, in standard errors (an upper confidence bound):
    // the best candidate is admitted when its adjusted gain + exploration *
    // uncertainty reaches min_gain. A pair the model knows little of is tried; as its
    // evidence grows its uncertainty shrinks and the bonus with it, so a
    // harmful pair is tried a few times, not forever, and a few bad pairs
    // cannot stop every later co-location (and so all learning).
    double exploration = 0.0;
    int max_jobs_per_gpu = 2;         // 0 = no limit beyond memory
    // Guaranteed jobs are defended by throttling their opportunistic
    // co-runners (the share controller), and scored that way; false: a GPU
    // where a guaranteed job would be predicted past its target unthrottled
    // is not a candidate at all.
    bool protect_by_throttling = true;
    double min_share = 0.05;          // the share controller's smallest share
  };

  // `predictor` and `rule` (nullable: any pair may share) must outlive the
  // policy; the predictor may learn between calls (the daemon feeds it).
  // `mix` (nullable) turns the fragmentation term on (see the header
  // comment); the caller records every arriving request in it.
  InterferenceAwarePlacement(const InterferencePredictor* predictor, const ShareRule* rule,
                             Options options, const RequestMix* mix = nullptr);

  PlacementDecision Place(const PlacementRequest& request,
                          const ClusterState& state) const override;

 private:
  const InterferencePredictor* predictor_;
  const ShareRule* rule_;
  Options options_;
  const RequestMix* mix_;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_INTERFERENCE_PLACEMENT_H_
