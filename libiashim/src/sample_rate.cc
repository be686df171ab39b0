#include "libiashim/src/sample_rate.h"

#include <algorithm>
#include <cmath>

namespace iashim {

uint32_t ChooseSampleEvery(double launches_per_second, double cost_ns_per_sample,
                           uint32_t minimum) {
  minimum = std::clamp<uint32_t>(minimum, 1, kMaxSampleEvery);
  if (!(launches_per_second > 0) || !(cost_ns_per_sample > 0)) return minimum;
  const double needed = launches_per_second * cost_ns_per_sample / (kSamplingBudget * 1e9);
  if (needed >= kMaxSampleEvery) return kMaxSampleEvery;
  return std::max<uint32_t>(minimum, uint32_t(std::ceil(needed)));
}

}  // namespace iashim
