// Simulated time on one device: queued work progressing under interference.
//
// The device is simulated lazily, as a discrete-event simulation that runs only
// when a process looks at it: Advance() moves the state from its clock to `now`,
// completing kernels and events and accounting GPU time on the way. Nothing runs
// between calls, so simulated work costs no CPU. A process that must wait asks
// ProjectCompletion() when its work will be done if nothing new arrives, and
// sleeps until then (new work only slows others down, so it never oversleeps by
// more than what it re-checks).
#ifndef SIMGPU_TIMELINE_H_
#define SIMGPU_TIMELINE_H_

#include <cstdint>
#include <vector>

#include "simgpu/src/collective_bus.h"
#include "simgpu/src/device_state.h"
#include "simgpu/src/interference_model.h"

namespace simgpu {

// Moves `s` forward to `now_ns` (no-op if its clock is already there). `bus`
// connects its collectives with their other ranks; without one, a collective
// waits for ever.
void Advance(DeviceState& s, int64_t now_ns, const InterferenceParams& p,
             CollectiveBus* bus = nullptr);

// A copy of the pending work of every stream, so that a projection can run
// without holding the device lock.
struct PendingWork {
  struct Queue {
    int stream;
    int32_t process;
    uint64_t completed;
    size_t first;  // index into ops
    size_t count;
  };
  int64_t clock_ns = 0;
  std::vector<Queue> queues;
  std::vector<Op> ops;
};

// Fills `out` from `s` (whose clock should be current).
void SnapshotPendingWork(const DeviceState& s, PendingWork& out);

// What ProjectCompletion returns when the work waits on a collective rank
// that has not arrived: its end cannot be known yet.
inline constexpr int64_t kNeverNs = INT64_MAX;

// When stream `stream` will have completed `seq` ops, if no new work arrives.
// Returns the snapshot's clock if that is already the case, kNeverNs if it
// waits on a rank of a collective that has not arrived.
// When it returns kNeverNs, `blocked` (if given) says which collective waits.
struct CollectiveWait {
  int32_t group = -1;
  uint64_t seq = 0;
};
int64_t ProjectCompletion(PendingWork& work, int stream, uint64_t seq,
                          const InterferenceParams& p, CollectiveBus* bus = nullptr,
                          CollectiveWait* blocked = nullptr);

// Appends `op` to a stream. Returns false if the stream's queue is full.
bool Enqueue(DeviceState& s, int stream, const Op& op, uint64_t* seq);

}  // namespace simgpu

#endif  // SIMGPU_TIMELINE_H_
