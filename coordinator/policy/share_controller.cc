#include "coordinator/policy/share_controller.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "coordinator/policy/hash.h"

namespace iashim::policy {
namespace {

constexpr double kNsPerS = 1e9;
constexpr double kEpsilon = 1e-9;
// For normal noise of standard deviation s, the difference of two samples has
// standard deviation s * sqrt(2) and its absolute value a median of 0.6745
// times that: s = median |difference| / 0.9539.
constexpr double kSdPerMedianAbsDiff = 1.0 / (0.6745 * 1.41421356);
// The headroom stays at least this far above the calm threshold.
constexpr double kMinBandWidth = 0.05;
// The noise assumed, in ratio units, while the measurement's is not known or
// smaller: a floor given back is not taken back for less.
constexpr double kMinReleaseNoise = 0.025;
// A release must give the co-runners at least this much more than the floor.
constexpr double kMinReleaseGain = 1.2;

double SecondsSince(int64_t now_ns, std::optional<int64_t> then_ns) {
  if (!then_ns.has_value()) return INFINITY;
  // In double: a corrupt persisted time must not overflow the subtraction.
  return (static_cast<double>(now_ns) - static_cast<double>(*then_ns)) / kNsPerS;
}

double Total(const std::vector<JobShare>& shares) {
  double total = 0;
  for (const JobShare& s : shares) total += s.share;
  return total;
}

// Order-independent hash of who is on the GPU: a ceiling learned for one set
// of jobs says nothing about another.
uint64_t Membership(std::span<const GuaranteedJob> guaranteed,
                    std::span<const OpportunisticJob> opportunistic) {
  std::vector<std::string_view> g;
  std::vector<std::string_view> o;
  for (const GuaranteedJob& j : guaranteed) g.push_back(j.job);
  for (const OpportunisticJob& j : opportunistic) o.push_back(j.job);
  std::sort(g.begin(), g.end());
  std::sort(o.begin(), o.end());
  uint64_t h = kFnvOffset;
  for (std::string_view id : g) h = Fnv1a(std::string_view("\0", 1), Fnv1a(id, Fnv1a("g", h)));
  for (std::string_view id : o) h = Fnv1a(std::string_view("\0", 1), Fnv1a(id, Fnv1a("o", h)));
  return h;
}

// Multiplies every share by `factor`, none below `min`. True if any fell.
bool Scale(double factor, double min, std::vector<JobShare>& shares) {
  bool fell = false;
  for (JobShare& s : shares) {
    const double scaled = std::max(min, s.share * factor);
    fell = fell || scaled < s.share - kEpsilon;
    s.share = scaled;
  }
  return fell;
}

// Adds `delta` to the total in equal parts, capping each share at `max` and
// handing what a capped job cannot take to the others.
void Distribute(double delta, double max, std::vector<JobShare>& shares) {
  for (size_t round = 0; round <= shares.size() && delta > kEpsilon; ++round) {
    size_t open = 0;
    for (const JobShare& s : shares) open += s.share < max - kEpsilon ? 1 : 0;
    if (open == 0) return;
    const double each = delta / static_cast<double>(open);
    for (JobShare& s : shares) {
      if (s.share >= max - kEpsilon) continue;
      const double add = std::min(each, max - s.share);
      s.share += add;
      delta -= add;
    }
  }
}

}  // namespace

std::string_view ShareActionName(ShareAction action) {
  switch (action) {
    case ShareAction::kIdle:
      return "idle";
    case ShareAction::kUnthrottle:
      return "unthrottle";
    case ShareAction::kCut:
      return "cut";
    case ShareAction::kConfirm:
      return "confirm";
    case ShareAction::kSettle:
      return "settle";
    case ShareAction::kFloor:
      return "floor";
    case ShareAction::kRaise:
      return "raise";
    case ShareAction::kHoldUnknown:
      return "hold: slowdown unknown";
    case ShareAction::kTrim:
      return "trim";
    case ShareAction::kHoldBand:
      return "hold: within band";
    case ShareAction::kHoldCooldown:
      return "hold: cooldown";
    case ShareAction::kHoldCalming:
      return "hold: calming";
    case ShareAction::kHoldCeiling:
      return "hold: at ceiling";
    case ShareAction::kRelease:
      return "release: the floor bought too little";
    case ShareAction::kReleaseTrimmed:
      return "release trimmed: it cost more than its allowance";
    case ShareAction::kHoldReleased:
      return "hold: the floor bought too little";
  }
  return "unknown";
}

ShareController::ShareController(ShareControllerOptions options, ShareControllerState state)
    : options_(options), state_(std::move(state)) {}

ShareStep ShareController::Step(int64_t now_ns, std::span<const GuaranteedJob> guaranteed,
                                std::span<const OpportunisticJob> opportunistic) {
  ShareStep out;
  const double min_share = options_.min_share;
  const double max_share = std::max(options_.max_share, min_share);
  for (const OpportunisticJob& j : opportunistic) {
    // Written so that NaN takes the floor.
    const double share = j.share >= min_share ? std::min(j.share, max_share) : min_share;
    out.shares.push_back({j.job, share});
  }

  // A clock behind the state's (state restored under a new CLOCK_MONOTONIC):
  // the timers mean nothing any more; the ceiling still does.
  if (state_.last_step_ns.has_value() && now_ns < *state_.last_step_ns) {
    state_.last_cut_ns.reset();
    state_.calm_since_ns.reset();
    state_.last_step_ns.reset();
  }
  const double dt_s =
      state_.last_step_ns.has_value() ? SecondsSince(now_ns, state_.last_step_ns) : 0.0;
  state_.last_step_ns = now_ns;

  if (out.shares.empty()) {
    out.action = ShareAction::kIdle;
    return out;
  }
  if (guaranteed.empty()) {
    // Nothing to protect: the GPU is the opportunistic jobs'. Whatever was
    // learned about a guaranteed job no longer applies.
    const double in_force = Total(out.shares);
    state_ = ShareControllerState{};
    state_.last_step_ns = now_ns;
    for (JobShare& s : out.shares) s.share = max_share;
    // A guaranteed job that joins is met by the daemon's cap: a cut (above).
    state_.last_input_total = in_force;
    state_.last_output_total = Total(out.shares);
    out.action = ShareAction::kUnthrottle;
    return out;
  }

  const uint64_t membership = Membership(guaranteed, opportunistic);
  if (membership != state_.membership) {
    state_.membership = membership;
    state_.ceiling.reset();
    state_.calm_since_ns.reset();
    state_.violating = false;
    RestartSpread();
    state_.noise_count = state_.noise_next = 0;
    state_.ratio_sd = -1;
    EndEpisode();
    state_.released_total = 0;
  }
  if (state_.ceiling.has_value()) {
    *state_.ceiling *= std::exp(options_.ceiling_rise_per_s * std::max(0.0, dt_s));
    if (!std::isfinite(*state_.ceiling) ||
        *state_.ceiling > max_share * static_cast<double>(out.shares.size())) {
      state_.ceiling.reset();
    }
  }

  const auto effective = [&](double target) {
    if (!(std::isfinite(target) && target > 0)) target = options_.default_target;
    return std::max(target, options_.min_target);
  };
  bool any_unknown = false;
  std::optional<WorstRatio> worst;
  for (const GuaranteedJob& g : guaranteed) {
    if (!g.slowdown.has_value() || !std::isfinite(*g.slowdown)) {
      any_unknown = true;
      continue;
    }
    const double target = effective(g.slowdown_target);
    const double own_target = g.own_target > 0 ? effective(g.own_target) : target;
    const double ratio = *g.slowdown / target;
    const double own = *g.slowdown / own_target;
    if (!worst.has_value()) {
      worst = WorstRatio{ratio, own, target / own_target};
    } else {
      if (ratio > worst->loop) worst->own_per_loop = target / own_target;
      worst->loop = std::max(worst->loop, ratio);
      worst->own = std::max(worst->own, own);
    }
  }
  if (worst.has_value()) out.worst_ratio = worst->loop;

  // Cut from outside since the last step: a cut, whose effect the next one
  // waits for.
  const double in_force = Total(out.shares);
  if (state_.last_output_total > 0 &&
      in_force < std::min(state_.last_input_total, state_.last_output_total) - kEpsilon) {
    state_.last_cut_ns = now_ns;
    state_.last_change_ns = now_ns;
    RestartSpread();
  }
  if (out.worst_ratio.has_value()) NoteSpread(now_ns, *out.worst_ratio);
  out.action = Control(now_ns, worst, any_unknown, out.shares);
  state_.last_input_total = in_force;
  state_.last_output_total = Total(out.shares);
  if (out.action == ShareAction::kCut || out.action == ShareAction::kRaise ||
      out.action == ShareAction::kTrim || out.action == ShareAction::kRelease ||
      out.action == ShareAction::kReleaseTrimmed) {
    RestartSpread();  // the plant moves to a new point: measured afresh there
    state_.last_change_ns = now_ns;
  }
  // A floor given back still leaves no share for a newcomer.
  out.at_floor = state_.released_total > 0 ||
                 std::all_of(out.shares.begin(), out.shares.end(),
                             [&](const JobShare& s) { return s.share <= min_share + kEpsilon; });
  out.saturated = out.at_floor && out.worst_ratio.has_value() && *out.worst_ratio > 1;
  return out;
}

ShareAction ShareController::Control(int64_t now_ns, std::optional<WorstRatio> worst,
                                     bool any_unknown, std::vector<JobShare>& shares) {
  if (const std::optional<ShareAction> held = HoldReleased(now_ns, worst, shares)) {
    return *held;
  }
  const std::optional<double> worst_ratio =
      worst.has_value() ? std::optional<double>(worst->loop) : std::nullopt;
  // A known violation is acted on even when another job's slowdown is
  // unknown: protecting the job we can see beats waiting for one we cannot.
  if (worst_ratio.has_value() && *worst_ratio > 1) {
    state_.calm_since_ns.reset();
    if (!state_.violating) {
      // The episode's start, until the shares move (a cut here, or a gang's
      // share cut on another of its GPUs).
      const double total = Total(shares);
      if (state_.over.count == 0) {
        state_.episode_total = total;
        state_.episode = {};
      }
      if (std::abs(total - state_.episode_total) < kEpsilon) state_.episode.Add(worst->own);
    }
    state_.over.Add(worst->loop);
    return Cut(now_ns, *worst, shares);
  }
  // A violation that ended without a change of shares since its samples
  // (at the floor, or after a cut the measurement was still catching up
  // with) ended because the plant changed: its samples say nothing of the
  // operating point now, and left in its mean they would hold a raise back
  // for as long as it takes calm samples to outweigh them.
  if (state_.violating) RestartSpread();
  EndEpisode();
  if (any_unknown || !worst_ratio.has_value()) {
    state_.calm_since_ns.reset();
    return ShareAction::kHoldUnknown;
  }
  const Band band = CurrentBand();
  if (*worst_ratio >= band.calm) {
    state_.calm_since_ns.reset();
    return Trim(band, shares) ? ShareAction::kTrim : ShareAction::kHoldBand;
  }
  if (!state_.calm_since_ns.has_value()) {
    state_.calm_since_ns = now_ns;
    state_.calm = {};
  }
  state_.calm.Add(*worst_ratio);
  if (SecondsSince(now_ns, state_.last_cut_ns) < options_.cooldown_s) {
    return ShareAction::kHoldCooldown;
  }
  if (SecondsSince(now_ns, state_.calm_since_ns) < options_.calm_s) {
    return ShareAction::kHoldCalming;
  }
  // A mean, not the last sample: a raise is sized by (and the ceiling judged
  // on) a measurement with less noise. Preferably the mean of every sample
  // since the shares last changed: the calm run's own mean is biased low
  // under noise (a run counts as calm because its samples happened to be).
  const double calm_mean = state_.calm.Mean();
  const double ratio = state_.spread_n >= std::max<int64_t>(options_.noise_samples, 2)
                           ? std::max(calm_mean, OperatingPointMean())
                           : calm_mean;
  return Raise(ratio, SecondsSince(now_ns, state_.calm_since_ns), shares);
}

bool ShareController::Trim(const Band& band, std::vector<JobShare>& shares) {
  // Only on a known, steady measurement and a mean over long enough for the
  // measurement to have caught up (several of its time constants), and only
  // when the mean is above the band's upper half by more than its own
  // uncertainty: then the last raise landed closer to the target than it
  // aimed, and a small step back restores the margin that noise and a
  // measurement's bias need. Anywhere else in the band the controller holds.
  if (state_.ratio_sd < 0 || state_.spread_n < options_.trim_samples) return false;
  const double mean = OperatingPointMean();
  const double upper_half = (1.0 + band.headroom) / 2;
  const double standard_error = state_.ratio_sd / std::sqrt(static_cast<double>(state_.spread_n));
  if (mean - 2 * standard_error <= upper_half) return false;
  return Scale(std::max(band.headroom / mean, 1.0 - options_.max_trim), options_.min_share, shares);
}

double ShareController::OperatingPointMean() const {
  return state_.spread_n > 0 ? state_.spread_sum / static_cast<double>(state_.spread_n) : 0;
}

void ShareController::RestartSpread() {
  state_.spread_sum = state_.spread_last = 0;
  state_.spread_n = 0;
}

void ShareController::NoteSpread(int64_t now_ns, double ratio) {
  // The first sample at a new operating point is not differenced against the
  // last one at the old point (that difference is the change), nor are the
  // samples while the measurement catches up with the change.
  const bool caught_up = SecondsSince(now_ns, state_.last_change_ns) >= options_.decrease_hold_s;
  if (state_.spread_n > 0 && caught_up) {
    constexpr auto kRing = static_cast<int64_t>(ShareControllerState::kNoiseDiffs);
    const int64_t at = std::clamp<int64_t>(state_.noise_next, 0, kRing - 1);
    state_.noise_abs_diff[static_cast<size_t>(at)] = std::abs(ratio - state_.spread_last);
    state_.noise_next = (at + 1) % kRing;
    state_.noise_count = std::min(std::max<int64_t>(state_.noise_count, 0) + 1, kRing);
    if (state_.noise_count >= std::max<int64_t>(options_.noise_samples, 2) - 1) {
      std::array<double, ShareControllerState::kNoiseDiffs> sorted = state_.noise_abs_diff;
      const auto n = static_cast<size_t>(state_.noise_count);
      std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.begin() + n);
      state_.ratio_sd = sorted[n / 2] * kSdPerMedianAbsDiff;
    }
  }
  state_.spread_last = ratio;
  state_.spread_sum += ratio;
  ++state_.spread_n;
}

