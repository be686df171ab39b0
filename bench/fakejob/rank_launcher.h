// `iashim-fakejob --ranks N`: starts the job's N rank processes as torchrun
// does, each a copy of this program with one GPU, told its place through the
// environment (data_parallel.h).
#ifndef IASHIM_BENCH_FAKEJOB_RANK_LAUNCHER_H_
#define IASHIM_BENCH_FAKEJOB_RANK_LAUNCHER_H_

#include <string>
#include <vector>

namespace iashim::fakejob {

// Runs `ranks` copies of /proc/self/exe with `args` (which must not ask for
// ranks again), each with RANK and LOCAL_RANK (0..ranks-1), WORLD_SIZE, and
// MASTER_ADDR=127.0.0.1 with a MASTER_PORT free on loopback, so that they meet
// in one all-reduce group; the rest of the environment (LD_PRELOAD, IASHIM_*,
// CUDA_VISIBLE_DEVICES) is inherited. SIGINT and SIGTERM are passed on. When a
// rank fails the others are stopped (they would wait for it for ever, as NCCL
// ranks do). Returns the first failing rank's exit status (128 + signal if it
// was killed), or 0.
int LaunchRanks(int ranks, const std::vector<std::string>& args);

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_RANK_LAUNCHER_H_
