// The state of one simulated GPU, as plain data that can live in shared memory.
//
// Every process that uses a simulated device maps the same DeviceState (see
// shared_device.h), so the layout holds no pointers, only fixed-size arrays and
// indices. The functions that change it (timeline.h) are pure: time is an input.
#ifndef SIMGPU_DEVICE_STATE_H_
#define SIMGPU_DEVICE_STATE_H_

#include <cstdint>

namespace simgpu {

inline constexpr uint64_t kDeviceStateMagic = 0x53494d4750550001ULL;  // "SIMGPU" + 1
inline constexpr uint32_t kLayoutVersion = 8;
// Room for a few hundred processes on one device at once (the fault tests
// start 200), each with its default stream and a few more.
inline constexpr int kMaxProcesses = 256;
inline constexpr int kMaxStreams = 512;
// Like a real GPU's launch queue: a launch into a full stream queue blocks.
inline constexpr int kStreamQueueDepth = 1024;
inline constexpr int kMaxEvents = 4096;
inline constexpr int kUtilSamples = 32;

enum class OpKind : uint8_t {
  kKernel = 0,
  kCopy = 1,         // host<->device transfer: contends only with other copies
  kEventRecord = 2,  // zero-work marker; completes the event when it reaches the head
  // A collective kernel (an all-reduce, collective_bus.h) runs in two phases.
  // Waiting: from reaching the head of its stream until every rank of its
  // group has reached the same collective; it occupies its SMs (NCCL's kernels
  // spin) but makes no progress. Then the transfer: `remaining_ns` of link time
  // (`spanning_ns` if the group's ranks are on more than one node), which SM
  // and memory contention do not slow.
  kCollectiveWaiting = 3,
  kCollectiveTransfer = 4,
};

// One queued item of a stream.
struct Op {
  double remaining_ns;     // solo-equivalent work still to do
  float mem_intensity;     // 0 = compute-bound .. 1 = memory-bound
  float sm_fill;           // fraction of the SMs the kernel can occupy, 0..1
  int32_t event_slot;      // kEventRecord: which event; collectives: the group's slot
  uint32_t event_generation;  // kEventRecord; collectives: this rank in the group
  uint64_t collective_seq;    // collectives: the rank's how-manyth collective in the group (1..)
  double spanning_ns;         // collectives: the transfer's time if the group spans nodes
  OpKind kind;
};

enum class SlotState : uint32_t { kFree = 0, kActive = 1, kDraining = 2 };

struct StreamSlot {
  SlotState state;
  int32_t process;     // owning process slot
  uint32_t generation;  // bumped on every allocation, so stale handles are detected
  uint32_t head;        // ring index of the oldest pending op
  uint64_t enqueued;    // ops ever enqueued; an op's sequence number is its count
  uint64_t completed;   // ops ever completed
  Op ring[kStreamQueueDepth];
};

struct ProcessSlot {
  uint32_t in_use;
  int32_t pid;
  uint64_t start_ticks;        // process start time, guards against pid reuse
  int64_t registered_ns;       // when it took the slot
  uint64_t mem_bytes;          // device memory allocated
  double gpu_time_ns;          // busy wall time, split evenly among running kernels
  double work_ns;              // solo-equivalent kernel time completed
  double active_ns;            // wall time with at least one kernel of this process running
  // Wall time its kernels ran, each interval weighted by their mean progress
  // rate: the GPU time the same work takes alone, which is what a GPU that
  // time-slices between processes accounts to it. NVML's per-process
  // utilisation reports this.
  double solo_time_ns;
  uint64_t kernels_launched;
  uint64_t kernels_completed;
};

struct EventSlot {
  uint32_t in_use;
  int32_t process;
  uint32_t generation;  // bumped on every record, so only the latest record completes it
  uint32_t done;
  int64_t time_ns;      // completion time (CLOCK_MONOTONIC) when done
};

struct UtilSample {
  int64_t t_ns;
  double busy_ns;
  double mem_busy_ns;
  double energy_j;
};

struct DeviceSpec {
  char name[96];
  uint64_t memory_bytes;
  int32_t sm_count;
  uint8_t uuid[16];
  // Board power (power_model.h): drawn with nothing running, and with every SM
  // busy.
  float idle_watts;
  float max_watts;
};

struct DeviceState {
  uint64_t magic;
  uint32_t layout_version;
  uint32_t reserved;
  DeviceSpec spec;
  int64_t clock_ns;       // simulated up to this time
  double busy_ns;         // wall time with at least one kernel running
  double mem_busy_ns;     // busy time weighted by how much DRAM bandwidth was in use
  uint64_t mem_used;      // sum of the processes' mem_bytes
  double energy_j;        // board energy since the device state was created (power_model.h)
  int64_t last_reap_ns;
  uint32_t util_next;
  UtilSample util[kUtilSamples];
  ProcessSlot procs[kMaxProcesses];
  StreamSlot streams[kMaxStreams];
  EventSlot events[kMaxEvents];
};

}  // namespace simgpu

#endif  // SIMGPU_DEVICE_STATE_H_
