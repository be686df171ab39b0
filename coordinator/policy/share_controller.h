// The control loop for one shared GPU: sets the opportunistic jobs' shares of
// GPU time so that every guaranteed job's slowdown stays within its target,
// and hands the rest of the GPU to the opportunistic jobs.
//
// The daemon calls Step() about once a second per GPU with the guaranteed
// jobs' measured slowdowns (JobProfile::slowdown()) and the opportunistic
// jobs' shares in force, and sends the returned shares as Budgets.
//
// Shares cut from outside the loop (the daemon's cap for a guaranteed job
// that joins, or a gang's share cut on another of its GPUs: a total in force
// below both the last one in force and the last one returned) count as a cut:
// the next cut waits decrease_hold_s for the measurement to show it.
//
// Design (README.md has the reasoning): AIMD on the opportunistic jobs'
// total share T, shaped so that it settles instead of oscillating. r is the
// worst slowdown/target ratio over the guaranteed jobs.
//  - Violation (r > 1): confirmed by confirm_steps samples in a row unless
//    r >= severe_ratio, then every share is cut by the factor
//    clamp(1 - k * (mean r - 1), max_cut, 1 - min_cut), or, once a mean r of
//    severe_ratio or more is confirmed, by h / mean r if that is less (where
//    a linear plant lands at the headroom h, as a raise aims), at most once per
//    decrease_hold_s (the measurement must first show a cut's effect). The
//    first cut of an episode remembers T as the *ceiling*, and r/T there as
//    the *gain*.
//  - Calm (every ratio known and below the calm threshold for calm_s, and
//    cooldown_s since the last cut): T is raised by increase_step per job
//    or doubled, whichever is more, but to no more than T * h / mean r (where
//    a linear plant would reach h * target, h the headroom: a raise cannot
//    jump over the band; mean r over the samples since the last change, or
//    the calm run's if higher) and no more than ceiling * (1 - ceiling_margin).
//    Shares are raised equally (water-filling).
//  - Between (calm threshold <= r <= 1): hold, unless the mean since the
//    last change, over trim_samples or more, sits in the upper half of
//    [headroom, 1] by more than its standard error twice: then trim every
//    share by headroom / mean (at most max_trim), a step back that restores
//    the margin a raise that landed high left too thin.
// The band adapts to how noisy the measurement is, so that a steady
// measurement lets the guaranteed job sit close under its target (the
// opportunistic jobs get the slack) while a noisy one keeps a wide band that
// neither noise nor a raise's landing point flips between raising and
// cutting. The noise is the standard deviation sd of the worst ratio while
// the shares stayed put, from the median absolute difference between
// successive samples (the last 32, at least noise_samples - 1), leaving out
// the first decrease_hold_s after a change: a measurement still settling
// drifts, and neither that drift nor the jump of a lagged EWMA right after a
// change is noise; the median keeps a few such outliers from widening the
// band. Then the calm threshold is 1 - noise_margin * sd and the headroom
// 1 - headroom_margin * sd, within [min_calm_ratio, calm_ratio] and
// [that + 0.05, quiet_headroom]. Until the noise is known: min_calm_ratio and
// headroom.
// A floor that buys too little is given back. Held at the floor and still
// over target, the loop compares the floor's settled mean ratio r_f (at total
// T_f, over futile_samples samples after decrease_hold_s) with the episode's
// start, r_0 at T_0 (the total in force at its first sample over target,
// and the mean ratio of its samples over target at that total): harm in proportion to
// the share then costs g = max(0, (r_0 - r_f) / (T_0 - T_f)) per unit of
// total share. If T_0 is at least twice T_f (a cut large enough to show an
// effect) and raising the total to T_0 (or to where it would add
// futile_allowance to the ratio, if that is less) gives the co-runners at
// least a fifth more, the shares are raised there: the guaranteed job is
// slowed by something throttling barely touches (its own host or input
// pipeline, a busy host CPU), and the floor would cost the opportunistic jobs
// most of their progress to buy it under a tenth of its target. The loop then
// holds those shares, and checks what they cost: every futile_samples settled
// samples (from 2 * decrease_hold_s after the change), if their mean is over
// r_f by more than futile_allowance and twice the difference's standard
// error (r_0 may have been read before the measurement caught up), the
// total is trimmed to where that measured cost would be futile_allowance
// (the floor at least), and checked again. confirm_steps samples in a row
// at or under target (the cause has gone), or over r_f + futile_allowance by
// more than three times the noise (the co-runners matter after all: a new
// episode, measured from there), hand it back to the rules above. No episode
// start (the job began at the floor), no release. These ratios (r_0, r_f and
// the hold's) are to the jobs' own targets, not to the lower one a run's
// repay has the loop hold: that one moves while the floor is measured, and
// a release judged in it read the same slowdown as a new cost and took the
// co-runners back to the floor.
// The ceiling rises slowly (ceiling_rise_per_s, relative), so a GPU whose
// guaranteed job later suffers less is given more in time; it is dropped at
// once when the evidence says the plant changed: the set of jobs changed, or
// over a calm run of ceiling_drop_calm_s the gain fell below
// ceiling_gain_drop times the gain at the ceiling. Unknown slowdowns hold
// (no raise) but never block a cut for a known violation. No guaranteed
// job: every share is max_share.
//
// The controller is pure: time is an argument and all state is in
// ShareControllerState, a plain value that can be persisted and restored.
#ifndef IASHIM_POLICY_SHARE_CONTROLLER_H_
#define IASHIM_POLICY_SHARE_CONTROLLER_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/policy/running_mean.h"

