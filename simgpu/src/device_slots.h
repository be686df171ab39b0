// Allocation of a device's shared slots (processes, streams, events) and of its
// memory, and the release of everything a dead process held.
#ifndef SIMGPU_DEVICE_SLOTS_H_
#define SIMGPU_DEVICE_SLOTS_H_

#include <cstdint>
#include <functional>

#include "simgpu/src/device_state.h"

namespace simgpu {

// Resets `s` to an idle device described by `spec`.
void InitDeviceState(DeviceState& s, const DeviceSpec& spec, int64_t now_ns);

// Returns the process slot for (pid, start_ticks), taking a free one if needed,
// or -1 when all are in use.
int RegisterProcess(DeviceState& s, int32_t pid, uint64_t start_ticks);

// Frees everything the process holds: its queued work is dropped, as when a
// process with a CUDA context exits.
void ReleaseProcess(DeviceState& s, int process);

// Releases every registered process for which `alive(pid, start_ticks)` is false.
// Returns how many were released.
int ReapDeadProcesses(DeviceState& s, const std::function<bool(int32_t, uint64_t)>& alive);

// Returns a new stream slot owned by `process`, or -1 when none is free.
int AllocStream(DeviceState& s, int process);
// The stream finishes its queued work, then its slot is freed.
void ReleaseStream(DeviceState& s, int stream);

int AllocEvent(DeviceState& s, int process);
void ReleaseEvent(DeviceState& s, int event);

// Accounts `bytes` to `process` if the device has room; false means out of memory.
bool ReserveMemory(DeviceState& s, int process, uint64_t bytes);
void ReturnMemory(DeviceState& s, int process, uint64_t bytes);

}  // namespace simgpu

#endif  // SIMGPU_DEVICE_SLOTS_H_
