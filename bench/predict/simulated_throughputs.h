// What simgpu's device model gives the bundled model profiles alone and two
// by two on one GPU, written in the format of Gavel's
// simulation_throughputs.json. iashim-clustersim replays a trace against it
// as it does against Gavel's measured V100s, so the simulator predicts what
// the same jobs measure live on simgpu (issue 20, simulator vs live).
#ifndef IASHIM_BENCH_PREDICT_SIMULATED_THROUGHPUTS_H_
#define IASHIM_BENCH_PREDICT_SIMULATED_THROUGHPUTS_H_

#include <string>

#include "absl/status/statusor.h"

namespace iashim::predict {

struct SimulatedThroughputsOptions {
  std::string models_dir;  // bench/data/models: gavel_map.txt and the profiles
  double seconds = 20;     // virtual time simulated per job or pair
  double warmup_s = 2;     // left out of the rates
};

// {"v100": {"('<type>', 1)": {"null": steps/s alone, "('<other>', 1)": [its
// steps/s, the other's], ...}, ...}}: every profile gavel_map.txt maps to a
// Gavel job type, under that type, and every pair of them, each with itself
// too. One GPU per job only (no multi-GPU entries). Steps are the profile's
// iterations; its solo rate is within 10% of Gavel's for its type
// (shipped_profiles_test).
absl::StatusOr<std::string> SimulatedThroughputsJson(const SimulatedThroughputsOptions& options);

}  // namespace iashim::predict

#endif  // IASHIM_BENCH_PREDICT_SIMULATED_THROUGHPUTS_H_
