// How long an all-reduce's transfer takes on the simulated links: NCCL's ring
// algorithm, 2(n-1) steps, each moving a 1/n chunk of the buffer between
// neighbouring ranks at the links' bus bandwidth, after a fixed per-step
// latency. One rank moves nothing. A ring whose ranks are on more than one
// node crosses the fabric between them (SIMGPU_FABRIC_GBPS).
#ifndef SIMGPU_COLLECTIVE_COST_H_
#define SIMGPU_COLLECTIVE_COST_H_

#include <cstdint>

namespace simgpu {

// NVLink 2.0 as a V100 SXM2 has it: six links of 25 GB/s each way (NVIDIA's
// datasheet: 300 GB/s in all), used whole by a ring through every GPU. NCCL
// measures less on real systems; SIMGPU_LINK_GBPS sets another figure.
inline constexpr double kDefaultLinkGbps = 150.0;
// The network between nodes: one 100 Gb/s InfiniBand EDR port per node, as the
// servers of Microsoft's Philly cluster had (Jeon et al., USENIX ATC 2019),
// whose traces the simulator replays. SIMGPU_FABRIC_GBPS sets another figure.
inline constexpr double kDefaultFabricGbps = 12.5;
// Per ring step: an estimate of NCCL's low-latency protocol's hop latency
// (a few microseconds), not measured here.
inline constexpr double kRingStepLatencyNs = 5000.0;

// The bus bandwidth of a ring within one node (`spans_nodes` false) or across
// nodes. Every step of a ring moves its chunk over every hop at once and the
// next step starts when all hops have delivered, so the slowest hop paces the
// whole ring: across nodes that is the lesser of the links and the fabric.
inline double RingGbps(double link_gbps, double fabric_gbps, bool spans_nodes) {
  return spans_nodes && fabric_gbps < link_gbps ? fabric_gbps : link_gbps;
}

// 1 GB/s moves one byte per nanosecond.
inline double AllReduceNs(uint64_t bytes, uint32_t nranks, double link_gbps) {
  if (nranks <= 1) return 0;
  const double steps = 2.0 * (nranks - 1);
  return steps * (double(bytes) / nranks / link_gbps + kRingStepLatencyNs);
}

}  // namespace simgpu

#endif  // SIMGPU_COLLECTIVE_COST_H_
