// How a Gavel job type appears to the policy library: its JobTraits::kind.
// A one-GPU type is known by its name ("ResNet-18 (batch size 16)", so the
// model's families work on Gavel's names); a gang of k GPUs by
// "<name> x<k>", a kind of its own that no measured pair contains, so the
// ShareRule keeps gangs from sharing (Gavel measured pairs on one GPU only).
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_JOB_KINDS_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_JOB_KINDS_H_

#include <string>
#include <string_view>

#include "coordinator/clustersim/gavel_throughputs.h"
#include "coordinator/policy/interference_model.h"

namespace iashim::clustersim {

std::string KindOf(const JobType& type);
policy::JobTraits TraitsOf(const JobType& type);
// The inverse of KindOf.
JobType TypeOfKind(std::string_view kind);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_JOB_KINDS_H_
