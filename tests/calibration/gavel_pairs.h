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

}  // namespace iashim_test

#endif  // IASHIM_TESTS_CALIBRATION_GAVEL_PAIRS_H_
