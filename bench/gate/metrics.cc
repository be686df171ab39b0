#include "bench/gate/metrics.h"

#include <limits>

namespace iashim::gatebench {

double SplitOf(double a, double b) {
  const double sum = a + b;
  if (!(sum > 0)) return std::numeric_limits<double>::quiet_NaN();
  return a / sum;
}

double ErrorPp(double achieved, double requested) { return 100.0 * (achieved - requested); }

double Ratio(double value, double base) {
  if (!(base > 0)) return std::numeric_limits<double>::quiet_NaN();
  return value / base;
}

}  // namespace iashim::gatebench
