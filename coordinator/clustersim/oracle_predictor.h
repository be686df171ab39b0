// The oracle: an InterferencePredictor that reads Gavel's measured pair
// throughputs, i.e. the ground truth the simulator runs on, with no
// uncertainty. Only the `oracle` policy uses it; it bounds what any learned
// predictor can reach with the same placement rule.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_ORACLE_PREDICTOR_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_ORACLE_PREDICTOR_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "coordinator/clustersim/gavel_throughputs.h"
#include "coordinator/policy/interference_model.h"

namespace iashim::clustersim {

class OraclePredictor : public policy::InterferencePredictor {
 public:
  // Copies what it needs: `truth` need not outlive it.
  explicit OraclePredictor(const GavelThroughputs& truth);

  // A pair never measured (it cannot share) predicts throughput 0 with
  // uncertainty 0: sharing it could only lose.
  policy::InterferencePrediction Predict(const policy::JobTraits& victim,
                                         const policy::JobTraits& aggressor) const override;

 private:
  // Normalised throughput of the victim, keyed by victim kind '\0' aggressor kind.
  absl::flat_hash_map<std::string, double> normalised_;
};

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_ORACLE_PREDICTOR_H_
