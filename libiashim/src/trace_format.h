// The IASHIM_TRACE file format, version 1. Little-endian, no padding between
// entries.
//
//   TraceHeader (32 bytes), then entries until end of file, each:
//     uint16 type, uint16 length (bytes of payload that follow), payload.
//
//   type 1 kernel name  : TraceKernelName (16 bytes) + name bytes (no NUL);
//                         written before the first launch of that kernel.
//   type 2 launch/sync  : TraceLaunch (56 bytes), one per launch, graph
//                         launch or synchronising call, in drain order (per
//                         thread in call order; threads interleave in chunks).
//   type 3 GPU time     : TraceGpuTime (24 bytes), a sampled launch's duration,
//                         after that launch's entry; matched by (thread, seq).
//   type 4 totals       : TraceTotals (48 bytes), at clean exit only.
//
// A reader skips entries of unknown type by their length, and stops quietly at
// a truncated final entry (the process died mid-write).
#ifndef IASHIM_TRACE_FORMAT_H_
#define IASHIM_TRACE_FORMAT_H_

#include <cstdint>

namespace iashim {

inline constexpr char kTraceMagic[8] = {'I', 'A', 'S', 'H', 'I', 'M', 'T', 'R'};
inline constexpr uint32_t kTraceVersion = 1;

enum class TraceEntry : uint16_t { kKernelName = 1, kLaunch = 2, kGpuTime = 3, kTotals = 4 };

struct TraceHeader {
  char magic[8];
  uint32_t version;
  uint32_t pid;
  uint64_t start_monotonic_ns;
  uint64_t start_unix_ns;
};
static_assert(sizeof(TraceHeader) == 32);

struct TraceKernelName {
  uint32_t kernel;  // process-local id, as in TraceLaunch
  uint32_t reserved;
  uint64_t hash;    // KernelId(name), the id used on the wire
};
static_assert(sizeof(TraceKernelName) == 16);

// event: 0 launch, 1 graph launch, 2 sync (as RecordKind).
// flags: bit 0 set when the per-thread-default-stream (_ptsz) variant was
// called; bits 1-4 the entry point: 0 cuLaunchKernel, 1 cuLaunchKernelEx,
// 2 cuLaunchCooperativeKernel, 3 cuGraphLaunch, 4 cuStreamSynchronize,
// 5 cuCtxSynchronize, 6 cuEventSynchronize.
struct TraceLaunch {
  uint64_t time_ns;  // CLOCK_MONOTONIC when the call returned
  uint64_t seq;      // per-thread sequence number
  uint64_t stream;
  uint32_t thread;   // per-process thread index
  uint32_t kernel;   // the function's id; a graph launch: the graph's; 0: syncs, unknown
  uint32_t grid[3];
  uint16_t block[3];
  uint8_t event;
  uint8_t flags;
  uint32_t shared_mem;
};
static_assert(sizeof(TraceLaunch) == 56);

inline constexpr uint8_t TraceFlags(uint8_t api, bool per_thread) {
  return uint8_t((api << 1) | (per_thread ? 1 : 0));
}
inline constexpr bool TracePerThread(uint8_t flags) { return (flags & 1) != 0; }
inline constexpr uint8_t TraceApi(uint8_t flags) { return uint8_t(flags >> 1); }

struct TraceGpuTime {
  uint32_t thread;
  uint32_t reserved;
  uint64_t seq;
  uint64_t gpu_ns;
};
static_assert(sizeof(TraceGpuTime) == 24);

struct TraceTotals {
  uint64_t launches;
  uint64_t graph_launches;
  uint64_t syncs;
  uint64_t records_dropped;
  uint64_t samples;
  uint64_t reserved;
};
static_assert(sizeof(TraceTotals) == 48);

}  // namespace iashim

#endif  // IASHIM_TRACE_FORMAT_H_