ShareController::Band ShareController::CurrentBand() const {
  const double floor = std::min(options_.min_calm_ratio, options_.calm_ratio);
  if (!(state_.ratio_sd >= 0)) return {floor, std::max(options_.headroom, floor + kMinBandWidth)};
  const double calm =
      std::clamp(1.0 - options_.noise_margin * state_.ratio_sd, floor, options_.calm_ratio);
  const double headroom =
      std::clamp(1.0 - options_.headroom_margin * state_.ratio_sd, calm + kMinBandWidth,
                 std::max(options_.quiet_headroom, calm + kMinBandWidth));
  return {calm, headroom};
}

ShareAction ShareController::Cut(int64_t now_ns, const WorstRatio& worst,
                                 std::vector<JobShare>& shares) {
  const double min_share = options_.min_share;
  if (std::all_of(shares.begin(), shares.end(),
                  [&](const JobShare& s) { return s.share <= min_share + kEpsilon; })) {
    return AtFloor(now_ns, worst, shares);
  }
  const double ratio = worst.loop;
  state_.floor_since_ns.reset();
  // One sample over target may be noise; a large excess is acted on at once.
  if (state_.over.count < options_.confirm_steps && ratio < options_.severe_ratio) {
    return ShareAction::kConfirm;
  }
  if (SecondsSince(now_ns, state_.last_cut_ns) < options_.decrease_hold_s) {
    state_.violating = true;
    return ShareAction::kSettle;
  }
  // The mean over the samples since the run began (or since the last cut):
  // less noisy than the last one, and not older than the last cut.
  const double mean_ratio = state_.over.Mean();
  const double total = Total(shares);
  if (!state_.violating) {
    // The first cut of an episode: `total` is where the target was crossed.
    // Later cuts in the same episode react to a measurement that may still
    // lag the earlier cut, so they do not lower the ceiling.
    if (!state_.ceiling.has_value() || total < *state_.ceiling) {
      state_.ceiling = total;
      state_.ceiling_gain = mean_ratio / total;
    }
  }
  state_.violating = true;
  double factor = std::clamp(1.0 - options_.decrease_gain * (mean_ratio - 1.0), options_.max_cut,
                             1.0 - options_.min_cut);
  // A large excess, confirmed (one sample may be noise): cut to where harm in
  // proportion to the share lands at the headroom, as a raise aims, instead
  // of halving. From full share the floor is four halvings, 12 s at
  // decrease_hold_s, and the seconds a guaranteed job spends 20-30% slow
  // meanwhile are repaid by holding its co-runners at the floor for far
  // longer (run_slowdown.h).
  if (state_.over.count >= options_.confirm_steps && mean_ratio >= options_.severe_ratio) {
    factor = std::min(factor, CurrentBand().headroom / mean_ratio);
  }
  Scale(factor, min_share, shares);
  state_.last_cut_ns = now_ns;
  state_.over = {};
  return ShareAction::kCut;
}

