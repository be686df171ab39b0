// The one-GPU pairs Gavel measured on one GPU type, as the policy library's
// PairMeasurement (normalised throughputs, kinds = job type names): the
// input of `iashim-clustersim --kfold`. Each unordered pair once (a job type
// with itself included); pairs measured as [0, 0] are not measurements.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_MEASURED_PAIRS_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_MEASURED_PAIRS_H_

#include <vector>

#include "coordinator/clustersim/gavel_throughputs.h"
#include "coordinator/policy/pair_cross_validation.h"

namespace iashim::clustersim {

// In type order (a <= b), so the folds drawn from a seed are reproducible.
std::vector<policy::PairMeasurement> MeasuredPairs(const GavelThroughputs& truth);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_MEASURED_PAIRS_H_
