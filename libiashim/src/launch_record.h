// What a hook writes per launch or synchronisation into its thread's buffer.
#ifndef IASHIM_LAUNCH_RECORD_H_
#define IASHIM_LAUNCH_RECORD_H_

#include <cstdint>

namespace iashim {

enum class RecordKind : uint8_t { kLaunch = 0, kGraphLaunch = 1, kSync = 2 };

// Which entry point produced a record (the trace reports it).
enum class CallApi : uint8_t {
  kLaunchKernel = 0,
  kLaunchKernelEx = 1,
  kLaunchCooperativeKernel = 2,
  kGraphLaunch = 3,
  kStreamSynchronize = 4,
  kCtxSynchronize = 5,
  kEventSynchronize = 6,
  kLaunchLegacy = 7,                    // cuLaunch, cuLaunchGrid, cuLaunchGridAsync
  kLaunchCooperativeMultiDevice = 8,    // one record per device's kernel
};

inline constexpr uint8_t kNotSampled = 0xff;
// A launch whose device could not be asked (no current context, or an
// ordinal past 254).
inline constexpr uint8_t kUnknownDevice = 0xff;

struct LaunchRecord {
  uint64_t ticks;        // CycleNow() after the call returned
  uint64_t stream;       // CUstream handle value (0: default stream)
  uint32_t kernel;       // KernelRegistry id of the function, or of the graph exec; 0 for syncs
  uint32_t shared_mem;   // dynamic shared memory bytes
  uint32_t grid[3];
  uint16_t block[3];     // block dimensions are at most 1024
  RecordKind kind;
  uint8_t sample;        // event-pair slot timing this launch, or kNotSampled
  CallApi api;
  uint8_t per_thread;    // 1 if the _ptsz (per-thread default stream) variant
  uint8_t device;        // CUdevice ordinal of the current context, or kUnknownDevice
};
static_assert(sizeof(LaunchRecord) == 48);

}  // namespace iashim

#endif  // IASHIM_LAUNCH_RECORD_H_