ShareAction ShareController::AtFloor(int64_t now_ns, const WorstRatio& worst,
                                     std::vector<JobShare>& shares) {
  state_.violating = true;
  if (!state_.floor_since_ns.has_value()) {
    state_.floor_since_ns = now_ns;
    state_.floor_samples = {};
  }
  // Samples while the measurement still catches up with the cut are not the
  // floor's.
  if (SecondsSince(now_ns, state_.floor_since_ns) >= options_.decrease_hold_s) {
    state_.floor_samples.Add(worst.own);
  }
  if (!(options_.futile_allowance > 0) || state_.episode.count == 0 ||
      state_.floor_samples.count < std::max<int64_t>(options_.futile_samples, 1)) {
    return ShareAction::kFloor;
  }
  const double floor_total = Total(shares);
  const double start_total = state_.episode_total;
  if (start_total < 2 * floor_total) return ShareAction::kFloor;  // too small a cut to judge by
  const double start_ratio = state_.episode.Mean();
  const double floor_ratio = state_.floor_samples.Mean();
  // Harm in proportion to the share: what each unit of total share cost.
  const double gain = std::max(0.0, (start_ratio - floor_ratio) / (start_total - floor_total));
  const double release = gain > 0
                             ? std::min(start_total, floor_total + options_.futile_allowance / gain)
                             : start_total;
  if (release < kMinReleaseGain * floor_total) return ShareAction::kFloor;
  Distribute(release - floor_total, std::max(options_.max_share, options_.min_share), shares);
  HoldTotal(now_ns, Total(shares));
  state_.released_floor_total = floor_total;
  state_.released_floor = state_.floor_samples;
  state_.release_ending_steps = 0;
  EndEpisode();  // the hold has its own rules; a later violation is a new episode
  return ShareAction::kRelease;
}

