// The plain mean of a run of samples, kept as their sum and count: what the
// interference model averages a kind's features with, and what the share
// controller judges an operating point by. A plain value (comparable, no
// allocation), so it can sit in state that is persisted.
#ifndef IASHIM_POLICY_RUNNING_MEAN_H_
#define IASHIM_POLICY_RUNNING_MEAN_H_

#include <cmath>
#include <cstdint>

namespace iashim::policy {

struct RunningMean {
  double sum = 0;
  int64_t count = 0;

  void Add(double v) {
    sum += v;
    ++count;
  }
  // NaN before the first sample.
  double Mean() const { return count > 0 ? sum / static_cast<double>(count) : std::nan(""); }

  friend bool operator==(const RunningMean&, const RunningMean&) = default;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_RUNNING_MEAN_H_
