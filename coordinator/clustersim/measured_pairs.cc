#include "coordinator/clustersim/measured_pairs.h"

#include "coordinator/clustersim/job_kinds.h"

namespace iashim::clustersim {

std::vector<policy::PairMeasurement> MeasuredPairs(const GavelThroughputs& truth) {
  std::vector<JobType> one_gpu;
  for (const JobType& t : truth.Types()) {
    if (t.scale == 1) one_gpu.push_back(t);
  }
  std::vector<policy::PairMeasurement> pairs;
  for (size_t i = 0; i < one_gpu.size(); ++i) {
    for (size_t j = i; j < one_gpu.size(); ++j) {
      const JobType& a = one_gpu[i];
      const JobType& b = one_gpu[j];
      const std::optional<PairThroughput> p = truth.Pair(a, b);
      if (!p.has_value()) continue;
      pairs.push_back({TraitsOf(a), TraitsOf(b), p->a / *truth.Solo(a), p->b / *truth.Solo(b)});
    }
  }
  return pairs;
}

}  // namespace iashim::clustersim
