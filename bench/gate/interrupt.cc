#include "bench/gate/interrupt.h"

#include <signal.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <csignal>

namespace iashim::gatebench {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void OnInterrupt(int) { g_interrupted = 1; }

}  // namespace

void InstallInterruptHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

bool Interrupted() { return g_interrupted != 0; }

absl::Status SleepUnlessInterrupted(double seconds) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(seconds));
  for (;;) {
    if (Interrupted()) return absl::CancelledError("interrupted");
    const Clock::duration left = end - Clock::now();
    if (left <= Clock::duration::zero()) return absl::OkStatus();
    // 20 ms steps: a prompt reaction to Ctrl-C, negligible wake-ups.
    const auto step = std::min<Clock::duration>(left, std::chrono::milliseconds(20));
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(step).count();
    const timespec ts{static_cast<time_t>(ns / 1'000'000'000),
                      static_cast<long>(ns % 1'000'000'000)};
    ::nanosleep(&ts, nullptr);
  }
}

}  // namespace iashim::gatebench
