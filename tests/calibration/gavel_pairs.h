// The yardstick for simgpu's interference model: Gavel's measured V100 pairs
// of the bundled profiles that have a Gavel job type (bench/data/models/
// gavel_map.txt), each direction beside what simgpu's device model gives the
// same two profiles in virtual time. A directed value is the victim's kept
// fraction: its throughput beside the aggressor / its throughput alone.
#ifndef IASHIM_TESTS_CALIBRATION_GAVEL_PAIRS_H_
#define IASHIM_TESTS_CALIBRATION_GAVEL_PAIRS_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "simgpu/src/interference_model.h"

namespace iashim_test {

struct DirectedPair {
  std::string victim;
  std::string aggressor;
  double gavel = 0;   // kept fraction Gavel measured
  double simgpu = 0;  // kept fraction in simgpu's model
};

// Every bundled profile (bench/data/models/gavel_map.txt) in file order:
// its name and its Gavel job type key, empty for a profile whose speed is an
// estimate (no Gavel job type).
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> BundledProfiles(
    const std::string& source_dir);

// Every ordered pair of two different mapped profiles that Gavel measured,
// with simgpu's value under `params` (`seconds` of virtual time after
// `warmup_s`), in profile order.
absl::StatusOr<std::vector<DirectedPair>> CompareWithGavel(const std::string& source_dir,
                                                           const simgpu::InterferenceParams& params,
                                                           double seconds, double warmup_s);

// Mean |simgpu - gavel| over `pairs` (0 for none).
double MeanAbsError(std::span<const DirectedPair> pairs);

// One fold of leave-one-model-out: the parameters fitted on the pairs without
// `model`, their error there, and their error on `model`'s own pairs (both
// directions), which the fit never saw.
struct HeldOutModel {
  std::string model;
  size_t params_index = 0;  // into the candidates the fit chose from
  double fit_mae = 0;
  double held_out_mae = 0;
};

// `evaluated[i]` is CompareWithGavel under candidate parameters i (the same
// pairs in the same order for every i). For each model in the pairs, fits
// (the candidate with the least error on the pairs not involving it) and
// predicts its pairs.
std::vector<HeldOutModel> LeaveOneModelOut(const std::vector<std::vector<DirectedPair>>& evaluated);

// The mean absolute error over all the held-out pairs: each directed value
// predicted by the fold that held its victim or aggressor out (a value
// involving two models counts in both folds).
double LeaveOneOutError(const std::vector<HeldOutModel>& folds);

}  // namespace iashim_test

#endif  // IASHIM_TESTS_CALIBRATION_GAVEL_PAIRS_H_
