// What a simulated shim reports: a training loop of a few kernels, slowed
// down by the jobs it shares its GPU with.
//
// Three models (kernel sets with per-iteration launch counts and durations,
// in the style of a CNN, an LSTM and a transformer) so the coordinator sees
// distinct fingerprints and kernel mixes. A guaranteed job's iteration time
// grows with the shares its GPU's opportunistic jobs run at
// (1 + kInterference * sum of their shares): the plant the coordinator's
// share controller acts on. An opportunistic job runs slower when throttled
// (its iteration time divided by its share). The numbers are plausible, not
// measured; what matters is that the control loop has slowdowns to act on.
#ifndef IASHIM_BENCH_LOAD_SIM_WORKLOAD_H_
#define IASHIM_BENCH_LOAD_SIM_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "libiashim/src/window_aggregator.h"

namespace iashim::load {

// A guaranteed job's slowdown per unit of opportunistic share on its GPU.
inline constexpr double kInterference = 0.15;

struct SimKernel {
  std::string name;
  uint32_t per_iteration;  // launches per training iteration
  uint64_t gpu_ns;         // duration alone on the GPU
  uint32_t grid_x, block_x;
};

struct SimModel {
  std::string name;  // for the command line in Hello
  std::vector<SimKernel> kernels;
  uint64_t iteration_ns;  // alone on the GPU
  uint64_t mem_bytes;
};

// Model `i % 3`.
const SimModel& ModelFor(int i);

// The kernel names as KernelNames carries them: (KernelId(name), name).
std::vector<std::pair<uint64_t, std::string>> KernelNamesOf(const SimModel& model);

// One process's training loop, advanced one telemetry window at a time.
class SimTrainingLoop {
 public:
  SimTrainingLoop(const SimModel& model, uint64_t seed) : model_(&model), rng_(seed | 1) {}

  // The window [start_ns, end_ns) at `slowdown` (iteration time / alone - 1);
  // kernel ids are indices into the model's kernels. `sample_every`: 1 in N
  // launches timed.
  WindowSummary Advance(uint64_t start_ns, uint64_t end_ns, double slowdown, uint32_t sample_every);

  uint64_t launches() const { return launches_; }

 private:
  double Noise();  // uniform in [-1, 1]

  const SimModel* model_;
  uint64_t rng_;
  double progress_ = 0;  // fraction of the current iteration done
  uint64_t launches_ = 0;
};

}  // namespace iashim::load

#endif  // IASHIM_BENCH_LOAD_SIM_WORKLOAD_H_
