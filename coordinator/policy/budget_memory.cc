#include "coordinator/policy/budget_memory.h"

#include <algorithm>
#include <cmath>

namespace iashim::policy {

void BudgetMemory::RunningMean::Add(double value, int window) {
  n = std::min(n + 1, std::max(1, window));
  mean += (value - mean) / n;
}

void BudgetMemory::Observe(const std::string& victim, const std::string& aggressor, double pace,
                           double kept, double model_kept) {
  // Written so that NaN fails every test.
  if (!(pace > 0 && pace < 1) || !(kept > 0 && kept <= 1 - options_.min_loss) ||
      !(model_kept > 0 && model_kept < 1)) {
    return;
  }
  const double log_loss_per_pace = std::log((1 - kept) / pace);
  calibration_.Add(log_loss_per_pace - std::log(1 - model_kept), options_.calibration_window);
  const auto key = std::make_pair(victim, aggressor);
  if (pairs_.size() >= options_.max_pairs && !pairs_.contains(key)) return;
  pairs_[key].Add(log_loss_per_pace, options_.pair_window);
}

std::optional<double> BudgetMemory::EquivalentKept(const std::string& victim,
                                                   const std::string& aggressor,
                                                   double model_kept) const {
  if (const auto it = pairs_.find({victim, aggressor}); it != pairs_.end()) {
    return 1 - std::exp(it->second.mean);
  }
  if (calibration_.n == 0 || !(model_kept < 1)) return std::nullopt;
  return 1 - (1 - model_kept) * std::exp(calibration_.mean);
}

}  // namespace iashim::policy
