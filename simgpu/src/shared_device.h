// One simulated GPU's state, shared by every process that uses it through a
// file under /dev/shm, guarded by a robust process-shared mutex so that a
// process dying while it holds the lock does not wedge the others.
#ifndef SIMGPU_SHARED_DEVICE_H_
#define SIMGPU_SHARED_DEVICE_H_

#include <pthread.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "simgpu/src/collective_groups.h"
#include "simgpu/src/device_state.h"
#include "simgpu/src/interference_model.h"
#include "simgpu/src/shared_region.h"
#include "simgpu/src/timeline.h"

namespace simgpu {

// CLOCK_MONOTONIC in ns: the simulated device's clock is real time, shared by all
// processes on the machine.
int64_t MonotonicNowNs();

// Sleeps until CLOCK_MONOTONIC reaches `deadline_ns`.
void SleepUntilNs(int64_t deadline_ns);

// Whether the process (pid, start_ticks) still exists.
bool ProcessAlive(int32_t pid, uint64_t start_ticks);
// This process's start time in clock ticks since boot (from /proc/self/stat).
uint64_t SelfStartTicks();

// The file that holds physical device `index` of namespace `ns`.
std::string SharedDevicePath(std::string_view ns, int index);

class SharedDevice {
 public:
  // Maps (creating and initialising if needed) the state of device `index`.
  // With `register_process`, this process takes a slot on the device.
  static std::unique_ptr<SharedDevice> Open(std::string_view ns, int index,
                                            const DeviceSpec& spec, bool register_process,
                                            std::string* error);
  // Maps an existing device read-write without creating it (for NVML, and to
  // simulate another rank's device).
  static std::unique_ptr<SharedDevice> Attach(std::string_view ns, int index);
  ~SharedDevice();

  SharedDevice(const SharedDevice&) = delete;
  SharedDevice& operator=(const SharedDevice&) = delete;

  // Holds the device lock; AdvanceToNow() brings the simulation up to date and
  // releases the slots of processes that have died.
  class Lock {
   public:
    explicit Lock(SharedDevice& d);
    DeviceState& state() { return dev_.state(); }
    int64_t AdvanceToNow();

   private:
    SharedDevice& dev_;
    RobustLock lock_;
  };

  DeviceState& state();
  int process_slot() const { return process_slot_; }
  int index() const { return index_; }
  const InterferenceParams& params() const { return params_; }
  // The namespace's collective groups (mapped on first use), or null.
  CollectiveGroups* collectives() { return collectives_.Get(); }

  // Blocks until stream `stream` has completed `seq` ops (or the stream's slot
  // was reused, as after the process was reaped).
  void WaitForCompletion(int stream, uint32_t generation, uint64_t seq);

  // Releases this process's slot: its queued work is dropped.
  void ReleaseSelf();

 private:
  struct Region;
  SharedDevice(Region* region, size_t size, int process_slot, std::string_view ns, int index);
  // Simulates, up to now, the devices of the ranks `blocked` waits for.
  // True when that recorded an arrival (fewer of them are behind after).
  bool SimulateDevicesBehind(const CollectiveWait& blocked);

  Region* region_;
  size_t size_;
  int process_slot_;
  InterferenceParams params_;
  const std::string ns_;
  const int index_;
  // The namespace's collective groups, which the device's collectives meet in.
  NamespaceCollectives collectives_;
  // Other devices of the namespace, attached to simulate them (SimulateDevicesBehind).
  std::mutex peers_mu_;
  std::map<int, std::unique_ptr<SharedDevice>> peers_;
};

}  // namespace simgpu

#endif  // SIMGPU_SHARED_DEVICE_H_
