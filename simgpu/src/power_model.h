// How much power a simulated GPU draws: its idle power, plus the rest of its
// board power in proportion to how much of the SMs its running kernels occupy.
//
//     P = idle_watts + (max_watts - idle_watts) * min(1, sum of running kernels' sm_fill)
//
// The default device's figures are a V100 SXM2's: 300 W board power (NVIDIA's
// datasheet) and about 40 W idle (what nvidia-smi commonly shows for an idle
// V100 SXM2; an estimate). Not modelled: clocks and power capping, and that a
// memory-bound kernel draws a different power than a compute-bound one at the
// same occupancy.
#ifndef SIMGPU_POWER_MODEL_H_
#define SIMGPU_POWER_MODEL_H_

#include <algorithm>

#include "simgpu/src/device_state.h"

namespace simgpu {

inline constexpr float kDefaultIdleWatts = 40.0f;
inline constexpr float kDefaultMaxWatts = 300.0f;

// Watts drawn with kernels occupying `occupancy` (sum of their SM fills) of the
// SMs; occupancy above 1 counts as 1.
inline double BoardPowerWatts(const DeviceSpec& spec, double occupancy) {
  const double busy = std::clamp(occupancy, 0.0, 1.0);
  return spec.idle_watts + (double(spec.max_watts) - spec.idle_watts) * busy;
}

}  // namespace simgpu

#endif  // SIMGPU_POWER_MODEL_H_