namespace iashim::policy {

struct GuaranteedJob {
  std::string job;
  std::optional<double> slowdown;  // nullopt (or non-finite) = not known yet
  double slowdown_target = 0.10;   // 0.1 = may run 10% slower than alone; 0 = default
  // The job's own target, when slowdown_target is lower to repay a run that
  // went over it (run_slowdown.h); 0 = slowdown_target. Cuts aim at
  // slowdown_target; what a floor buys is judged against this one, which
  // does not move as the run is repaid.
  double own_target = 0;
};

struct OpportunisticJob {
  std::string job;
  double share = 1.0;  // share in force
};

struct JobShare {
  std::string job;
  double share = 1.0;

  friend bool operator==(const JobShare&, const JobShare&) = default;
};

struct ShareControllerOptions {
  double min_share = 0.05;  // an opportunistic job always progresses
  double max_share = 1.0;
  double default_target = 0.10;  // for targets that are 0 (as on the wire: "default"),
                                 // negative or not finite
  double min_target = 0.01;      // smaller positive targets are raised to this

  int64_t confirm_steps = 2;     // over target this many steps in a row before a cut...
  double severe_ratio = 1.5;     // ...unless slowdown/target is at least this
  double decrease_gain = 1.0;    // k
  double max_cut = 0.5;          // a cut keeps at least this fraction
  double min_cut = 0.05;         // a cut removes at least this fraction
  double decrease_hold_s = 3.0;  // between cuts: the measurement's lag
  double cooldown_s = 10.0;      // after a cut, before any raise

  double calm_ratio = 0.85;      // calm: every slowdown < calm_ratio * target, at most...
  double min_calm_ratio = 0.5;   // ...and at least this, by the noise (above)
  double calm_s = 3.0;           // calm this long before (each) raise
  double increase_step = 0.05;   // per job, per raise
  double headroom = 0.85;        // a raise aims no higher than headroom * target...
  double quiet_headroom = 0.90;  // ...or this, once the measurement is known to be steady
  double noise_margin = 3.0;     // calm threshold: 1 - noise_margin * sd
  double headroom_margin = 2.0;  // headroom: 1 - headroom_margin * sd
  int64_t noise_samples = 5;     // samples with the shares unchanged before sd counts
  int64_t trim_samples = 15;     // samples at one point before a trim (5 of the EWMA's 3 s)
  double max_trim = 0.1;         // a trim removes at most this fraction

