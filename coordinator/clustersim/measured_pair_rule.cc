#include "coordinator/clustersim/measured_pair_rule.h"

#include "coordinator/clustersim/job_kinds.h"

namespace iashim::clustersim {

bool MeasuredPairRule::MayShare(const policy::JobTraits& a, const policy::JobTraits& b) const {
  const JobType ta = TypeOfKind(a.kind);
  const JobType tb = TypeOfKind(b.kind);
  if (ta.scale != 1 || tb.scale != 1) return false;  // gangs never share
  return truth_->Pair(ta, tb).has_value();
}

}  // namespace iashim::clustersim
