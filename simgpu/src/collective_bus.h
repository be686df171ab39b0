// What the device timeline needs to know about the other ranks of a collective:
// the rendezvous of an all-reduce. The timeline (timeline.h) stays pure: it
// reports arrivals and asks for release times through this interface, and
// collective_groups.h keeps them in memory shared by every process.
#ifndef SIMGPU_COLLECTIVE_BUS_H_
#define SIMGPU_COLLECTIVE_BUS_H_

#include <cstdint>
#include <optional>

namespace simgpu {

class CollectiveBus {
 public:
  virtual ~CollectiveBus() = default;
  // `rank` of group `group` reached its `seq`-th collective (1, 2, ...) at
  // `t_ns`; only the first report of an arrival counts.
  virtual void Arrive(int32_t group, uint32_t rank, uint64_t seq, int64_t t_ns) = 0;
  // Once every rank of `group` has reached its `seq`-th collective: the last of
  // their arrival times, counting `rank` (the asker) as arriving at `self_ns`
  // if it has not reported yet. nullopt while another rank has not.
  virtual std::optional<int64_t> Release(int32_t group, uint32_t rank, uint64_t seq,
                                         int64_t self_ns) = 0;
  // Whether the ranks of `group` are on more than one node, asked once a
  // collective is released (every rank has joined by then): its ring then
  // crosses the fabric between nodes (collective_cost.h).
  virtual bool SpansNodes(int32_t /*group*/) { return false; }
};

}  // namespace simgpu

#endif  // SIMGPU_COLLECTIVE_BUS_H_
