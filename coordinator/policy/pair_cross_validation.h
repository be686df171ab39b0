// How well can interference be predicted for pairs never seen together?
// K-fold cross-validation over measured pairs: the pairs are split into K
// folds (both directions of a pair stay in one fold); for each fold a fresh
// predictor learns every other fold, then predicts both directions of each
// held-out pair. Three predictors are scored on the same folds:
//  - the InterferenceModel (ours),
//  - "median pair": always the median normalised throughput of the training
//    folds (what a model that knows nothing about the jobs can do),
//  - the PairTable (IADeep's online table of observed pairs).
// Pure; deterministic for a given seed.
#ifndef IASHIM_POLICY_PAIR_CROSS_VALIDATION_H_
#define IASHIM_POLICY_PAIR_CROSS_VALIDATION_H_

#include <cstdint>
#include <span>

#include "coordinator/policy/interference_model.h"

namespace iashim::policy {

// One measured co-location: `a` ran at normalised throughput a_norm next to
// `b`, which ran at b_norm.
struct PairMeasurement {
  JobTraits a;
  JobTraits b;
  double a_norm = 0;
  double b_norm = 0;
};

struct PredictorScore {
  double mean_abs_error = 0;
  double p90_abs_error = 0;
};

struct CrossValidationResult {
  int folds = 0;
  int64_t pairs = 0;        // unordered kind pairs: (a, b) and (b, a) count once
  int64_t predictions = 0;  // values scored: 2 per measurement with both values usable
  PredictorScore model;
  PredictorScore median;
  PredictorScore table;
};

// `folds` in [2, number of unordered pairs]; otherwise nothing is scored and
// folds = 0 is returned, which the caller checks. Measurements of the same
// unordered kind pair (listed once per direction, or repeated) share a fold.
CrossValidationResult CrossValidatePairs(std::span<const PairMeasurement> pairs, int folds,
                                         uint64_t seed, const InterferenceModel::Options& options);

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_PAIR_CROSS_VALIDATION_H_
