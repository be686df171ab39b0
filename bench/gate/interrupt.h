// SIGINT/SIGTERM/SIGHUP ask the benchmark to stop: waits end early and the run
// unwinds, so its jobs are killed and the simulated device files removed
// instead of being left behind by a default signal death.
#ifndef IASHIM_BENCH_GATE_INTERRUPT_H_
#define IASHIM_BENCH_GATE_INTERRUPT_H_

#include "absl/status/status.h"

namespace iashim::gatebench {

void InstallInterruptHandlers();
bool Interrupted();

// Sleeps `seconds` in short steps; Cancelled if interrupted meanwhile.
absl::Status SleepUnlessInterrupted(double seconds);

}  // namespace iashim::gatebench

#endif  // IASHIM_BENCH_GATE_INTERRUPT_H_