  double ceiling_margin = 0.1;             // raises stop at (1 - margin) * ceiling
  double ceiling_rise_per_s = 1.0 / 1800;  // +3.4% a minute (relative)
  double ceiling_gain_drop = 0.5;          // gain below this * gain at the ceiling...
  double ceiling_drop_calm_s = 10;         // ...over a calm run this long: the plant changed

  // A floor that buys under this much of the ratio (0.1: a tenth of the
  // target) is given back (the header comment); 0 = never.
  double futile_allowance = 0.1;
  int64_t futile_samples = 10;  // settled samples before judging the floor (or a release)
};

// Everything the controller remembers about one GPU. Plain fields so the
// daemon can persist it; times are in the caller's now_ns clock. After a
// restore on a clock that is behind (a new CLOCK_MONOTONIC), the first
// Step() forgets the timers but keeps the ceiling.
struct ShareControllerState {
  std::optional<int64_t> last_step_ns;
  std::optional<int64_t> last_cut_ns;
  std::optional<int64_t> calm_since_ns;  // first calm step of the current calm run
  RunningMean calm;                      // the worst ratios in that run
  bool violating = false;         // a cut (or the floor) in the current violation
  RunningMean over;  // the worst ratios over target since the run began or the last cut
  std::optional<double> ceiling;  // total share at which a violation began
  double ceiling_gain = 0;        // worst ratio / total share at that moment
  uint64_t membership = 0;        // hash of the job ids the ceiling is for
  // The worst ratio's samples since the shares last changed: their sum, the
  // last one and the count (the operating point's mean).
  double spread_sum = 0;
  double spread_last = 0;
  int64_t spread_n = 0;
  // The noise: the last 32 absolute differences between successive samples
  // at the same operating point once the measurement has caught up with the
  // last change (a ring; noise_count of them filled, noise_next the next
  // slot), and the standard deviation from them (-1 unknown).
  static constexpr size_t kNoiseDiffs = 32;
  std::array<double, kNoiseDiffs> noise_abs_diff{};
  int64_t noise_count = 0;
  int64_t noise_next = 0;
  double ratio_sd = -1;
  std::optional<int64_t> last_change_ns;  // the shares' last cut or raise
  // The total share in force at the last step, and the total returned then
  // (0: no step yet): a total in force below both was cut from outside.
  double last_input_total = 0;
  double last_output_total = 0;
  // The current episode's start: the total in force at its first sample
  // over target (0: none yet), and its samples over target at that total
  // (before the shares moved).
  double episode_total = 0;
  RunningMean episode;
  // At the floor in this episode: since when, and its settled samples.
  std::optional<int64_t> floor_since_ns;
  RunningMean floor_samples;
  // A floor given back: the total held (0: none), the floor's total and
  // samples, the samples in a row that would end the hold, and since when
  // the total held has been in force with its settled samples.
  double released_total = 0;
  double released_floor_total = 0;
  RunningMean released_floor;
  int64_t release_ending_steps = 0;
  std::optional<int64_t> released_since_ns;
  RunningMean released;