std::optional<ShareAction> ShareController::HoldReleased(int64_t now_ns,
                                                         std::optional<WorstRatio> worst,
                                                         std::vector<JobShare>& shares) {
  if (!(state_.released_total > 0)) return std::nullopt;
  // The noise is measured against the loop's target; the hold is judged
  // against the jobs' own.
  const double noise =
      std::max(state_.ratio_sd * (worst.has_value() ? worst->own_per_loop : 1.0), kMinReleaseNoise);
  if (worst.has_value()) {
    const double allowed = state_.released_floor.Mean() + options_.futile_allowance;
    if (worst->loop <= 1 || worst->own > allowed + 3 * noise) {
      if (++state_.release_ending_steps >= std::max<int64_t>(options_.confirm_steps, 1)) {
        state_.released_total = 0;
        return std::nullopt;
      }
    } else {
      state_.release_ending_steps = 0;
    }
  }
  // Given back, not taken away again by a gang's share cut on another GPU.
  const double total = Total(shares);
  if (total < state_.released_total) {
    Distribute(state_.released_total - total, std::max(options_.max_share, options_.min_share),
               shares);
  }
  if (worst.has_value()) {
    if (SecondsSince(now_ns, state_.released_since_ns) >= 2 * options_.decrease_hold_s) {
      state_.released.Add(worst->own);
    }
    // Judged every futile_samples samples (not at every one: many looks at
    // one noisy mean would find a cost that is not there).
    const double floor_total = state_.released_floor_total;
    const int64_t every = std::max<int64_t>(options_.futile_samples, 1);
    if (state_.released.count > 0 && state_.released.count % every == 0 &&
        state_.released_total > floor_total + kEpsilon) {
      const double cost = state_.released.Mean() - state_.released_floor.Mean();
      // The standard error of the difference of the two means.
      const double error = noise * std::sqrt(1 / static_cast<double>(state_.released.count) +
                                             1 / static_cast<double>(state_.released_floor.count));
      if (cost > options_.futile_allowance + 2 * error) {
        const double gain = cost / (state_.released_total - floor_total);
        const double trimmed =
            std::max(floor_total, floor_total + options_.futile_allowance / gain);
        Scale(trimmed / Total(shares), options_.min_share, shares);
        HoldTotal(now_ns, std::max(Total(shares), floor_total));
        return ShareAction::kReleaseTrimmed;
      }
    }
  }
  return ShareAction::kHoldReleased;
}

