#include "coordinator/clustersim/learners.h"

namespace iashim::clustersim {

void PrequentialError::Add(double predicted, double observed) {
  ++predictions;
  sum_abs_error += std::fabs(predicted - observed);
}

}  // namespace iashim::clustersim
