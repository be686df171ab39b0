#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "coordinator/clustersim/internal/simulation.h"
#include "coordinator/clustersim/internal/throttled_loss.h"
#include "coordinator/policy/protective_share.h"
#include "coordinator/policy/run_slowdown.h"

namespace iashim::clustersim::sim_internal {

std::vector<int> Simulation::CoRunners(int job, int gpu) const {
  std::vector<int> others;
  for (int j : on_gpu_[gpu]) {
    if (j != job && !running_[j].waiting_for_gpus) others.push_back(j);
  }
  return others;
}

double Simulation::KeptBeside(int job, int gpu) const {
  const std::vector<int> others = CoRunners(job, gpu);
  if (others.empty()) return 1.0;
  // A gang's rank runs like the one-GPU job of its model.
  const auto one_gpu = [&](int j) { return JobType{jobs_[j].type.name, 1}; };
  const JobType mine = one_gpu(job);
  const std::optional<double> solo = truth_.Solo(mine);
  // Unmeasured: a fair time slice each.
  const double fair = 1.0 / static_cast<double>(others.size() + 1);
  if (!solo.has_value() || !(*solo > 0) || others.size() > 2) return fair;
  std::optional<double> beside;
  if (others.size() == 2) {
    beside = truth_.Triple(mine, one_gpu(others[0]), one_gpu(others[1]));
  } else if (const std::optional<PairThroughput> pair = truth_.Pair(mine, one_gpu(others[0]))) {
    beside = pair->a;
  }
  return beside.has_value() ? std::clamp(*beside / *solo, 0.0, 1.0) : fair;
}

double Simulation::WaitingRanksLoss(int job, int gpu, bool throttled_here) const {
  double loss = 0;
  for (int other : CoRunners(job, gpu)) {
    if (IsGang(other) && !Guaranteed(other) && (throttled_here || GangShare(other) < 1.0)) {
      loss += config_.throttled_rank_wait_loss;
    }
  }
  return loss;
}

std::optional<int> Simulation::GuaranteedCoRunner(int job, int gpu) const {
  for (int other : CoRunners(job, gpu)) {
    if (Guaranteed(other)) return other;
  }
  return std::nullopt;
}

double Simulation::LossBeside(int job, int gpu, double pace) const {
  const std::optional<int> guaranteed = GuaranteedCoRunner(job, gpu);
  if (!guaranteed.has_value()) return LossAtPace(LossesBeside(job, gpu), pace);
  // Beside a guaranteed job, never held for it, and the rest held to
  // `pace`: at most one more (a GPU runs two shard jobs and a gang's rank),
  // busy that fraction of the time.
  const double together = 1.0 - KeptBeside(job, gpu);
  if (CoRunners(job, gpu).size() < 2) return together;
  const std::optional<double> beside_guaranteed = PairLoss(job, *guaranteed);
  // Unmeasured: as if the held one ran all the time.
  if (!beside_guaranteed.has_value()) return together;
  return (1.0 - pace) * *beside_guaranteed + pace * together;
}

double Simulation::PaceForLossBeside(int job, int gpu, double loss) const {
  if (!GuaranteedCoRunner(job, gpu).has_value()) return PaceForLoss(LossesBeside(job, gpu), loss);
  // Linear in the pace (LossBeside).
  const double at_least = LossBeside(job, gpu, 0.0), at_most = LossBeside(job, gpu, 1.0);
  if (at_most <= loss) return 1.0;
  if (at_least >= loss) return 0.0;
  return (loss - at_least) / (at_most - at_least);
}

CoRunnerLosses Simulation::LossesBeside(int job, int gpu) const {
  const double together = 1.0 - KeptBeside(job, gpu);
  const std::vector<int> others = CoRunners(job, gpu);
  if (others.size() != 2) return InProportionToPace(together);
  const std::optional<double> alone_a = PairLoss(job, others[0]);
  const std::optional<double> alone_b = PairLoss(job, others[1]);
  if (!alone_a.has_value() || !alone_b.has_value()) return InProportionToPace(together);
  return CoRunnerLosses{*alone_a, *alone_b, together};
}

std::optional<double> Simulation::PairLoss(int job, int other) const {
  // A gang's rank runs like the one-GPU job of its model.
  const JobType mine{jobs_[job].type.name, 1};
  const std::optional<double> solo = truth_.Solo(mine);
  const std::optional<PairThroughput> pair = truth_.Pair(mine, {jobs_[other].type.name, 1});
  if (!solo.has_value() || !(*solo > 0) || !pair.has_value()) return std::nullopt;
  return 1.0 - std::clamp(pair->a / *solo, 0.0, 1.0);
}

double Simulation::ShareOn(int gpu) const {
  std::vector<int> guaranteed;
  size_t running = 0;
  for (int j : on_gpu_[gpu]) {
    if (running_[j].waiting_for_gpus) continue;
    ++running;
    if (Guaranteed(j)) guaranteed.push_back(j);
  }
  // None to hold, or no one to throttle for them.
  if (guaranteed.empty() || running == guaranteed.size()) return 1.0;
  double share = 1.0;
  for (int g : guaranteed) {
    const double allowed = 1.0 - policy::ThroughputFloor(LoopTargetOf(g));
    double pace = PaceForLossBeside(g, gpu, allowed);
    // Cut, the gangs' ranks here wait in their collectives too.
    if (pace < 1.0) pace = PaceForLossBeside(g, gpu, allowed - WaitingRanksLoss(g, gpu, true));
    share = std::min(share, pace);
  }
  return std::min(1.0, std::max(config_.min_share, share));
}

double Simulation::RunSlowdownOf(int job) const {
  const Running& r = running_[job];
  const double remaining = std::max(0.0, r.remaining - r.rate * (now_ - r.since));
  // Its start-up counts as work at its pace (SimConfig::start_up), so the
  // ratio is its iterations' as the live loop reads them.
  const double done_alone_s =
      (jobs_[job].total_steps - remaining) / solo_rate_[job] + StartUpS(job);
  return done_alone_s > 0 ? (now_ - out_[job].start_s) / done_alone_s - 1 : 0;
}

// The daemon's loop holds a guaranteed job's slowdown at its quiet headroom
// times its target, once its measurement is steady (policy/share_controller.h),
// and repays a run over that aim (policy/run_slowdown.h).
constexpr double kLoopAim = policy::ShareControllerOptions{}.quiet_headroom;

double Simulation::LoopTargetOf(int job) const {
  return kLoopAim * policy::RepaidTarget(config_.slowdown_target, RunSlowdownOf(job), kLoopAim,
                                         policy::RunSlowdown::Options{}.floor);
}

// A run held at its aim reads it give or take rounding: repaid only past
// this (relative to the aim).
constexpr double kRepayTolerance = 1e-6;
bool Simulation::Repaying(int job) const {
  return !running_[job].waiting_for_gpus && Guaranteed(job) &&
         RunSlowdownOf(job) > kLoopAim * config_.slowdown_target * (1 + kRepayTolerance);
}

double Simulation::NextRepayCheck() const {
  double next = std::numeric_limits<double>::infinity();
  if (!config_.share_control) return next;
  for (size_t g = 0; g < on_gpu_.size(); ++g) {
    for (int j : on_gpu_[g]) {
      // Only where a lower target can still cut the others here.
      if (!Repaying(j) || CoRunners(j, int(g)).empty() || ShareOn(int(g)) <= config_.min_share)
        continue;
      const double age = now_ - out_[j].start_s;
      next = std::min(next, now_ + std::max(config_.control_period_s, 0.01 * age));
    }
  }
  return next;
}

void Simulation::RetimeRepaying() {
  std::vector<int> jobs;
  for (size_t g = 0; g < on_gpu_.size(); ++g) {
    if (std::any_of(on_gpu_[g].begin(), on_gpu_[g].end(), [&](int j) { return Repaying(j); }))
      jobs.insert(jobs.end(), on_gpu_[g].begin(), on_gpu_[g].end());
  }
  std::sort(jobs.begin(), jobs.end());
  jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
  RetimeWithGangs(jobs);
}

double Simulation::GangShare(int gang) const {
  double share = 1.0;
  for (int g : running_[gang].gpus) share = std::min(share, ShareOn(g));
  return share;
}

double Simulation::ControlledKept(int job, int gpu) const {
  const double kept = KeptBeside(job, gpu);
  if (!config_.share_control) return kept;
  // An opportunistic gang runs at the least share any of its GPUs gives it.
  if (IsGang(job) && !Guaranteed(job)) return kept * GangShare(job);
  double share = ShareOn(gpu);
  // The jobs beside an opportunistic gang throttled here or elsewhere lose
  // only while its rank runs: that share of the time.
  const std::vector<int> others = CoRunners(job, gpu);
  if (others.size() == 1 && IsGang(others[0]) && !Guaranteed(others[0])) {
    share = std::min(share, GangShare(others[0]));
  }
  if (share >= 1.0) return kept;
  // Harm in proportion to the share (policy/protective_share.h), two
  // co-runners' adding at a low one (throttled_loss.h): the guaranteed side
  // loses that and what throttled gangs' ranks here lose it waiting, the
  // others keep kept * share.
  if (Guaranteed(job) || ShareOn(gpu) >= 1.0)
    return std::max(0.0, 1.0 - LossBeside(job, gpu, share) - WaitingRanksLoss(job, gpu, false));
  return kept * share;
}

bool Simulation::GangWaits(int job) const {
  if (!config_.share_control || !IsGang(job) || !MemoryModelled()) return false;
  for (int g : running_[job].gpus) {
    // It joins in the memory they leave: some must be.
    double held = 0;
    for (int other : CoRunners(job, g)) held += MemoryShareOf(traits_[other].kind);
    if (held > 1.0 - 1e-9) return true;
  }
  return false;
}

double Simulation::RateOf(int job) const {
  const Running& r = running_[job];
  if (r.waiting_for_gpus) return 0;
  if (IsGang(job)) {
    double kept = 1.0;  // the gang goes at its slowest rank's pace
    for (int g : r.gpus) kept = std::min(kept, ControlledKept(job, g));
    return solo_rate_[job] * kept;
  }
  const std::vector<int> others = CoRunners(job, r.gpus[0]);
  if (others.empty()) return solo_rate_[job];
  if (others.size() > 1 || IsGang(others[0])) {
    return solo_rate_[job] * ControlledKept(job, r.gpus[0]);
  }
  const int other = others[0];
  const double paired = truth_.Pair(jobs_[job].type, jobs_[other].type)->a;  // Validate checked it
  // One guaranteed job, held at its floor by throttling the other (SimConfig);
  // none or two, or one at its floor or above without throttling: 1.
  const double share = config_.share_control ? ShareOn(r.gpus[0]) : 1.0;
  if (share >= 1.0) return paired;
  if (!Guaranteed(job)) return paired * share;
  const double p_g = paired / solo_rate_[job];
  return solo_rate_[job] * (1.0 - (1.0 - p_g) * share);
}

void Simulation::Retime(int job) {
  Running& r = running_[job];
  r.remaining = std::max(0.0, r.remaining - r.rate * (now_ - r.since));
  r.since = now_;
  if (r.waiting_for_gpus && !GangWaits(job)) {
    r.waiting_for_gpus = false;  // what kept it waiting ended: it starts
    out_[job].start_s = now_;
  }
  r.rate = RateOf(job);
  ++r.version;
  if (r.rate > 0) completions_.push({now_ + r.remaining / r.rate, job, r.version});
  for (int g : r.gpus) UpdateOccupancy(g);
}

void Simulation::RetimeWithGangs(const std::vector<int>& jobs) {
  for (int job : jobs) Retime(job);
  if (!config_.share_control) return;
  for (int job : jobs) {
    if (!IsGang(job)) continue;
    for (int g : running_[job].gpus) {
      for (int other : on_gpu_[g]) {
        if (other != job) Retime(other);
      }
    }
  }
}

}  // namespace iashim::clustersim::sim_internal
