// The bundled Gavel data the clustersim tests replay: the v100 throughputs
// and three of the seed-0 traces (bench/data/gavel/), read once per test.
#ifndef IASHIM_TESTS_COORDINATOR_CLUSTERSIM_SEED0_DATA_H_
#define IASHIM_TESTS_COORDINATOR_CLUSTERSIM_SEED0_DATA_H_

#include <string>
#include <vector>

#include "coordinator/clustersim/gavel_throughputs.h"
#include "coordinator/clustersim/gavel_trace.h"

namespace iashim::clustersim::testing {

inline const std::string kGavelData = std::string(IASHIM_SOURCE_DIR) + "/bench/data/gavel/";

inline absl::StatusOr<GavelThroughputs> V100Throughputs() {
  return ReadGavelThroughputsFile(kGavelData + "simulation_throughputs.json", "v100");
}

// Three traces (virtual clusters) small enough for a test: ~600 jobs.
inline std::vector<std::string> ThreeTracePaths() {
  std::vector<std::string> paths;
  for (const char* stem : {"23dbec", "51b7ef", "2869ce"}) {
    paths.push_back(kGavelData + "msr-seed0/" + stem + ".trace");
  }
  return paths;
}

}  // namespace iashim::clustersim::testing

#endif  // IASHIM_TESTS_COORDINATOR_CLUSTERSIM_SEED0_DATA_H_
