#include "coordinator/policy/interference_placement.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/policy/best_fit.h"
#include "coordinator/policy/fragmentation.h"
#include "coordinator/policy/internal/placement_reasons.h"
#include "coordinator/policy/internal/placement_scope.h"
#include "coordinator/policy/internal/placement_scorer.h"
#include "coordinator/policy/internal/whole_node_placement.h"

namespace iashim::policy {
namespace placement_internal {
namespace {

// A retry of a job already placed gets the same GPUs back.
std::optional<PlacementDecision> AlreadyPlaced(Scope& scope) {
  std::vector<GpuId>& placed_at = scope.placed_at;
  if (placed_at.empty()) return std::nullopt;
  std::string reason = absl::StrCat("already placed on ", GpuName(placed_at.front()));
  if (placed_at.size() == 1) return PlacementDecision::Placed(placed_at.front(), reason);
  return PlacementDecision::PlacedGang(std::move(placed_at), std::move(reason));
}

// Rejects a request that no node in scope could ever hold, however empty;
// otherwise fills `empty` with the empty GPUs that could hold it now.
std::optional<PlacementDecision> RejectImpossible(const PlacementRequest& r, const Scope& scope,
                                                  const std::string& where,
                                                  std::vector<const GpuInfo*>* empty) {
  const int k = r.gpu_count;
  const std::vector<GpuView>& views = scope.views;
  const std::vector<size_t>& nodes = scope.nodes;
  if (r.gpu.has_value() && k > 1) {
    return PlacementDecision::Rejected(
        absl::StrCat("a gang of ", k, " GPUs cannot be pinned to one GPU; name its host instead"));
  }
  if (views.empty()) {
    return PlacementDecision::Rejected(r.gpu.has_value()
                                           ? absl::StrCat("no GPU ", where, " in the cluster")
                                           : absl::StrCat("no GPUs on ", where));
  }
  bool ever = false;
  for (size_t n = 0; n + 1 < nodes.size(); ++n) {
    int could = 0;
    for (size_t i = nodes[n]; i < nodes[n + 1]; ++i) {
      if (!views[i].fits_ever) continue;
      ++could;
      if (views[i].jobs.empty()) empty->push_back(views[i].gpu);
    }
    ever = ever || could >= k;
  }
  if (ever) return std::nullopt;
  if (k > 1) {
    return PlacementDecision::Rejected(absl::StrCat("a gang of ", k, " GPUs with ",
                                                    Asked(r.mem_bytes), " each asked; no node on ",
                                                    where, " has that many such GPUs"));
  }
  if (r.gpu.has_value()) {
    return PlacementDecision::Rejected(absl::StrCat(Asked(r.mem_bytes), " asked; ", where, " has ",
                                                    Bytes(views.front().gpu->memory_bytes)));
  }
  return PlacementDecision::Rejected(
      absl::StrCat(Asked(r.mem_bytes), " asked; no GPU on ", where, " has that much memory"));
}

// Guaranteed jobs together, opportunistic ones apart from them. Whatever
// later shares a GPU with a guaranteed job is throttled to hold it within
// target, and Slurm gives a gang GPUs whose one-GPU jobs still run (22.05's
// shards; whole nodes, for a gang wider than a node): one guaranteed job on
// a node holds a gang there, all of its ranks, at the share that protects
// it. So among the empty GPUs a guaranteed job takes those on nodes that
// already hold one, an opportunistic job those on nodes that hold none,
// when k of them are on one node; else best fit decides alone. Found live
// (7f04ca): each of the three nodes held one guaranteed job, an
// opportunistic 8-GPU job ran beside two of them at a fifth of its speed
// for 139 s (39 s under plain Slurm), and the queue of 8-GPU jobs behind it
// waited.
std::vector<const GpuInfo*> EmptyOnItsSide(const PlacementRequest& r, const Scope& scope,
                                           std::span<const GpuInfo* const> empty, int k) {
  // A set: on a cluster of thousands of GPUs a list searched per empty GPU
  // would cost nodes x GPUs comparisons a decision.
  absl::flat_hash_set<std::string_view> guaranteed_hosts;
  for (const GpuView& v : scope.views) {
    if (std::any_of(v.jobs.begin(), v.jobs.end(),
                    [](const PlacedJob& j) { return j.priority == Priority::kGuaranteed; })) {
      guaranteed_hosts.insert(v.gpu->id.host);
    }
  }
  if (guaranteed_hosts.empty()) return BestFitEmptyGpus(empty, k);  // no sides
  const bool guaranteed = r.priority == Priority::kGuaranteed;
  std::vector<const GpuInfo*> side;
  for (const GpuInfo* g : empty) {
    if (guaranteed_hosts.contains(g->id.host) == guaranteed) side.push_back(g);
  }
  std::vector<const GpuInfo*> alone = BestFitEmptyGpus(side, k);
  return alone.empty() ? BestFitEmptyGpus(empty, k) : alone;
}

// Step 1, exclusive: all of the job's speed, at no one's expense.
std::optional<PlacementDecision> PlaceExclusive(const PlacementRequest& r, const Scope& scope,
                                                std::span<const GpuInfo* const> empty, int k) {
  std::vector<const GpuInfo*> alone = EmptyOnItsSide(r, scope, empty, k);
  if (alone.empty()) return std::nullopt;
  if (k == 1) return PlacementDecision::Placed(alone.front()->id, "an empty GPU");
  std::vector<GpuId> gpus;
  for (const GpuInfo* g : alone) gpus.push_back(g->id);
  return PlacementDecision::PlacedGang(
      std::move(gpus), absl::StrCat(k, " empty GPUs on node ", alone.front()->id.host));
}

// The fragmentation term (a mix was given and the request is a share of one
// GPU): each candidate's adjusted gain less pressure * the fragmentation it
// adds (fragmentation.h), in the same unit, GPUs' worth of progress.
struct Packing {
  std::vector<GpuRoom> rooms;  // parallel to Scope::views
  FragmentationMeter meter;
  double pressure = 0;

