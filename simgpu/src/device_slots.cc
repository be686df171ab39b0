#include "simgpu/src/device_slots.h"

#include <cstring>

namespace simgpu {

void InitDeviceState(DeviceState& s, const DeviceSpec& spec, int64_t now_ns) {
  std::memset(static_cast<void*>(&s), 0, sizeof(s));
  s.magic = kDeviceStateMagic;
  s.layout_version = kLayoutVersion;
  s.spec = spec;
  s.clock_ns = now_ns;
  s.last_reap_ns = now_ns;
}

int RegisterProcess(DeviceState& s, int32_t pid, uint64_t start_ticks) {
  int free_slot = -1;
  for (int i = 0; i < kMaxProcesses; ++i) {
    ProcessSlot& p = s.procs[i];
    if (p.in_use && p.pid == pid && p.start_ticks == start_ticks) return i;
    if (!p.in_use && free_slot < 0) free_slot = i;
  }
  if (free_slot < 0) return -1;
  ProcessSlot& p = s.procs[free_slot];
  std::memset(static_cast<void*>(&p), 0, sizeof(p));
  p.in_use = 1;
  p.pid = pid;
  p.start_ticks = start_ticks;
  p.registered_ns = s.clock_ns;
  return free_slot;
}

void ReleaseProcess(DeviceState& s, int process) {
  if (process < 0 || process >= kMaxProcesses || !s.procs[process].in_use) return;
  for (StreamSlot& st : s.streams) {
    if (st.state != SlotState::kFree && st.process == process) {
      st.completed = st.enqueued;
      st.head = 0;
      st.state = SlotState::kFree;
      st.generation++;
    }
  }
  for (EventSlot& e : s.events) {
    if (e.in_use && e.process == process) {
      e.in_use = 0;
      e.generation++;
    }
  }
  ProcessSlot& p = s.procs[process];
  s.mem_used = s.mem_used >= p.mem_bytes ? s.mem_used - p.mem_bytes : 0;
  std::memset(static_cast<void*>(&p), 0, sizeof(p));
}

int ReapDeadProcesses(DeviceState& s, const std::function<bool(int32_t, uint64_t)>& alive) {
  int reaped = 0;
  for (int i = 0; i < kMaxProcesses; ++i) {
    const ProcessSlot& p = s.procs[i];
    if (p.in_use && !alive(p.pid, p.start_ticks)) {
      ReleaseProcess(s, i);
      ++reaped;
    }
  }
  return reaped;
}

int AllocStream(DeviceState& s, int process) {
  for (int i = 0; i < kMaxStreams; ++i) {
    StreamSlot& st = s.streams[i];
    if (st.state != SlotState::kFree) continue;
    st.state = SlotState::kActive;
    st.process = process;
    st.generation++;
    st.head = 0;
    st.enqueued = 0;
    st.completed = 0;
    return i;
  }
  return -1;
}

void ReleaseStream(DeviceState& s, int stream) {
  StreamSlot& st = s.streams[stream];
  if (st.state == SlotState::kFree) return;
  st.state = st.enqueued == st.completed ? SlotState::kFree : SlotState::kDraining;
}

int AllocEvent(DeviceState& s, int process) {
  for (int i = 0; i < kMaxEvents; ++i) {
    EventSlot& e = s.events[i];
    if (e.in_use) continue;
    e.in_use = 1;
    e.process = process;
    e.generation++;
    e.done = 0;
    e.time_ns = 0;
    return i;
  }
  return -1;
}

void ReleaseEvent(DeviceState& s, int event) {
  EventSlot& e = s.events[event];
  e.in_use = 0;
  e.generation++;
}

bool ReserveMemory(DeviceState& s, int process, uint64_t bytes) {
  if (bytes > s.spec.memory_bytes || s.mem_used > s.spec.memory_bytes - bytes) return false;
  s.mem_used += bytes;
  s.procs[process].mem_bytes += bytes;
  return true;
}

void ReturnMemory(DeviceState& s, int process, uint64_t bytes) {
  ProcessSlot& p = s.procs[process];
  const uint64_t b = bytes <= p.mem_bytes ? bytes : p.mem_bytes;
  p.mem_bytes -= b;
  s.mem_used -= b;
}

}  // namespace simgpu
