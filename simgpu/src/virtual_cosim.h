// Runs training-loop-shaped workloads against the device model in virtual time,
// with no processes and no sleeping: the same timeline code the driver uses,
// driven by an event loop. Used to calibrate the interference model and to
// predict what real processes on simgpu will measure.
#ifndef SIMGPU_VIRTUAL_COSIM_H_
#define SIMGPU_VIRTUAL_COSIM_H_

#include <vector>

#include "simgpu/src/device_state.h"
#include "simgpu/src/interference_model.h"

namespace simgpu {

struct VirtualKernel {
  int stream;  // 0 or 1
  Op op;
};

// One training iteration as iashim-fakejob runs it: stay on the CPU for
// host_gap_ns (data loading, optimiser bookkeeping), launch every kernel, then
// synchronise.
struct VirtualJob {
  std::vector<VirtualKernel> iteration;
  double host_gap_ns = 0;
};

// Runs `jobs` together on one device for `seconds` of virtual time and returns
// each job's iterations per second, measured after a warm-up of `warmup_s`.
std::vector<double> CoSimulate(const std::vector<VirtualJob>& jobs, const DeviceSpec& spec,
                               double seconds, double warmup_s, const InterferenceParams& params);

}  // namespace simgpu

#endif  // SIMGPU_VIRTUAL_COSIM_H_