  // The fragmentation placing `mem_bytes` on views[i] adds to its node.
  double Added(const Scope& scope, size_t i, uint64_t mem_bytes, int max_jobs_per_gpu) {
    const auto node_end = std::upper_bound(scope.nodes.begin(), scope.nodes.end(), i);
    const size_t begin = *(node_end - 1);
    const std::span<const GpuRoom> node(rooms.data() + begin, *node_end - begin);
    const GpuRoom after =
        RoomAfter(rooms[i], mem_bytes, scope.views[i].jobs.size(), max_jobs_per_gpu);
    return meter.Delta(node, i - begin, after);
  }
};

// Whether a shared candidate passes admission (step 3). A guaranteed job
// passes wherever it was scored: Score has checked that its target holds
// there, and its co-runners, opportunistic all (never two guaranteed), are
// the jobs that give way; queued so that they lose less, it would wait for
// lower-priority work (live, a 0.5 s guaranteed job waited 80 s on the node
// Slurm had started it on).
bool Admissible(const PlacementRequest& r, const SetScore& score,
                const InterferenceAwarePlacement::Options& options) {
  if (r.priority == Priority::kGuaranteed) return true;
  return score.adjusted + options.exploration * score.uncertainty >= options.min_gain;
}

// The best GPU set sharing could use, and why others could not be used.
struct SharedChoice {
  std::vector<size_t> gpus;  // into Scope::views; empty: none can take the job now
  SetScore score;
  Blocker blocker;
  // With packing: the best GPU by adjusted gain, admissible or not, so that
  // a job nothing admits is queued naming it, without a second pass.
  std::optional<size_t> best_any;
  SetScore best_any_score;
};

// Step 2, shared: scores every node's best k GPUs by the predicted gain.
// With `packing` (k is 1 then), only admissible GPUs compete, by packed score.
SharedChoice ChooseShared(const Scope& scope, Scorer& scorer,
                          const InterferenceAwarePlacement::Options& options, int k,
                          const PlacementRequest& r, Packing* packing) {
  const std::vector<GpuView>& views = scope.views;
  const std::vector<size_t>& nodes = scope.nodes;
  struct Ranked {
    size_t index;  // into views
    GpuScore score;
    double rank;  // the GPU's own share of the gain, less its uncertainty
  };
  SharedChoice best;
  std::vector<Ranked> node;
  std::vector<size_t> chosen;
  std::vector<GpuScore> chosen_scores;
  const size_t want = static_cast<size_t>(k);
  const double kd = static_cast<double>(k);
  for (size_t n = 0; n + 1 < nodes.size(); ++n) {
    node.clear();
    for (size_t i = nodes[n]; i < nodes[n + 1]; ++i) {
      if (!views[i].fits_ever) continue;
      // Packing weighs empty GPUs as one candidate: best fit's (Place).
      if (packing != nullptr && views[i].jobs.empty()) continue;
      GpuScore s;
      if (!scorer.Score(views[i], &s, &best.blocker)) continue;
      const double unc = kd * s.unc_new + s.unc_loss;
      double rank = kd * s.p_new - s.loss - options.uncertainty_weight * unc;
      if (packing != nullptr) {
        const SetScore alone = scorer.ScoreSet(views, std::span<const size_t>(&i, 1),
                                               std::span<const GpuScore>(&s, 1));
        if (!best.best_any.has_value() || alone.adjusted > best.best_any_score.adjusted) {
          best.best_any = i;
          best.best_any_score = alone;
        }
        if (!Admissible(r, alone, options)) continue;
        rank -= packing->pressure * packing->Added(scope, i, r.mem_bytes, options.max_jobs_per_gpu);
      }
      node.push_back({i, s, rank});
    }
    if (node.size() < want) continue;
    // Greedy: the k GPUs best on their own (ties in GpuId order), then the
    // set scored exactly.
    std::partial_sort(node.begin(), node.begin() + k, node.end(),
                      [](const Ranked& a, const Ranked& b) {
                        return a.rank != b.rank ? a.rank > b.rank : a.index < b.index;
                      });
    std::sort(node.begin(), node.begin() + k,
              [](const Ranked& a, const Ranked& b) { return a.index < b.index; });
    chosen.clear();
    chosen_scores.clear();
    for (size_t c = 0; c < want; ++c) {
      chosen.push_back(node[c].index);
      chosen_scores.push_back(node[c].score);
    }
    SetScore set = scorer.ScoreSet(views, chosen, chosen_scores);
    set.packed = packing != nullptr ? node.front().rank : set.adjusted;
    if (best.gpus.empty() || set.packed > best.score.packed) {
      best.gpus.assign(chosen.begin(), chosen.end());
      best.score = set;
    }
  }
  return best;
}

// Step 3, admission: sharing must add more than leaving the job queued.
PlacementDecision Admit(const PlacementRequest& r, const Scope& scope, const SharedChoice& choice,
                        const std::string& where,
                        const InterferenceAwarePlacement::Options& options) {
  const int k = r.gpu_count;
  const std::vector<GpuView>& views = scope.views;
  if (choice.gpus.empty()) {
    std::string reason =
        k > 1 ? absl::StrCat("no node on ", where, " has ", k, " GPUs that can take the job now")
              : absl::StrCat("no GPU on ", where, " can take the job now");
    if (choice.blocker.why != Blocker::Why::kNone) {
      absl::StrAppend(&reason, " (e.g. ", Explain(choice.blocker, r, options.max_jobs_per_gpu),
                      ")");
    }
    return PlacementDecision::Queued(std::move(reason));
  }
  const SetScore& score = choice.score;
  const std::string detail = absl::StrFormat(
      "%s with %s: predicted gain %.3f solo-GPU equivalents (the job at %.2f, residents lose "
      "%.3f, uncertainty %.3f)",
      GpuNames(views, choice.gpus), JobNames(views, choice.gpus), score.gain, score.p_new,
      score.loss, score.uncertainty);
  if (!Admissible(r, score, options)) {
    return PlacementDecision::Queued(absl::StrFormat(
        "sharing would not pay: best candidate %s; min_gain %.3f", detail, options.min_gain));
  }
  return PlacedOn(views, choice.gpus, "shared " + detail);
}

// The GPUs the batch system gave the job (PlacementRequest::
// join_busy_gpus), some busy: the job starts beside their residents unless
// a rule forbids it on one of them. No admission against min_gain: the
// scheduler keeps everyone else off these GPUs, so waiting would gain
// nothing. Nullopt when the scope is not exactly the job's GPUs of one node.
std::optional<PlacementDecision> PlaceBesideResidents(
    const PlacementRequest& r, const Scope& scope, Scorer& scorer,
    const InterferenceAwarePlacement::Options& options) {
  const int k = r.gpu_count;
  const std::vector<GpuView>& views = scope.views;
  if (views.size() != static_cast<size_t>(k) || scope.nodes.size() != 2) return std::nullopt;
  std::vector<size_t> chosen;
  std::vector<GpuScore> scores;
  Blocker blocker;
  for (size_t i = 0; i < views.size(); ++i) {
    GpuScore s;
    if (!scorer.Score(views[i], &s, &blocker)) {
      return PlacementDecision::Queued(
          absl::StrCat("the GPUs the scheduler gave it cannot take it yet: ",
                       Explain(blocker, r, options.max_jobs_per_gpu)));
    }
    chosen.push_back(i);
    scores.push_back(s);
  }
  const SetScore score = scorer.ScoreSet(views, chosen, scores);
  std::string reason = absl::StrFormat(
      "the scheduler's GPUs %s, beside %s: predicted gain %.3f solo-GPU equivalents (the job at "
      "%.2f, residents lose %.3f)",
      GpuNames(views, chosen), JobNames(views, chosen), score.gain, score.p_new, score.loss);
  if (!r.step_runs_on.empty()) {
    absl::StrAppend(&reason, "; the rest of its step runs on ", r.step_runs_on,
                    ", waiting for it: not held for want of the control loop's room");
  }
  return PlacedOn(views, chosen, std::move(reason));
}

// A whole-GPU job free to join busy GPUs (PlacementRequest::join_busy_gpus),
// no node with the empty GPUs it needs: the node and GPUs where sharing is
// predicted to gain most, whatever min_gain says.
PlacementDecision JoinWhereSharingGainsMost(const PlacementRequest& r, const Scope& scope,
                                            Scorer& scorer, const std::string& where,
                                            const InterferenceAwarePlacement::Options& options) {
  InterferenceAwarePlacement::Options any_gain = options;
  any_gain.min_gain = -std::numeric_limits<double>::infinity();
  any_gain.exploration = 0;
  PlacementDecision d = Admit(
      r, scope, ChooseShared(scope, scorer, options, r.gpu_count, r, nullptr), where, any_gain);
  if (d.outcome == PlacementDecision::Outcome::kPlaced) {
    d.reason = absl::StrCat(d.reason, "; no node on ", where, " has ", r.gpu_count,
                            r.gpu_count == 1 ? " empty GPU" : " empty GPUs");
  }
  return d;
}

// A job free to join busy GPUs (PlacementRequest::join_busy_gpus): beside
// their residents, a guaranteed one beside a guaranteed job there if it
// must (PlacementDecision::beside_guaranteed).
PlacementDecision JoinBusyGpus(const PlacementRequest& r, const Scope& scope,
                               const std::string& where, const InterferencePredictor& predictor,
                               const ShareRule* rule,
                               const InterferenceAwarePlacement::Options& options) {
  const auto join = [&](const PlacementRequest& request) {
    Scorer scorer(request, predictor, rule, options);
    if (auto beside = PlaceBesideResidents(request, scope, scorer, options)) {
      return *std::move(beside);
    }
    return JoinWhereSharingGainsMost(request, scope, scorer, where, options);
  };
  PlacementDecision d = join(r);
  if (d.outcome != PlacementDecision::Outcome::kQueued || r.priority != Priority::kGuaranteed) {
    return d;
  }
  // Beside a guaranteed job: the GPUs chosen as for an opportunistic job
  // (where it would lose least if it were held), where a guaranteed job runs
  // on one of them.
  PlacementRequest as_opportunistic = r;
  as_opportunistic.priority = Priority::kOpportunistic;
  PlacementDecision b = join(as_opportunistic);
  if (b.outcome != PlacementDecision::Outcome::kPlaced) return d;
  const std::vector<std::string> guaranteed = GuaranteedOn(scope.views, b.gpus);
  if (guaranteed.empty()) return d;
  b.beside_guaranteed = true;
  absl::StrAppend(&b.reason, BesideGuaranteed(guaranteed));
  return b;
}

// The scope's rooms, and how scarce capacity is: pressure = (capacity
// allocated + asked by the queue + asked by this request) / capacity, at most 1.
// A GPU of capacity left unusable costs a GPU's worth of progress when
// demand would have filled it, nothing when capacity is plentiful; pressure
// is the chance it binds, so the queue makes the policy pack harder.
Packing StartPacking(const PlacementRequest& r, const ClusterState& state, const Scope& scope,
                     const RequestMix& mix, int max_jobs_per_gpu) {
  Packing packing{.rooms = {}, .meter = FragmentationMeter(mix.Classes()), .pressure = 0};
  packing.rooms.reserve(scope.views.size());
  double capacity = 0, allocated = 0;
  uint64_t largest = 0;
  for (const GpuView& v : scope.views) {
    packing.rooms.push_back(RoomOf(*v.gpu, v.jobs, max_jobs_per_gpu));
    if (!v.fits_ever) continue;
    capacity += 1;
    allocated += 1.0 - FreeShare(packing.rooms.back());
    largest = std::max(largest, v.gpu->memory_bytes);
  }
  const double asked = GpusAsked(r, largest);
  const double queued = std::isfinite(state.queued_gpus) ? std::max(0.0, state.queued_gpus) : 0.0;
  if (capacity > 0) packing.pressure = std::min(1.0, (allocated + queued + asked) / capacity);
  return packing;
}

// interference_placement.h's steps 1-3, packing and whole nodes, in that
// order.
PlacementDecision PlaceRequest(const PlacementRequest& r, const ClusterState& state,
                               const InterferencePredictor* predictor, const ShareRule* rule,
                               const InterferenceAwarePlacement::Options& options,
                               const RequestMix* mix) {
  const int k = r.gpu_count;
  if (k < 1) {
    return PlacementDecision::Rejected(absl::StrCat("gpu_count ", k, " asked; at least 1"));
  }
  Scope scope;
  scope.views.reserve(r.gpu.has_value() ? 1 : state.cluster.gpus.size());
  CollectScope(r, state, &scope);
  if (auto placed = AlreadyPlaced(scope)) return *std::move(placed);
  const std::string where = ScopeName(r);
  if (k > 1 && static_cast<size_t>(k) > LargestNode(scope) && !r.gpu.has_value()) {
    return PlaceOnWholeNodes(r, scope, where, predictor, rule, options);
  }
  std::vector<const GpuInfo*> empty;
  if (auto rejected = RejectImpossible(r, scope, where, &empty)) return *std::move(rejected);
  const bool pack = mix != nullptr && !mix->Classes().empty() && k == 1 && r.mem_bytes > 0 &&
                    predictor != nullptr;
  if (!pack) {
    if (auto alone = PlaceExclusive(r, scope, empty, k)) return *std::move(alone);
  }
  if (predictor == nullptr) {
    return PlacementDecision::Queued("no empty GPU, and no interference predictor to share one");
  }
  if (JoinsBusyGpus(r)) return JoinBusyGpus(r, scope, where, *predictor, rule, options);
  Scorer scorer(r, *predictor, rule, options);
  if (pack) {
    Packing packing = StartPacking(r, state, scope, *mix, options.max_jobs_per_gpu);
    SharedChoice packed = ChooseShared(scope, scorer, options, k, r, &packing);
    const std::vector<const GpuInfo*> alone = EmptyOnItsSide(r, scope, empty, 1);
    if (!alone.empty()) {
      const auto it = std::find_if(scope.views.begin(), scope.views.end(),
                                   [&](const GpuView& v) { return v.gpu == alone.front(); });
      const size_t i = static_cast<size_t>(it - scope.views.begin());
      // Alone, the job keeps all of its speed (gain 1) and harms no one.
      const double alone_added = packing.Added(scope, i, r.mem_bytes, options.max_jobs_per_gpu);
      const double alone_packed = 1.0 - packing.pressure * alone_added;
      if (packed.gpus.empty() || packed.score.packed <= alone_packed) {
        return PlacementDecision::Placed(alone.front()->id, "an empty GPU");
      }
      // Say why the empty GPU was passed over.
      PlacementDecision d = Admit(r, scope, packed, where, options);
      absl::StrAppendFormat(
          &d.reason,
          "; packed rather than alone on %s: fragmentation %+.3f GPUs there, %+.3f here, at "
          "pressure %.2f",
          GpuName(alone.front()->id), alone_added,
          packing.Added(scope, packed.gpus.front(), r.mem_bytes, options.max_jobs_per_gpu),
          packing.pressure);
      return d;
    } else if (packed.gpus.empty() && packed.best_any.has_value()) {
      // Nothing admissible: queued, naming the best candidate and its gain.
      packed.gpus = {*packed.best_any};
      packed.score = packed.best_any_score;
    }
    return Admit(r, scope, packed, where, options);
  }
  return Admit(r, scope, ChooseShared(scope, scorer, options, k, r, nullptr), where, options);
}

}  // namespace
}  // namespace placement_internal

InterferenceAwarePlacement::InterferenceAwarePlacement(const InterferencePredictor* predictor,
                                                       const ShareRule* rule, Options options,
                                                       const RequestMix* mix)
    : predictor_(predictor), rule_(rule), options_(options), mix_(mix) {}

PlacementDecision InterferenceAwarePlacement::Place(const PlacementRequest& r,
                                                    const ClusterState& state) const {
  return placement_internal::PlaceRequest(r, state, predictor_, rule_, options_, mix_);
}

}  // namespace iashim::policy
