// How concurrently running kernels slow each other down on a simulated GPU.
//
// Each running item i (a kernel or a copy) progresses at rate
//
//     rate_i = 1 / (1 + sum over the other running items j of phi(i, j))
//
// where, for two kernels with SM fill f, memory intensity m and compute
// intensity c = 1 - m,
//
//     phi(i, j) = f_i * f_j * (kCompute * c_i * c_j + kMemory * m_i * m_j)
//                 + (different processes ? kContextSwitch : 0)
//
// Two kernels that both fill the GPU's SMs with compute time-share them (rate 1/2
// each), two memory-bound kernels share DRAM bandwidth alike, and a compute-bound
// kernel overlaps well with a memory-bound one. Kernels of different processes
// also pay the cost of the GPU switching between their contexts. Copies share the
// PCIe link only with other copies. The constants are calibrated so that pairs of
// the bundled model profiles land in the range Gavel measured on a V100 (median
// job keeps ~0.68 of its solo throughput, median pair sums to ~1.37); the test
// tests/simgpu/calibration_test.cc keeps that calibration.
#ifndef SIMGPU_INTERFERENCE_MODEL_H_
#define SIMGPU_INTERFERENCE_MODEL_H_

#include <span>

#include "device_state.h"

namespace simgpu {

struct InterferenceParams {
  double compute = 1.0;         // SM contention between compute-bound kernels
  double memory = 1.0;          // DRAM bandwidth contention between memory-bound kernels
  double context_switch = 0.12; // time-slicing cost between processes
  double copy = 1.0;            // PCIe contention between copies
};

// What the model needs to know about one running item.
struct RunningItem {
  OpKind kind;
  float mem_intensity;
  float sm_fill;
  int32_t process;
};

// Pairwise slowdown term phi(a, b).
double PairPenalty(const RunningItem& a, const RunningItem& b, const InterferenceParams& p);

// Fills rates[i] with the progress rate (solo-work per wall time, 0..1] of items[i].
void ComputeRates(std::span<const RunningItem> items, std::span<double> rates,
                  const InterferenceParams& p);

}  // namespace simgpu

#endif  // SIMGPU_INTERFERENCE_MODEL_H_
