// Private to InterferenceAwarePlacement: what placing one request on a GPU,
// or on a set of one node's GPUs, is predicted to gain and cost, in solo-GPU
// equivalents (interference_placement.h, step 2). A Scorer lives for one
// Place() call and predicts each pair of the request and one kind of
// resident once, however many GPUs hold such a resident.
#ifndef IASHIM_POLICY_INTERNAL_PLACEMENT_SCORER_H_
#define IASHIM_POLICY_INTERNAL_PLACEMENT_SCORER_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "coordinator/policy/interference_model.h"
#include "coordinator/policy/interference_placement.h"
#include "coordinator/policy/internal/placement_reasons.h"
#include "coordinator/policy/internal/placement_scope.h"
#include "coordinator/policy/placement.h"

namespace iashim::policy::placement_internal {

// What placing the new job on one GPU predicts.
struct GpuScore {
  double p_new = 1;     // the new job's normalised throughput there
  double unc_new = 0;   // summed uncertainty of the predictions behind p_new
  double loss = 0;      // residents' lost progress, solo-GPU equivalents
  double unc_loss = 0;  // uncertainty of `loss`, same units
};

// What placing the new job on a set of GPUs (one node's) predicts.
struct SetScore {
  double gain = 0;
  double uncertainty = 0;
  double p_new = 1;
  double loss = 0;
  double adjusted = 0;  // gain - uncertainty_weight * uncertainty: what admission compares
  double packed = 0;    // adjusted - pressure * fragmentation added: what the choice compares
};

// Scores GPUs for one request. `request`, `predictor`, `rule` (may be null:
// any pair may share) and `options` must outlive it.
class Scorer {
 public:
  Scorer(const PlacementRequest& request, const InterferencePredictor& predictor,
         const ShareRule* rule, const InterferenceAwarePlacement::Options& options);

  // Whether `view` can take the job now; if so fills `score`, else records
  // why in `blocker` (when it holds nothing yet).
  bool Score(const GpuView& view, GpuScore* score, Blocker* blocker);

  // The exact score of putting a job of `k` GPUs on `chosen` (indices into
  // `views`, each with its per-GPU `scores`). The job runs at the pace of its
  // slowest GPU; a resident gang sharing several of the chosen GPUs loses
  // once, on the GPU that hurts it most, not once per GPU.
  SetScore ScoreSet(std::span<const GpuView> views, std::span<const size_t> chosen,
                    std::span<const GpuScore> scores);

 private:
  // Everything Predict and MayShare see of a resident: residents alike in
  // all of it share one cache entry, so a call predicts once per kind of
  // resident rather than once per GPU.
  struct TraitsKey {
    std::string_view kind;
    std::string_view family;
    uint64_t busy = 0;  // bit patterns: NaN (not measured) compares equal to itself
    uint64_t memory_bound = 0;

    explicit TraitsKey(const JobTraits& t)
        : kind(t.kind),
          family(t.family),
          busy(std::bit_cast<uint64_t>(t.busy)),
          memory_bound(std::bit_cast<uint64_t>(t.memory_bound)) {}

    friend bool operator==(const TraitsKey&, const TraitsKey&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const TraitsKey& k) {
      return H::combine(std::move(h), k.kind, k.family, k.busy, k.memory_bound);
    }
  };

  // The new job against one kind of resident.
  struct PairInfo {
    bool may_share = true;
    InterferencePrediction new_next_to_resident;  // the new job as victim
    InterferencePrediction resident_next_to_new;  // the resident as victim
  };

  // A resident's lot when the new job joins it.
  struct ResidentEffect {
    double after = 1;  // its predicted normalised throughput afterwards
    double loss = 0;   // k_r * (before - after)
    double unc = 0;    // k_r * before * uncertainty of the pair prediction
  };

  bool ScoreProtected(const GpuView& view, GpuScore s, const PlacedJob* resident_guaranteed,
                      GpuScore* score, Blocker* blocker);
  double Unthrottled(const GpuView& view, size_t i) const;
  const PairInfo& Pair(const PlacedJob& resident);
  ResidentEffect Effect(const GpuView& view, size_t i, const PairInfo& pair) const;

  const PlacementRequest& request_;
  const InterferencePredictor& predictor_;
  const ShareRule* rule_;
  const InterferenceAwarePlacement::Options& options_;
  // PlacementRequest::step_runs_on: held by no prediction or measurement of
  // room, only by memory, the share rule and max_jobs_per_gpu.
  const bool rest_of_running_step_;
  absl::flat_hash_map<TraitsKey, PairInfo> cache_;
  std::vector<double> before_, after_;                            // ScoreProtected's scratch
  std::vector<PairInfo> pairs_;                                   // scratch for Score
  std::vector<std::pair<std::string_view, double>> gang_losses_;  // scratch for ScoreSet
};

}  // namespace iashim::policy::placement_internal

#endif  // IASHIM_POLICY_INTERNAL_PLACEMENT_SCORER_H_
