// A timestamp cheap enough for every launch: the CPU's invariant TSC on x86-64
// (a few nanoseconds, no syscall), CLOCK_MONOTONIC elsewhere. The background
// thread converts ticks to CLOCK_MONOTONIC nanoseconds with TickConverter.
#ifndef IASHIM_CYCLE_CLOCK_H_
#define IASHIM_CYCLE_CLOCK_H_

#include <time.h>

#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace iashim {

inline uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ULL + uint64_t(ts.tv_nsec);
}

// True when ticks are TSC cycles (decided once, before any tick is taken).
bool CycleClockUsesTsc();
void InitCycleClock();

inline uint64_t CycleNow() {
#if defined(__x86_64__)
  extern bool g_cycle_clock_tsc;
  if (g_cycle_clock_tsc) return __rdtsc();
#endif
  return MonotonicNs();
}

// Maps ticks to monotonic nanoseconds from two reference points that it keeps
// refreshing; the rate estimate improves as the span between them grows.
class TickConverter {
 public:
  TickConverter();
  // Takes a new reference point now (call often, e.g. every drain pass).
  void Refresh();
  uint64_t ToNs(uint64_t ticks) const;

 private:
  uint64_t base_ticks_;
  uint64_t base_ns_;
  double ns_per_tick_ = 1.0;
};

}  // namespace iashim

#endif  // IASHIM_CYCLE_CLOCK_H_
