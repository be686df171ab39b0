#include "coordinator/clustersim/oracle_predictor.h"

#include "absl/strings/str_cat.h"
#include "coordinator/clustersim/job_kinds.h"
#include "coordinator/clustersim/text.h"

namespace iashim::clustersim {
namespace {

std::string Key(std::string_view victim, std::string_view aggressor) {
  return Cat(victim, std::string_view("\0", 1), aggressor);
}

}  // namespace

OraclePredictor::OraclePredictor(const GavelThroughputs& truth) {
  const std::vector<JobType> types = truth.Types();
  for (const JobType& a : types) {
    for (const JobType& b : types) {
      const std::optional<PairThroughput> pair = truth.Pair(a, b);
      if (!pair.has_value()) continue;
      normalised_[Key(KindOf(a), KindOf(b))] = pair->a / *truth.Solo(a);
    }
  }
}

policy::InterferencePrediction OraclePredictor::Predict(const policy::JobTraits& victim,
                                                        const policy::JobTraits& aggressor) const {
  policy::InterferencePrediction p;
  p.uncertainty = 0;
  auto it = normalised_.find(Key(victim.kind, aggressor.kind));
  if (it == normalised_.end()) {
    p.throughput = 0;
    return p;
  }
  p.throughput = it->second;
  p.evidence = 1;
  return p;
}

}  // namespace iashim::clustersim