void ShareController::HoldTotal(int64_t now_ns, double total) {
  state_.released_total = total;
  state_.released_since_ns = now_ns;
  state_.released = {};
}

void ShareController::EndEpisode() {
  state_.violating = false;
  state_.over = {};
  state_.episode_total = 0;
  state_.episode = {};
  state_.floor_since_ns.reset();
}

ShareAction ShareController::Raise(double ratio, double calm_for_s, std::vector<JobShare>& shares) {
  const double total = Total(shares);
  const double n = static_cast<double>(shares.size());
  // Much less harm per unit of share than when the ceiling was set, over a
  // long calm run: the guaranteed job (or what it runs next to) has changed;
  // start afresh. A short run is not trusted for this: the runs that pass
  // for calm under noise are those whose samples happened to be low.
  if (state_.ceiling.has_value() && calm_for_s >= options_.ceiling_drop_calm_s &&
      ratio / total < options_.ceiling_gain_drop * state_.ceiling_gain) {
    state_.ceiling.reset();
  }
  // At least increase_step per job; from a low total, up to doubling it, so
  // that a job cut to the floor climbs back in a few raises rather than many.
  const double step = std::max(options_.increase_step * n, total);
  double limit = std::max(options_.max_share, options_.min_share) * n;
  // If harm grows (at most) in proportion to the total share, this total
  // brings the worst ratio to `headroom`.
  if (ratio > 0) limit = std::min(limit, total * CurrentBand().headroom / ratio);
  if (state_.ceiling.has_value()) {
    const double below_ceiling = *state_.ceiling * (1.0 - options_.ceiling_margin);
    // Creeping up behind the slowly rising ceiling in slivers would end each
    // calm run (so the plant-change test above never gets a long one) and
    // buys little: wait until a quarter step fits.
    if (below_ceiling < limit) {
      limit = below_ceiling < total + 0.25 * step ? total : below_ceiling;
    }
  }
  const double target_total = std::min(limit, total + step);
  if (target_total <= total + 1e-6) return ShareAction::kHoldCeiling;
  Distribute(target_total - total, std::max(options_.max_share, options_.min_share), shares);
  state_.calm_since_ns.reset();  // the next raise waits for a new calm run
  return ShareAction::kRaise;
}

}  // namespace iashim::policy
