// An exponentially weighted moving average over time rather than over
// samples: telemetry windows differ in length (the shim's window, dropped
// batches), and a fixed per-sample weight would let many short windows count
// more than one long one.
#ifndef IASHIM_POLICY_EWMA_H_
#define IASHIM_POLICY_EWMA_H_

#include <cmath>
#include <optional>

namespace iashim::policy {

class TimeEwma {
 public:
  // `tau_s`: time constant; a step change is 63% absorbed after tau_s seconds
  // of samples. Non-positive means "keep only the latest sample".
  explicit TimeEwma(double tau_s) : tau_s_(tau_s) {}

  // Folds in `value`, measured over `duration_s` seconds. The first sample
  // sets the average. Non-finite values and durations are ignored, so a bad
  // input never turns the average into NaN.
  void Add(double value, double duration_s) {
    if (!std::isfinite(value) || !std::isfinite(duration_s) || duration_s < 0) return;
    if (!value_.has_value() || tau_s_ <= 0) {
      value_ = value;
      return;
    }
    const double alpha = 1.0 - std::exp(-duration_s / tau_s_);
    *value_ += alpha * (value - *value_);
  }

  std::optional<double> value() const { return value_; }
  // Forgets every sample: the next one sets the average.
  void Reset() { value_.reset(); }

 private:
  double tau_s_;
  std::optional<double> value_;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_EWMA_H_
