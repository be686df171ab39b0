// What the control loop found, kept for the next time: how much a throttled
// opportunistic job of one kind costs a guaranteed job of another per unit
// of pace, measured where the loop held them.
//
// The interference model predicts a pair's harm at full speed, from pairs
// seen unthrottled. ProtectiveShare turns that into a first budget by
// assuming the harm shrinks in proportion to the co-runner's pace (the
// daemon turns a pace into a budget of GPU time, BudgetForPace); it may not
// quite (before the budget counted the co-runner's GPU time at full pace, a
// live replay on simgpu found co-runners held at share 0.18-0.19 costing
// their guaranteed jobs 0.47 of throughput per unit share, 1.6 times the
// 0.27-0.31 the same pairs lose at full speed). So the pace the loop
// settles at is remembered as the victim's *equivalent* kept fraction, the
// one ProtectiveShare must be given to land there:
//     kept_eq = 1 - (1 - kept) / pace      (kept: victim's measured throughput)
// A pair seen before starts at its own figure; a pair never seen starts at
// the model's prediction scaled by how far the model's losses were from the
// equivalents on every pair recorded (one calibration factor, in log space).
//
// Pure, no I/O; lost at a restart (the loop finds the budgets again).
#ifndef IASHIM_POLICY_BUDGET_MEMORY_H_
#define IASHIM_POLICY_BUDGET_MEMORY_H_

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace iashim::policy {

class BudgetMemory {
 public:
  struct Options {
    // Recent values count more: the running means weigh the newest as 1/n
    // up to these counts, then as 1/count (a moving average).
    int pair_window = 16;
    int calibration_window = 64;
    // A loss smaller than this (throughput fraction) is within the
    // measurement's noise: dividing it by a pace would say nothing.
    double min_loss = 0.02;
    size_t max_pairs = 4096;  // beyond this, new pairs only calibrate
  };

  BudgetMemory() = default;
  explicit BudgetMemory(Options options) : options_(options) {}

  // A guaranteed job of kind `victim` kept `kept` of its solo throughput
  // while its co-runner of kind `aggressor` kept `pace` (< 1) of its
  // unthrottled speed and the loop had left the shares alone long enough to
  // measure them; the model predicted `model_kept` for the pair at full
  // speed. Values out of range (pace outside (0, 1), kept outside (0, 1 - min_loss], model_kept
  // outside (0, 1)) are ignored.
  void Observe(const std::string& victim, const std::string& aggressor, double pace, double kept,
               double model_kept);

  // The equivalent kept fraction to give ProtectiveShare for this pair: its
  // own record, else `model_kept` calibrated by every record; nullopt when
  // nothing was recorded (use the model's prediction as it is). May be
  // negative: a pair whose loss per unit pace exceeds 1.
  std::optional<double> EquivalentKept(const std::string& victim, const std::string& aggressor,
                                       double model_kept) const;

  size_t pairs() const { return pairs_.size(); }

 private:
  struct RunningMean {
    double mean = 0;
    int n = 0;
    void Add(double value, int window);
  };

  Options options_;
  std::map<std::pair<std::string, std::string>, RunningMean> pairs_;  // log loss per unit pace
  RunningMean calibration_;  // log(observed loss per unit pace / model's loss at full speed)
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_BUDGET_MEMORY_H_
