// The learning side of the learning policies: the simulator reports each
// co-location a policy makes (CoLocationObserver); the learner first scores
// its own prediction of it (prequential error: predict, then learn, as a
// real cluster would), then learns it. The same scoring for the PairTable
// (iadeep) and the InterferenceModel (iashim), so their errors compare.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_LEARNERS_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_LEARNERS_H_

#include <cmath>
#include <cstdint>

#include "coordinator/clustersim/simulator.h"
#include "coordinator/policy/interference_model.h"
#include "coordinator/policy/pair_table.h"

namespace iashim::clustersim {

// Mean absolute error of predictions scored before learning them.
struct PrequentialError {
  int64_t predictions = 0;
  double sum_abs_error = 0;
  void Add(double predicted, double observed);
  double mean() const { return predictions == 0 ? std::nan("") : sum_abs_error / predictions; }
};

// Predict both directions, score, then Observe. `Predictor` has Predict()
// and Observe(a, b, a_norm, b_norm): PairTable and InterferenceModel.
template <typename Predictor>
class Learner : public CoLocationObserver {
 public:
  explicit Learner(Predictor* predictor) : predictor_(predictor) {}

  void Observe(const policy::JobTraits& a, const policy::JobTraits& b, double a_norm,
               double b_norm) override {
    error_.Add(predictor_->Predict(a, b).throughput, a_norm);
    error_.Add(predictor_->Predict(b, a).throughput, b_norm);
    predictor_->Observe(a, b, a_norm, b_norm);
  }

  const PrequentialError& error() const { return error_; }

 private:
  Predictor* predictor_;  // not owned
  PrequentialError error_;
};

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_LEARNERS_H_
