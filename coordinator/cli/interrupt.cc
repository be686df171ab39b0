#include "coordinator/cli/interrupt.h"

#include <signal.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <csignal>

namespace iashim::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void OnInterrupt(int) { g_interrupted = 1; }

}  // namespace

void CatchInterrupt() {
  struct sigaction action = {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
}

bool Interrupted() { return g_interrupted != 0; }

bool SleepUnlessInterrupted(double seconds) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(seconds));
  // In slices: a signal that lands between the check and the sleep would
  // otherwise be noticed only after the whole sleep.
  while (!Interrupted()) {
    const Clock::time_point now = Clock::now();
    if (now >= end) return true;
    const auto slice = std::min<Clock::duration>(end - now, std::chrono::milliseconds(100));
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(slice).count();
    timespec ts = {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    nanosleep(&ts, nullptr);
  }
  return false;
}

}  // namespace iashim::cli
