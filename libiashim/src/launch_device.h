// Which device a launch runs on, for per-device telemetry and budgets: the
// device of the calling thread's current context (a launch's stream must
// belong to it). Asking the driver on every launch would cost more than the
// rest of the launch path, so the answer is kept per thread and asked again
// only after the thread's current context may have changed: every hooked call
// that sets, pushes, pops or creates one counts a change on its thread
// (hooks_context.cc), and a context that may have been destroyed bumps a
// process-wide generation (a new context could take its address).
#ifndef IASHIM_LAUNCH_DEVICE_H_
#define IASHIM_LAUNCH_DEVICE_H_

#include <atomic>
#include <cstdint>

#include "libiashim/src/cuda_api.h"
#include "libiashim/src/launch_record.h"
#include "libiashim/src/real_driver.h"

namespace iashim {

// Bumped before any call that may destroy a context (hooks_context.cc).
extern std::atomic<uint32_t> g_context_generation;

// Changes of this thread's current context so far.
extern thread_local uint32_t tls_context_changes __attribute__((tls_model("initial-exec")));

inline void NoteContextChange() { ++tls_context_changes; }

// One thread's last answer (in its ThreadBuffer); none yet until asked.
struct DeviceCache {
  uint32_t changes = ~uint32_t{0};
  uint32_t generation = 0;
  uint8_t device = kUnknownDevice;
};

// An ordinal as a record holds it.
inline uint8_t RecordedDevice(CUdevice device) {
  return device >= 0 && device < kUnknownDevice ? static_cast<uint8_t>(device) : kUnknownDevice;
}

inline uint8_t CurrentLaunchDevice(DeviceCache* cache) {
  const uint32_t changes = tls_context_changes;
  const uint32_t generation = g_context_generation.load(std::memory_order_acquire);
  if (__builtin_expect(changes == cache->changes && generation == cache->generation, 1)) {
    return cache->device;
  }
  auto get_device = IASHIM_REAL(cuCtxGetDevice);
  CUdevice device = -1;
  if (get_device == nullptr || get_device(&device) != CUDA_SUCCESS) device = -1;
  *cache = DeviceCache{changes, generation, RecordedDevice(device)};
  return cache->device;
}

// The device of `stream`'s context, for a call that launches on several
// devices' streams at once (not cached: that launch is rare and deprecated).
inline uint8_t StreamDevice(CUstream stream, DeviceCache* cache) {
  auto get_device = IASHIM_REAL(cuStreamGetDevice);
  CUdevice device = -1;
  if (stream != nullptr && get_device != nullptr && get_device(stream, &device) == CUDA_SUCCESS) {
    return RecordedDevice(device);
  }
  return CurrentLaunchDevice(cache);
}

}  // namespace iashim

#endif  // IASHIM_LAUNCH_DEVICE_H_
