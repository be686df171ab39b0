#include "coordinator/policy/run_slowdown.h"

#include <algorithm>
#include <cmath>

namespace iashim::policy {

void RunSlowdown::Observe(int64_t now_ns, std::optional<double> slowdown) {
  if (last_ns_ && now_ns <= *last_ns_) return;
  if (slowdown && (!std::isfinite(*slowdown) || *slowdown < 0)) slowdown.reset();
  // The interval since the last sample, at the slowdown measured at its end
  // (the EWMA already averages over the interval before it).
  if (last_ns_ && last_slowdown_ && slowdown) {
    const double dt = std::min(double(now_ns - *last_ns_) / 1e9, options_.max_gap_s);
    elapsed_s_ += dt;
    progress_s_ += dt / (1 + *slowdown);
  }
  last_ns_ = now_ns;
  last_slowdown_ = slowdown;
}

std::optional<double> RunSlowdown::Slowdown() const {
  if (progress_s_ <= 0) return std::nullopt;
  return elapsed_s_ / progress_s_ - 1;
}

double RepaidTarget(double target, double run, double aim, double floor) {
  if (!(target > 0) || !std::isfinite(run)) return target;
  const double excess = run - aim * target;
  if (excess <= 0) return target;
  return std::max(floor * target, target - excess);
}

double RunSlowdown::LoopTarget(double target) const {
  const std::optional<double> run = Slowdown();
  return run ? RepaidTarget(target, *run, options_.aim, options_.floor) : target;
}

}  // namespace iashim::policy
