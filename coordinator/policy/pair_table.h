// IADeep's predictor: an online table of the pairs observed so far. A pair
// seen before is predicted as the mean of what was seen for exactly that
// ordered pair; any other pair as the mean of everything observed (the
// prior before any observation). It does not generalise across jobs: that
// is the difference InterferenceModel is measured against.
#ifndef IASHIM_POLICY_PAIR_TABLE_H_
#define IASHIM_POLICY_PAIR_TABLE_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "coordinator/policy/interference_model.h"

namespace iashim::policy {

// A normalised throughput worth learning from or scoring: finite, within
// 0..1.5 (the same bounds as InterferenceModel::Observe).
bool UsableNormalisedThroughput(double v);

class PairTable : public InterferencePredictor {
 public:
  explicit PairTable(double prior_mean = 0.68);

  // Same contract as InterferenceModel::Observe.
  void Observe(const JobTraits& a, const JobTraits& b, double a_norm, double b_norm);

  InterferencePrediction Predict(const JobTraits& victim,
                                 const JobTraits& aggressor) const override;

 private:
  struct Mean {
    double sum = 0;
    int64_t count = 0;
  };
  void Add(const std::string& victim, const std::string& aggressor, double value);

  double prior_mean_;
  absl::flat_hash_map<std::string, Mean> pairs_;  // key: victim '\0' aggressor
  Mean all_;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_PAIR_TABLE_H_
