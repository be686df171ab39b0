#include "coordinator/policy/interference_placement.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/policy/best_fit.h"
#include "coordinator/policy/fragmentation.h"
#include "coordinator/policy/protective_share.h"

namespace iashim::policy {
namespace {

// Lenience on the slowdown-target comparison, so a prediction exactly at the
// target is not excluded by rounding.
constexpr double kEpsilon = 1e-12;

std::string Bytes(uint64_t bytes) {
  return absl::StrFormat("%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
}

std::string Asked(uint64_t mem_bytes) {
  return mem_bytes == 0 ? std::string("the whole GPU") : Bytes(mem_bytes);
}

int Weight(const PlacedJob& j) { return std::max(1, j.gpu_count); }

bool JoinsBusyGpus(const PlacementRequest& r) { return r.join_busy_gpus; }

// A predictor that misbehaves must not poison the arithmetic: non-finite
// throughput is taken as worthless and fully uncertain.
InterferencePrediction Sane(InterferencePrediction p) {
  if (!std::isfinite(p.throughput) || p.throughput < 0) {
    p.throughput = 0;
    p.uncertainty = 1;
  }
  if (!std::isfinite(p.uncertainty) || p.uncertainty < 0) p.uncertainty = 1;
  return p;
}

// A GPU the request may use, with the jobs already on it.
struct GpuView {
  const GpuInfo* gpu = nullptr;
  std::span<const PlacedJob> jobs;
  bool fits_ever = false;  // CanEverFit: the request's memory, were the GPU empty
  bool at_floor = false;   // ClusterState::co_runners_at_floor
};

// Why a GPU cannot take the job now: the first one found (in GpuId order)
// becomes the queued reason. Kept as values so no string is built per GPU.
struct Blocker {
  enum class Why {
    kNone,
    kFull,
    kMemory,
    kTwoGuaranteed,
    kAtFloor,
    kShareRule,
    kNewTarget,
    kResidentTarget
  };
  Why why = Why::kNone;
  const GpuView* view = nullptr;
  const PlacedJob* resident = nullptr;
  double throughput = 0;
  double target = 0;
};

// Everything Predict and MayShare see of a resident: residents alike in all of
// it share one cache entry, so a call predicts once per kind of resident
// rather than once per GPU.
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

// What placing the new job on one GPU predicts.
struct GpuScore {
  double p_new = 1;     // the new job's normalised throughput there
  double unc_new = 0;   // summed uncertainty of the predictions behind p_new
  double loss = 0;      // residents' lost progress, solo-GPU equivalents
  double unc_loss = 0;  // uncertainty of `loss`, same units
};

// A resident's lot when the new job joins it.
struct ResidentEffect {
  double after = 1;  // its predicted normalised throughput afterwards
  double loss = 0;   // k_r * (before - after)
  double unc = 0;    // k_r * before * uncertainty of the pair prediction
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

// Scores GPUs for one request. Lives for one Place() call.
class Scorer {
 public:
  Scorer(const PlacementRequest& request, const InterferencePredictor& predictor,
         const ShareRule* rule, const InterferenceAwarePlacement::Options& options)
      : request_(request),
        predictor_(predictor),
        rule_(rule),
        options_(options),
        rest_of_running_step_(JoinsBusyGpus(request) && !request.step_runs_on.empty()) {
    cache_.reserve(64);
  }

  // Whether `view` can take the job now; if so fills `score`, else records
  // why in `blocker` (when it holds nothing yet).
  bool Score(const GpuView& view, GpuScore* score, Blocker* blocker) {
    const auto block = [&](Blocker::Why why, const PlacedJob* resident = nullptr,
                           double throughput = 0, double target = 0) {
      if (blocker->why == Blocker::Why::kNone) {
        *blocker = {why, &view, resident, throughput, target};
      }
      return false;
    };
    const std::span<const PlacedJob> jobs = view.jobs;
    // Cheap rules first: most GPUs of a busy cluster fail one of them.
    if (options_.max_jobs_per_gpu > 0 &&
        jobs.size() >= static_cast<size_t>(options_.max_jobs_per_gpu)) {
      return block(Blocker::Why::kFull);
    }
    // GPUs joined while busy (PlacementRequest::join_busy_gpus) are shared in
    // what memory the residents leave: what the job asked, or some.
    const uint64_t asked =
        JoinsBusyGpus(request_) && request_.mem_bytes == 0 ? 1 : request_.mem_bytes;
    if (!FitsNow(*view.gpu, jobs, asked)) return block(Blocker::Why::kMemory);
    const bool guaranteed = request_.priority == Priority::kGuaranteed;
    if (guaranteed) {
      for (const PlacedJob& r : jobs) {
        // Throttling opportunistic jobs cannot defend two targets at once.
        if (r.priority == Priority::kGuaranteed) return block(Blocker::Why::kTwoGuaranteed, &r);
      }
    }
    // The loop there already spends all it may on its guaranteed job: the
    // measurement outranks the model's prediction of room.
    if (view.at_floor && !rest_of_running_step_) return block(Blocker::Why::kAtFloor);
    pairs_.clear();
    for (const PlacedJob& r : jobs) {
      // A copy: the cache may rehash as it grows.
      const PairInfo pair = Pair(r);
      if (!pair.may_share) return block(Blocker::Why::kShareRule, &r);
      pairs_.push_back(pair);
    }

    GpuScore s;
    for (const PairInfo& pair : pairs_) {
      s.p_new *= pair.new_next_to_resident.throughput;
      s.unc_new += pair.new_next_to_resident.uncertainty;
    }
    const PlacedJob* resident_guaranteed = nullptr;
    for (const PlacedJob& r : jobs) {
      if (r.priority == Priority::kGuaranteed) resident_guaranteed = &r;
    }
    if (options_.protect_by_throttling && (guaranteed || resident_guaranteed != nullptr)) {
      return ScoreProtected(view, s, resident_guaranteed, score, block);
    }
    if (guaranteed && !rest_of_running_step_ &&
        s.p_new < ThroughputFloor(request_.slowdown_target) - kEpsilon) {
      return block(Blocker::Why::kNewTarget, nullptr, s.p_new, request_.slowdown_target);
    }
    for (size_t i = 0; i < jobs.size(); ++i) {
      const ResidentEffect e = Effect(view, i, pairs_[i]);
      const PlacedJob& r = jobs[i];
      if (r.priority == Priority::kGuaranteed && !rest_of_running_step_ &&
          e.after < ThroughputFloor(r.slowdown_target) - kEpsilon) {
        return block(Blocker::Why::kResidentTarget, &r, e.after, r.slowdown_target);
      }
      s.loss += e.loss;
      s.unc_loss += e.unc;
    }
    *score = s;
    return true;
  }

  // The exact score of putting a job of `k` GPUs on `chosen` (indices into
  // `views`, each with its per-GPU `scores`). The job runs at the pace of its
  // slowest GPU; a resident gang sharing several of the chosen GPUs loses
  // once, on the GPU that hurts it most, not once per GPU.
  SetScore ScoreSet(std::span<const GpuView> views, std::span<const size_t> chosen,
                    std::span<const GpuScore> scores) {
    const double k = static_cast<double>(chosen.size());
    SetScore set;
    double unc_new = 0;
    for (size_t n = 0; n < chosen.size(); ++n) {
      const GpuScore& s = scores[n];
      set.p_new = std::min(set.p_new, s.p_new);
      unc_new = std::max(unc_new, s.unc_new);
      set.loss += s.loss;
      set.uncertainty += s.unc_loss;
    }
    if (chosen.size() > 1) {
      gang_losses_.clear();
      for (size_t c : chosen) {
        const GpuView& view = views[c];
        for (size_t i = 0; i < view.jobs.size(); ++i) {
          const PlacedJob& r = view.jobs[i];
          if (r.gpu_count <= 1) continue;
          const double loss = Effect(view, i, Pair(r)).loss;
          auto seen = std::find_if(gang_losses_.begin(), gang_losses_.end(),
                                   [&](const auto& g) { return g.first == r.job; });
          if (seen == gang_losses_.end()) {
            gang_losses_.emplace_back(r.job, loss);
          } else {
            set.loss -= std::min(seen->second, loss);
            seen->second = std::max(seen->second, loss);
          }
        }
      }
    }
    set.gain = k * set.p_new - set.loss;
    set.uncertainty += k * unc_new;
    set.adjusted = set.gain - options_.uncertainty_weight * set.uncertainty;
    return set;
  }

 private:
  // A GPU that would hold a guaranteed job: the share controller keeps that
  // job within its target by throttling the opportunistic ones, so the
  // prediction does too. Unthrottled, each job runs at the product of its
  // pairwise predictions; if the guaranteed job would fall below its floor
  // 1 / (1 + target), every opportunistic job's share is cut to
  //   s = (1 - floor) / (1 - p_guaranteed)
  // (harm taken as proportional to the share, the controller's own model),
  // which brings the guaranteed job to its floor and scales the
  // opportunistic jobs' throughput by s. Below the controller's smallest
  // share the target cannot be defended, and the GPU is not a candidate
  // (but for the rest of a running step: there the share is the smallest).
  template <typename Block>
  bool ScoreProtected(const GpuView& view, GpuScore s, const PlacedJob* resident_guaranteed,
                      GpuScore* score, Block& block) {
    const std::span<const PlacedJob> jobs = view.jobs;
    const size_t n = jobs.size();
    // Throughputs of the residents before, and of residents + new after;
    // index n is the new job.
    before_.assign(n, 1.0);
    after_.assign(n + 1, 1.0);
    for (size_t i = 0; i < n; ++i) {
      before_[i] = Unthrottled(view, i);
      after_[i] = before_[i] * pairs_[i].resident_next_to_new.throughput;
    }
    after_[n] = s.p_new;
    const auto throttle = [&](std::vector<double>& t, size_t count, size_t g, double target) {
      const double floor = ThroughputFloor(target);
      if (t[g] >= floor - kEpsilon) return true;
      double share = ProtectiveShare(t[g], target);
      double kept = floor;
      if (share < options_.min_share) {
        if (!rest_of_running_step_) return false;
        share = options_.min_share;
        kept = 1.0 - (1.0 - t[g]) * share;  // harm in proportion to the share
      }
      for (size_t i = 0; i < count; ++i) t[i] = i == g ? kept : t[i] * share;
      return true;
    };
    const bool new_guaranteed = resident_guaranteed == nullptr;
    const size_t g = new_guaranteed ? n : static_cast<size_t>(resident_guaranteed - jobs.data());
    const double target =
        new_guaranteed ? request_.slowdown_target : resident_guaranteed->slowdown_target;
    if (!new_guaranteed) throttle(before_, n, g, target);  // as the controller holds it now
    if (!throttle(after_, n + 1, g, target)) {
      if (new_guaranteed) return block(Blocker::Why::kNewTarget, nullptr, after_[g], target);
      return block(Blocker::Why::kResidentTarget, resident_guaranteed, after_[g], target);
    }
    s.p_new = after_[n];
    for (size_t i = 0; i < n; ++i) {
      const double k = Weight(jobs[i]);
      s.loss += k * std::max(0.0, before_[i] - after_[i]);
      s.unc_loss += k * before_[i] * pairs_[i].resident_next_to_new.uncertainty;
    }
    *score = s;
    return true;
  }

  // Resident i's predicted throughput beside the GPU's other residents, before
  // any throttling: the product of its pairwise predictions.
  double Unthrottled(const GpuView& view, size_t i) const {
    double p = 1;
    for (size_t j = 0; j < view.jobs.size(); ++j) {
      if (j != i) p *= Sane(predictor_.Predict(view.jobs[i].traits, view.jobs[j].traits)).throughput;
    }
    return p;
  }

  const PairInfo& Pair(const PlacedJob& resident) {
    auto [it, inserted] = cache_.try_emplace(TraitsKey(resident.traits));
    PairInfo& pair = it->second;
    if (inserted) {
      pair.may_share = rule_ == nullptr || rule_->MayShare(request_.traits, resident.traits);
      if (pair.may_share) {
        pair.new_next_to_resident = Sane(predictor_.Predict(request_.traits, resident.traits));
        pair.resident_next_to_new = Sane(predictor_.Predict(resident.traits, request_.traits));
      }
    }
    return pair;
  }

  // Resident i's throughput is the product of its pairwise predictions with
  // every co-runner, so the new job multiplies it by one more factor. Its
  // loss is measured from what it is predicted to do now (not from 1): a job
  // already slowed has less left to lose.
  ResidentEffect Effect(const GpuView& view, size_t i, const PairInfo& pair) const {
    const PlacedJob& r = view.jobs[i];
    const double before = Unthrottled(view, i);
    const InterferencePrediction& p = pair.resident_next_to_new;
    const double k = Weight(r);
    ResidentEffect e;
    e.after = before * p.throughput;
    e.loss = k * (before - e.after);
    e.unc = k * before * p.uncertainty;
    return e;
  }

  const PlacementRequest& request_;
  const InterferencePredictor& predictor_;
  const ShareRule* rule_;
  const InterferenceAwarePlacement::Options& options_;
  // PlacementRequest::step_runs_on: held by no prediction or measurement of
  // room, only by memory, the share rule and max_jobs_per_gpu.
  const bool rest_of_running_step_;
  absl::flat_hash_map<TraitsKey, PairInfo> cache_;
  std::vector<double> before_, after_;  // ScoreProtected's scratch
  std::vector<PairInfo> pairs_;                                   // scratch for Score
  std::vector<std::pair<std::string_view, double>> gang_losses_;  // scratch for ScoreSet
};

// "a:0, a:1" for reasons.
std::string GpuNames(std::span<const GpuView> views, std::span<const size_t> chosen) {
  std::string out;
  for (size_t c : chosen) {
    if (!out.empty()) out += ", ";
    out += GpuName(views[c].gpu->id);
  }
  return out;
}

// "x, y" for reasons: the jobs on the chosen GPUs (a gang once).
std::string JobNames(std::span<const GpuView> views, std::span<const size_t> chosen) {
  std::vector<std::string_view> names;
  for (size_t c : chosen) {
    for (const PlacedJob& j : views[c].jobs) {
      if (std::find(names.begin(), names.end(), j.job) == names.end()) names.push_back(j.job);
    }
  }
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out.append(n);
  }
  return out.empty() ? std::string("no job") : out;
}

// "job a" or "jobs a, b, c and 2 more": who holds a GPU, so that a queued
// job's user sees which job it waits for (one that never started, say).
std::string Holders(const GpuView& view) {
  constexpr size_t kNamed = 3;
  std::string out = view.jobs.size() == 1 ? "job " : "jobs ";
  for (size_t i = 0; i < view.jobs.size() && i < kNamed; ++i) {
    if (i > 0) out += ", ";
    out += view.jobs[i].job;
  }
  if (view.jobs.size() > kNamed) absl::StrAppend(&out, " and ", view.jobs.size() - kNamed, " more");
  return out;
}

std::string Explain(const Blocker& b, const PlacementRequest& r, int max_jobs) {
  const std::string gpu = GpuName(b.view->gpu->id);
  switch (b.why) {
    case Blocker::Why::kNone:
      return "";
    case Blocker::Why::kFull:
      return absl::StrCat(gpu, " already runs ", Holders(*b.view), ", max_jobs_per_gpu ",
                          max_jobs);
    case Blocker::Why::kMemory:
      if (r.mem_bytes == 0 && JoinsBusyGpus(r)) {
        return absl::StrCat(gpu, " runs ", Holders(*b.view), ", who leave it no memory");
      }
      if (r.mem_bytes == 0) {
        return absl::StrCat(gpu, " runs ", Holders(*b.view), "; the whole GPU was asked");
      }
      return absl::StrCat(gpu, " has ", Bytes(FreeBytes(*b.view->gpu, b.view->jobs)), " free of ",
                          Bytes(b.view->gpu->memory_bytes), " (the rest held by ", Holders(*b.view), "); ",
                          Bytes(r.mem_bytes), " asked");
    case Blocker::Why::kTwoGuaranteed:
      return absl::StrCat(gpu, " already runs guaranteed job ", b.resident->job);
    case Blocker::Why::kAtFloor:
      return absl::StrCat(gpu, " runs ", Holders(*b.view),
                          ", its co-runners held at the least share (or where the least share "
                          "bought too little) to keep its guaranteed job within target: no share "
                          "left for another");
    case Blocker::Why::kShareRule:
      return absl::StrCat("job ", b.resident->job, " on ", gpu, " may not share a GPU with it");
    case Blocker::Why::kNewTarget:
      return absl::StrFormat(
          "on %s it would run at predicted throughput %.2f, past its slowdown "
          "target %.2f",
          gpu, b.throughput, b.target);
    case Blocker::Why::kResidentTarget:
      return absl::StrFormat(
          "guaranteed job %s on %s would run at predicted throughput %.2f, "
          "past its slowdown target %.2f",
          b.resident->job, gpu, b.throughput, b.target);
  }
  return "";
}

// The GPUs a request may use, grouped by node, each with its jobs.
struct Scope {
  std::vector<GpuView> views;    // in GpuId order
  std::vector<size_t> nodes;     // views [nodes[i], nodes[i + 1]) are one node's
  std::vector<GpuId> placed_at;  // GPUs the job already holds (a retry)
};

// Finds the node runs in `views`; returns whether `views` is in GpuId order.
// One string comparison per GPU (hosts), and an ordering one per node.
bool FindNodes(const std::vector<GpuView>& views, std::vector<size_t>* nodes) {
  nodes->clear();
  bool sorted = true;
  for (size_t i = 0; i < views.size(); ++i) {
    const GpuId& id = views[i].gpu->id;
    if (i > 0 && id.host == views[i - 1].gpu->id.host) {
      sorted = sorted && views[i - 1].gpu->id.index < id.index;
      continue;
    }
    if (i > 0) sorted = sorted && views[i - 1].gpu->id.host < id.host;
    nodes->push_back(i);
  }
  nodes->push_back(views.size());
  return sorted;
}

// One pass over the cluster and one over the jobs (a merge of two sequences
// in GpuId order, comparing hosts once per GPU that has jobs), so no map
// lookup per GPU.
void CollectScope(const PlacementRequest& r, const ClusterState& state, Scope* scope) {
  std::vector<GpuView>& views = scope->views;
  for (const GpuInfo& g : state.cluster.gpus) {
    const bool in_scope =
        r.gpu.has_value() ? g.id == *r.gpu : (r.host.empty() || g.id.host == r.host);
    if (in_scope) views.push_back({&g, {}, CanEverFit(g, r.mem_bytes)});
  }
  if (!FindNodes(views, &scope->nodes)) {
    std::sort(views.begin(), views.end(),
              [](const GpuView& a, const GpuView& b) { return a.gpu->id < b.gpu->id; });
    FindNodes(views, &scope->nodes);
  }
  const std::vector<size_t>& nodes = scope->nodes;
  size_t node = 0;  // the node of the previous entry, or the next one
  size_t at = 0;    // within it, the first view not yet passed
  for (const auto& [id, jobs] : state.jobs) {
    if (!r.job.empty()) {
      for (const PlacedJob& j : jobs) {
        // Ids differ mostly at the end ("pod-0123"): compared from there,
        // most mismatches cost a character or two and no call.
        if (j.job.size() == r.job.size() &&
            std::equal(j.job.rbegin(), j.job.rend(), r.job.rbegin())) {
          scope->placed_at.push_back(id);
          break;
        }
      }
    }
    while (node + 1 < nodes.size()) {
      const int c = views[nodes[node]].gpu->id.host.compare(id.host);
      if (c < 0) {
        ++node;
        at = nodes[node];
        continue;
      }
      if (c == 0) {
        while (at < nodes[node + 1] && views[at].gpu->id.index < id.index) ++at;
        if (at < nodes[node + 1] && views[at].gpu->id.index == id.index) views[at].jobs = jobs;
      }
      break;
    }
  }
  for (const GpuId& id : state.co_runners_at_floor) {  // a few GPUs at most
    const auto it =
        std::lower_bound(views.begin(), views.end(), id,
                         [](const GpuView& v, const GpuId& g) { return v.gpu->id < g; });
    if (it != views.end() && it->gpu->id == id) it->at_floor = true;
  }
}

// Where the request may go, as its reasons name it.
std::string ScopeName(const PlacementRequest& r) {
  if (r.gpu.has_value()) return GpuName(*r.gpu);
  if (r.host.empty()) return "the cluster";
  return absl::StrCat("host ", r.host);
}

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

// The job placed on views[chosen] (one GPU, or a gang on all of them).
PlacementDecision PlacedOn(std::span<const GpuView> views, std::span<const size_t> chosen,
                           std::string reason) {
  if (chosen.size() == 1) {
    return PlacementDecision::Placed(views[chosen[0]].gpu->id, std::move(reason));
  }
  std::vector<GpuId> gpus;
  for (size_t c : chosen) gpus.push_back(views[c].gpu->id);
  return PlacementDecision::PlacedGang(std::move(gpus), std::move(reason));
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

// The guaranteed jobs on `gpus` (of `views`): those a job placed there as an
// opportunistic one yields to.
std::vector<std::string> GuaranteedOn(std::span<const GpuView> views,
                                      const std::vector<GpuId>& gpus) {
  std::vector<std::string> guaranteed;
  for (const GpuView& v : views) {
    if (std::find(gpus.begin(), gpus.end(), v.gpu->id) == gpus.end()) continue;
    for (const PlacedJob& j : v.jobs) {
      if (j.priority == Priority::kGuaranteed) guaranteed.push_back(j.job);
    }
  }
  return guaranteed;
}

// What a yielding job's reason ends with (PlacementDecision::yields).
std::string YieldsTo(const std::vector<std::string>& guaranteed) {
  return absl::StrCat("; yields to guaranteed ", absl::StrJoin(guaranteed, ", "),
                      ": opportunistic until ", guaranteed.size() == 1 ? "it ends" : "they end");
}

// A job free to join busy GPUs (PlacementRequest::join_busy_gpus): beside
// their residents, a guaranteed one yielding to a guaranteed job there
// (PlacementDecision::yields).
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
  // Beside a guaranteed job it yields: placed as an opportunistic job
  // would be, where a guaranteed job runs on one of the GPUs.
  PlacementRequest yielding = r;
  yielding.priority = Priority::kOpportunistic;
  PlacementDecision y = join(yielding);
  if (y.outcome != PlacementDecision::Outcome::kPlaced) return d;
  const std::vector<std::string> guaranteed = GuaranteedOn(scope.views, y.gpus);
  if (guaranteed.empty()) return d;
  y.yields = true;
  absl::StrAppend(&y.reason, YieldsTo(guaranteed));
  return y;
}

// The most GPUs one node of the scope has.
size_t LargestNode(const Scope& scope) {
  size_t largest = 0;
  for (size_t n = 0; n + 1 < scope.nodes.size(); ++n) {
    largest = std::max(largest, scope.nodes[n + 1] - scope.nodes[n]);
  }
  return largest;
}

// What a whole node is worth to a job wider than a node: it runs at its
// slowest rank's pace, so the least any GPU there leaves the job, then what
// the residents lose.
struct NodeChoice {
  size_t node = 0;  // into Scope::nodes
  double p_new = 1;
  double loss = 0;
};

// A job wider than a node (more GPUs than any node of the scope has): whole
// nodes, every GPU of each, as Slurm gives a job of several nodes (srun -N
// k/g --gres=gpu:g). A node qualifies when every GPU of it can take a rank
// now: empty, or, for a job that may join busy GPUs, held by no gang (Slurm
// gives no gang's GPUs to another) and passing the rules a GPU of one node
// must (Scorer::Score). Of those, the k/g nodes that leave the job most of
// its speed (ties: what the residents lose, then node order), whatever
// min_gain says: the scheduler runs it on whole nodes anyway, and this only
// says which. A guaranteed job that finds too few without a guaranteed job
// yields there, as on one node (JoinBusyGpus).
PlacementDecision PlaceOnWholeNodes(const PlacementRequest& r, const Scope& scope,
                                    const std::string& where,
                                    const InterferencePredictor* predictor, const ShareRule* rule,
                                    const InterferenceAwarePlacement::Options& options) {
  const std::vector<GpuView>& views = scope.views;
  const size_t per_node = LargestNode(scope);
  const size_t k = static_cast<size_t>(r.gpu_count);
  if (per_node == 0 || k % per_node != 0) {
    return PlacementDecision::Rejected(
        absl::StrCat("a job of ", k, " GPUs is wider than a node of ", per_node, " on ", where,
                     " and not whole nodes: ask for a multiple of ", per_node));
  }
  const size_t wanted = k / per_node;
  size_t whole = 0;
  for (size_t n = 0; n + 1 < scope.nodes.size(); ++n) {
    bool fits = scope.nodes[n + 1] - scope.nodes[n] == per_node;
    for (size_t i = scope.nodes[n]; fits && i < scope.nodes[n + 1]; ++i) fits = views[i].fits_ever;
    whole += fits ? 1 : 0;
  }
  if (whole < wanted) {
    return PlacementDecision::Rejected(
        absl::StrCat("a job of ", k, " GPUs needs ", wanted, " whole nodes of ", per_node, " with ",
                     Asked(r.mem_bytes), " a GPU; ", where, " has ", whole));
  }
  // `past_gangs`: as if the gangs there had ended (a preference for later).
  const auto choose = [&](const PlacementRequest& request, Blocker* blocker, bool past_gangs) {
    std::vector<NodeChoice> nodes;
    std::optional<Scorer> scorer;
    if (predictor != nullptr) scorer.emplace(request, *predictor, rule, options);
    std::vector<PlacedJob> others;
    for (size_t n = 0; n + 1 < scope.nodes.size(); ++n) {
      if (scope.nodes[n + 1] - scope.nodes[n] != per_node) continue;
      NodeChoice c{.node = n};
      bool fits = true;
      for (size_t i = scope.nodes[n]; fits && i < scope.nodes[n + 1]; ++i) {
        GpuView v = views[i];
        if (past_gangs) {
          others.clear();
          for (const PlacedJob& j : v.jobs) {
            if (j.gpu_count <= 1) others.push_back(j);
          }
          // The loop's floor may be a gang's doing: said of now, not of then.
          if (others.size() < v.jobs.size()) v.at_floor = false;
          v.jobs = others;
        }
        fits = v.fits_ever;
        if (!fits || v.jobs.empty()) continue;
        fits = JoinsBusyGpus(request) && scorer.has_value() &&
               std::none_of(v.jobs.begin(), v.jobs.end(),
                            [](const PlacedJob& j) { return j.gpu_count > 1; });
        GpuScore s;
        fits = fits && scorer->Score(v, &s, blocker);
        c.p_new = std::min(c.p_new, s.p_new);
        c.loss += s.loss;
      }
      if (fits) nodes.push_back(c);
    }
    std::stable_sort(nodes.begin(), nodes.end(), [](const NodeChoice& a, const NodeChoice& b) {
      return a.p_new != b.p_new ? a.p_new > b.p_new : a.loss < b.loss;
    });
    if (nodes.size() > wanted) nodes.resize(wanted);
    return nodes;
  };
  // Their hosts and GPUs, in node order.
  const auto in_node_order = [&](std::vector<NodeChoice>& nodes, std::vector<std::string>* hosts,
                                 std::vector<size_t>* gpus) {
    std::sort(nodes.begin(), nodes.end(),
              [](const NodeChoice& a, const NodeChoice& b) { return a.node < b.node; });
    for (const NodeChoice& c : nodes) {
      hosts->push_back(views[scope.nodes[c.node]].gpu->id.host);
      for (size_t i = scope.nodes[c.node]; i < scope.nodes[c.node + 1]; ++i) gpus->push_back(i);
    }
  };
  Blocker blocker;
  std::vector<NodeChoice> chosen = choose(r, &blocker, false);
  bool yields = false;
  PlacementRequest yielding = r;
  yielding.priority = Priority::kOpportunistic;
  const bool may_yield = r.priority == Priority::kGuaranteed && JoinsBusyGpus(r);
  if (chosen.size() < wanted && may_yield) {
    Blocker ignored;
    chosen = choose(yielding, &ignored, false);
    yields = chosen.size() == wanted;
  }
  if (chosen.size() < wanted) {
    std::string reason = absl::StrCat("no ", wanted, " whole nodes on ", where,
                                      " can take a job of ", k, " GPUs now");
    if (blocker.why != Blocker::Why::kNone) {
      absl::StrAppend(&reason, " (e.g. ", Explain(blocker, r, options.max_jobs_per_gpu), ")");
    }
    PlacementDecision d = PlacementDecision::Queued(std::move(reason));
    if (JoinsBusyGpus(r)) {
      // Where it would go once the gangs there end, for the scheduler to
      // prefer then (the job waits in its queue meanwhile).
      Blocker ignored;
      std::vector<NodeChoice> later = choose(r, &ignored, true);
      if (later.size() < wanted && may_yield) later = choose(yielding, &ignored, true);
      if (later.size() == wanted) {
        std::vector<std::string> hosts;
        std::vector<size_t> gpus;
        in_node_order(later, &hosts, &gpus);
        for (size_t i : gpus) d.preferred.push_back(views[i].gpu->id);
        absl::StrAppend(&d.reason, "; once the gangs there end, whole nodes ",
                        absl::StrJoin(hosts, ", "));
      }
    }
    return d;
  }
  double p_new = 1, loss = 0;
  for (const NodeChoice& c : chosen) {
    p_new = std::min(p_new, c.p_new);
    loss += c.loss;
  }
  std::vector<std::string> hosts;
  std::vector<size_t> gpus;
  in_node_order(chosen, &hosts, &gpus);
  PlacementDecision d =
      PlacedOn(views, gpus,
               absl::StrFormat("whole nodes %s: the job at %.2f of its speed, residents lose %.3f",
                               absl::StrJoin(hosts, ", "), p_new, loss));
  d.yields = yields;
  if (yields) absl::StrAppend(&d.reason, YieldsTo(GuaranteedOn(views, d.gpus)));
  return d;
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

}  // namespace

InterferenceAwarePlacement::InterferenceAwarePlacement(const InterferencePredictor* predictor,
                                                       const ShareRule* rule, Options options,
                                                       const RequestMix* mix)
    : predictor_(predictor), rule_(rule), options_(options), mix_(mix) {}

PlacementDecision InterferenceAwarePlacement::Place(const PlacementRequest& r,
                                                    const ClusterState& state) const {
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
    return PlaceOnWholeNodes(r, scope, where, predictor_, rule_, options_);
  }
  std::vector<const GpuInfo*> empty;
  if (auto rejected = RejectImpossible(r, scope, where, &empty)) return *std::move(rejected);
  const bool pack = mix_ != nullptr && !mix_->Classes().empty() && k == 1 && r.mem_bytes > 0 &&
                    predictor_ != nullptr;
  if (!pack) {
    if (auto alone = PlaceExclusive(r, scope, empty, k)) return *std::move(alone);
  }
  if (predictor_ == nullptr) {
    return PlacementDecision::Queued("no empty GPU, and no interference predictor to share one");
  }
  if (JoinsBusyGpus(r)) return JoinBusyGpus(r, scope, where, *predictor_, rule_, options_);
  Scorer scorer(r, *predictor_, rule_, options_);
  if (pack) {
    Packing packing = StartPacking(r, state, scope, *mix_, options_.max_jobs_per_gpu);
    SharedChoice packed = ChooseShared(scope, scorer, options_, k, r, &packing);
    const std::vector<const GpuInfo*> alone = EmptyOnItsSide(r, scope, empty, 1);
    if (!alone.empty()) {
      const auto it = std::find_if(scope.views.begin(), scope.views.end(),
                                   [&](const GpuView& v) { return v.gpu == alone.front(); });
      const size_t i = static_cast<size_t>(it - scope.views.begin());
      // Alone, the job keeps all of its speed (gain 1) and harms no one.
      const double alone_added = packing.Added(scope, i, r.mem_bytes, options_.max_jobs_per_gpu);
      const double alone_packed = 1.0 - packing.pressure * alone_added;
      if (packed.gpus.empty() || packed.score.packed <= alone_packed) {
        return PlacementDecision::Placed(alone.front()->id, "an empty GPU");
      }
      // Say why the empty GPU was passed over.
      PlacementDecision d = Admit(r, scope, packed, where, options_);
      absl::StrAppendFormat(
          &d.reason,
          "; packed rather than alone on %s: fragmentation %+.3f GPUs there, %+.3f here, at "
          "pressure %.2f",
          GpuName(alone.front()->id), alone_added,
          packing.Added(scope, packed.gpus.front(), r.mem_bytes, options_.max_jobs_per_gpu),
          packing.pressure);
      return d;
    } else if (packed.gpus.empty() && packed.best_any.has_value()) {
      // Nothing admissible: queued, naming the best candidate and its gain.
      packed.gpus = {*packed.best_any};
      packed.score = packed.best_any_score;
    }
    return Admit(r, scope, packed, where, options_);
  }
  return Admit(r, scope, ChooseShared(scope, scorer, options_, k, r, nullptr), where, options_);
}

}  // namespace iashim::policy
