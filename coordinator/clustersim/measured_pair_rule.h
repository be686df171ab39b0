// The ShareRule every clustersim policy gets: two jobs may share a GPU only
// if Gavel ran that pair together. A pair missing from the file, or
// measured as [0, 0], did not fit in memory; the rule stands for the memory
// check the daemon makes. It is not ground truth about interference: it
// says whether, never how well.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_MEASURED_PAIR_RULE_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_MEASURED_PAIR_RULE_H_

#include "coordinator/clustersim/gavel_throughputs.h"
#include "coordinator/policy/placement.h"

namespace iashim::clustersim {

class MeasuredPairRule : public policy::ShareRule {
 public:
  explicit MeasuredPairRule(const GavelThroughputs* truth) : truth_(truth) {}
  bool MayShare(const policy::JobTraits& a, const policy::JobTraits& b) const override;

 private:
  const GavelThroughputs* truth_;  // not owned
};

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_MEASURED_PAIR_RULE_H_
