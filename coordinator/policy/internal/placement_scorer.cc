#include "coordinator/policy/internal/placement_scorer.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "coordinator/policy/cluster_state.h"
#include "coordinator/policy/protective_share.h"

namespace iashim::policy::placement_internal {
namespace {

// Lenience on the slowdown-target comparison, so a prediction exactly at the
// target is not excluded by rounding.
constexpr double kEpsilon = 1e-12;

int Weight(const PlacedJob& j) { return std::max(1, j.gpu_count); }

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

// Records why `view` cannot take the job, unless `blocker` already holds a
// reason (the first GPU's becomes the queued reason); false, for `return`.
bool Blocked(Blocker* blocker, const GpuView& view, Blocker::Why why,
             const PlacedJob* resident = nullptr, double throughput = 0, double target = 0) {
  if (blocker->why == Blocker::Why::kNone) {
    *blocker = {why, &view, resident, throughput, target};
  }
  return false;
}

}  // namespace

Scorer::Scorer(const PlacementRequest& request, const InterferencePredictor& predictor,
               const ShareRule* rule, const InterferenceAwarePlacement::Options& options)
    : request_(request),
      predictor_(predictor),
      rule_(rule),
      options_(options),
      rest_of_running_step_(JoinsBusyGpus(request) && !request.step_runs_on.empty()) {
  cache_.reserve(64);
}

bool Scorer::Score(const GpuView& view, GpuScore* score, Blocker* blocker) {
  const std::span<const PlacedJob> jobs = view.jobs;
  // Cheap rules first: most GPUs of a busy cluster fail one of them.
  if (options_.max_jobs_per_gpu > 0 &&
      jobs.size() >= static_cast<size_t>(options_.max_jobs_per_gpu)) {
    return Blocked(blocker, view, Blocker::Why::kFull);
  }
  // GPUs joined while busy (PlacementRequest::join_busy_gpus) are shared in
  // what memory the residents leave: what the job asked, or some.
  const uint64_t asked =
      JoinsBusyGpus(request_) && request_.mem_bytes == 0 ? 1 : request_.mem_bytes;
  if (!FitsNow(*view.gpu, jobs, asked)) return Blocked(blocker, view, Blocker::Why::kMemory);
  const bool guaranteed = request_.priority == Priority::kGuaranteed;
  if (guaranteed) {
    for (const PlacedJob& r : jobs) {
      // Throttling opportunistic jobs cannot defend two targets at once.
      if (r.priority == Priority::kGuaranteed)
        return Blocked(blocker, view, Blocker::Why::kTwoGuaranteed, &r);
    }
  }
  // The loop there already spends all it may on its guaranteed job: the
  // measurement outranks the model's prediction of room.
  if (view.at_floor && !rest_of_running_step_)
    return Blocked(blocker, view, Blocker::Why::kAtFloor);
  pairs_.clear();
  for (const PlacedJob& r : jobs) {
    // A copy: the cache may rehash as it grows.
    const PairInfo pair = Pair(r);
    if (!pair.may_share) return Blocked(blocker, view, Blocker::Why::kShareRule, &r);
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
    return ScoreProtected(view, s, resident_guaranteed, score, blocker);
  }
  if (guaranteed && !rest_of_running_step_ &&
      s.p_new < ThroughputFloor(request_.slowdown_target) - kEpsilon) {
    return Blocked(blocker, view, Blocker::Why::kNewTarget, nullptr, s.p_new,
                   request_.slowdown_target);
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    const ResidentEffect e = Effect(view, i, pairs_[i]);
    const PlacedJob& r = jobs[i];
    if (r.priority == Priority::kGuaranteed && !rest_of_running_step_ &&
        e.after < ThroughputFloor(r.slowdown_target) - kEpsilon) {
      return Blocked(blocker, view, Blocker::Why::kResidentTarget, &r, e.after, r.slowdown_target);
    }
    s.loss += e.loss;
    s.unc_loss += e.unc;
  }
  *score = s;
  return true;
}

SetScore Scorer::ScoreSet(std::span<const GpuView> views, std::span<const size_t> chosen,
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
bool Scorer::ScoreProtected(const GpuView& view, GpuScore s, const PlacedJob* resident_guaranteed,
                            GpuScore* score, Blocker* blocker) {
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
    if (new_guaranteed)
      return Blocked(blocker, view, Blocker::Why::kNewTarget, nullptr, after_[g], target);
    return Blocked(blocker, view, Blocker::Why::kResidentTarget, resident_guaranteed, after_[g],
                   target);
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
double Scorer::Unthrottled(const GpuView& view, size_t i) const {
  double p = 1;
  for (size_t j = 0; j < view.jobs.size(); ++j) {
    if (j != i) p *= Sane(predictor_.Predict(view.jobs[i].traits, view.jobs[j].traits)).throughput;
  }
  return p;
}

const Scorer::PairInfo& Scorer::Pair(const PlacedJob& resident) {
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
Scorer::ResidentEffect Scorer::Effect(const GpuView& view, size_t i, const PairInfo& pair) const {
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

}  // namespace iashim::policy::placement_internal
