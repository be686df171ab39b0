#include "libiashim/src/cycle_clock.h"

#include <cstdio>
#include <cstring>

namespace iashim {

bool g_cycle_clock_tsc = false;

namespace {

// The TSC is a usable clock only if it ticks at a constant rate through
// frequency changes and sleep states ("constant_tsc" and "nonstop_tsc").
bool InvariantTsc() {
#if defined(__x86_64__)
  FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (f == nullptr) return false;
  char line[4096];
  bool constant = false, nonstop = false;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "flags", 5) != 0) continue;
    constant = std::strstr(line, " constant_tsc") != nullptr;
    nonstop = std::strstr(line, " nonstop_tsc") != nullptr;
    break;
  }
  std::fclose(f);
  return constant && nonstop;
#else
  return false;
#endif
}

}  // namespace

void InitCycleClock() { g_cycle_clock_tsc = InvariantTsc(); }

bool CycleClockUsesTsc() { return g_cycle_clock_tsc; }

TickConverter::TickConverter() : base_ticks_(CycleNow()), base_ns_(MonotonicNs()) {
  if (!g_cycle_clock_tsc) return;
  // A first rate from a 2 ms span; Refresh() improves it. Only the background
  // thread builds a converter, so this sleep never delays the application.
  const timespec pause{0, 2'000'000};
  nanosleep(&pause, nullptr);
  Refresh();
}

void TickConverter::Refresh() {
  if (!g_cycle_clock_tsc) return;
  const uint64_t ticks = CycleNow();
  const uint64_t ns = MonotonicNs();
  // Re-anchor only once the span makes the rate estimate good to ~1e-5.
  if (ns - base_ns_ < 1'000'000 || ticks <= base_ticks_) return;
  ns_per_tick_ = double(ns - base_ns_) / double(ticks - base_ticks_);
  if (ns - base_ns_ > 10'000'000'000ULL) {
    base_ticks_ = ticks;
    base_ns_ = ns;
  }
}

uint64_t TickConverter::ToNs(uint64_t ticks) const {
  if (!g_cycle_clock_tsc) return ticks;
  const double delta = (double(ticks) - double(base_ticks_)) * ns_per_tick_;
  const double ns = double(base_ns_) + delta;
  return ns <= 0 ? 0 : uint64_t(ns);
}

}  // namespace iashim