  friend bool operator==(const ShareControllerState&, const ShareControllerState&) = default;
};

enum class ShareAction {
  kIdle,            // no opportunistic jobs: nothing to control
  kUnthrottle,      // no guaranteed jobs: every share max_share
  kConfirm,         // over target for the first time: one more sample before cutting
  kCut,             // a guaranteed job is over target: shares cut
  kSettle,          // over target, but the last cut is too recent to judge
  kFloor,           // over target with every share at min_share: shares cannot help
  kRaise,           // calm: shares raised
  kHoldUnknown,     // a guaranteed job's slowdown is not known
  kTrim,            // steadily in the band's upper half: shares trimmed back toward the headroom
  kHoldBand,        // within the target band
  kHoldCooldown,    // calm, but a cut was recent
  kHoldCalming,     // calm, not yet for calm_s
  kHoldCeiling,     // calm, but raising would pass the ceiling or the model's limit
  kRelease,         // at the floor, over target, and the floor bought too little: shares raised
  kReleaseTrimmed,  // the shares given back cost more than futile_allowance: trimmed
  kHoldReleased,    // over target as at the floor: holding the shares given back
};

std::string_view ShareActionName(ShareAction action);

struct ShareStep {
  ShareAction action = ShareAction::kIdle;
  std::vector<JobShare> shares;       // one per opportunistic job, in input order
  std::optional<double> worst_ratio;  // max slowdown/target over known guaranteed jobs
  // Every share at min_share, with a guaranteed job to defend, or a floor
  // given back (kRelease, kHoldReleased): the loop has no share left to give
  // a newcomer (placement's ClusterState::co_runners_at_floor).
  bool at_floor = false;
  // At the floor (or holding a floor given back) and over target: only
  // moving a job can help (the daemon's or placement's business).
  bool saturated = false;
};

class ShareController {
 public:
  explicit ShareController(ShareControllerOptions options = {}, ShareControllerState state = {});

  ShareStep Step(int64_t now_ns, std::span<const GuaranteedJob> guaranteed,
                 std::span<const OpportunisticJob> opportunistic);

  const ShareControllerState& state() const { return state_; }
  const ShareControllerOptions& options() const { return options_; }
  // The calm threshold and the headroom for the noise measured so far, as
  // ratios of the target (the band's edges: README.md).
  struct Band {
    double calm;
    double headroom;
  };
  Band CurrentBand() const;

 private:
  // The worst known guaranteed job's slowdown over its target: the target
  // the loop holds (`loop`) and the jobs' own (`own`, GuaranteedJob::
  // own_target), and for the job worst by the first, how one unit of it
  // reads in the second.
  struct WorstRatio {
    double loop = 0;
    double own = 0;
    double own_per_loop = 1;
  };

  ShareAction Control(int64_t now_ns, std::optional<WorstRatio> worst, bool any_unknown,
                      std::vector<JobShare>& shares);
  ShareAction Cut(int64_t now_ns, const WorstRatio& worst, std::vector<JobShare>& shares);
  ShareAction Raise(double ratio, double calm_for_s, std::vector<JobShare>& shares);
  // At the floor and over target: folds the sample into the floor's mean and
  // gives the floor back if it buys too little (the header comment).
  ShareAction AtFloor(int64_t now_ns, const WorstRatio& worst, std::vector<JobShare>& shares);
  // Holding a floor given back: kHoldReleased (or kReleaseTrimmed), or
  // nullopt once the hold ends.
  std::optional<ShareAction> HoldReleased(int64_t now_ns, std::optional<WorstRatio> worst,
                                          std::vector<JobShare>& shares);
  // Holds `total` from now on, measured afresh.
  void HoldTotal(int64_t now_ns, double total);
  // In the band: trims the shares back toward the headroom if the operating
  // point's mean sits steadily in the band's upper half. True if it did.
  bool Trim(const Band& band, std::vector<JobShare>& shares);
  // Folds one worst-ratio sample into the operating point's mean and the
  // noise estimate.
  void NoteSpread(int64_t now_ns, double ratio);
  // The violation episode (if any) is over: its counters start afresh.
  void EndEpisode();
  // A new operating point: its mean starts afresh; the noise estimate stands.
  void RestartSpread();
  // The mean worst ratio since the shares last changed (0 before a sample).
  double OperatingPointMean() const;

  ShareControllerOptions options_;
  ShareControllerState state_;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_SHARE_CONTROLLER_H_
