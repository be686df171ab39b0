// The median of a sample, for estimators that must not follow one outlier.
#ifndef IASHIM_POLICY_MEDIAN_H_
#define IASHIM_POLICY_MEDIAN_H_

#include <algorithm>
#include <cmath>
#include <vector>

namespace iashim::policy {

// The middle value; for an even count, the mean of the two middle ones. NaN
// for an empty sample.
inline double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double upper = v[mid];
  return 0.5 * (upper + *std::max_element(v.begin(), v.begin() + mid));
}

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_MEDIAN_H_
