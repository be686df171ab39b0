// Power per GPU for the energy iashim-clustersim reports (README.md, "Energy").
// A GPU draws its idle power whenever it is on (every GPU, for the whole
// makespan) and, while it holds jobs, up to its board power more in
// proportion to its occupancy: the solo-equivalent work it does, 1 for one
// job alone or a gang's GPU, the sum of a pair's normalised throughputs
// (capped at 1) when two share it. A simple linear model: real boards draw
// less than their limit on memory-bound work and more on tensor-core bursts;
// what it ranks is how much GPU time and idle time a policy spends per job.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_POWER_MODEL_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_POWER_MODEL_H_

#include <optional>
#include <string_view>

namespace iashim::clustersim {

struct GpuPower {
  double idle_w = 0;  // on, no work
  double busy_w = 0;  // at full occupancy: the board power limit
};

// From public spec sheets: V100 SXM2 board power 300 W (NVIDIA Tesla V100
// datasheet); idle about 40 W (nvidia-smi on an idle V100 with a context
// open reads 35-45 W in public reports; not a datasheet figure). K80 (per
// GPU, half a board) 150 W and 25 W; P100 SXM2 300 W and 30 W. nullopt for
// a type without figures: energy is then not reported.
inline std::optional<GpuPower> PowerOf(std::string_view gpu_type) {
  if (gpu_type == "v100") return GpuPower{40, 300};
  if (gpu_type == "p100") return GpuPower{30, 300};
  if (gpu_type == "k80") return GpuPower{25, 150};
  return std::nullopt;
}

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_POWER_MODEL_H_
