// How long an all-reduce's transfer takes on the simulated links: NCCL's ring
// algorithm, 2(n-1) steps, each moving a 1/n chunk of the buffer between
// neighbouring ranks at the links' bus bandwidth, after a fixed per-step
// latency. One rank moves nothing.
#ifndef SIMGPU_COLLECTIVE_COST_H_
#define SIMGPU_COLLECTIVE_COST_H_

#include <cstdint>

namespace simgpu {

// NVLink 2.0 as a V100 SXM2 has it: six links of 25 GB/s each way (NVIDIA's
// datasheet: 300 GB/s in all), used whole by a ring through every GPU. NCCL
// measures less on real systems; SIMGPU_LINK_GBPS sets another figure.
inline constexpr double kDefaultLinkGbps = 150.0;
// Per ring step: an estimate of NCCL's low-latency protocol's hop latency
// (a few microseconds), not measured here.
inline constexpr double kRingStepLatencyNs = 5000.0;

// 1 GB/s moves one byte per nanosecond.
inline double AllReduceNs(uint64_t bytes, uint32_t nranks, double link_gbps) {
  if (nranks <= 1) return 0;
  const double steps = 2.0 * (nranks - 1);
  return steps * (double(bytes) / nranks / link_gbps + kRingStepLatencyNs);
}

}  // namespace simgpu

#endif  // SIMGPU_COLLECTIVE_COST_H_
