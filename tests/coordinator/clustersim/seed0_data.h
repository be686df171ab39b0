// The bundled Gavel data the clustersim tests replay: the v100 throughputs
// and three of the seed-0 traces (bench/data/gavel/), read once per test.
#ifndef IASHIM_TESTS_COORDINATOR_CLUSTERSIM_SEED0_DATA_H_
#define IASHIM_TESTS_COORDINATOR_CLUSTERSIM_SEED0_DATA_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/clustersim/gavel_throughputs.h"
#include "coordinator/clustersim/gavel_trace.h"
#include "coordinator/clustersim/replay.h"

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

// What the replay tests start from: the truth, the three traces, and options
// for 16 GPUs with arrivals x20, enough load that jobs queue, gangs reserve
// nodes and policies differ.
struct LoadedReplay {
  GavelThroughputs truth;
  std::vector<TraceJob> trace;
  ReplayOptions options;
};

inline absl::Status LoadThreeTracesOn16Gpus(LoadedReplay* out) {
  absl::StatusOr<GavelThroughputs> truth = V100Throughputs();
  if (!truth.ok()) return truth.status();
  absl::StatusOr<std::vector<TraceJob>> trace = ReadGavelTraces(ThreeTracePaths());
  if (!trace.ok()) return trace.status();
  out->truth = *std::move(truth);
  out->trace = *std::move(trace);
  out->options.sim.gpus = 16;
  out->options.arrival_scale = 20;
  return absl::OkStatus();
}

}  // namespace iashim::clustersim::testing

#endif  // IASHIM_TESTS_COORDINATOR_CLUSTERSIM_SEED0_DATA_H_
