// Threads that keep a CPU busy for the whole run, as a training process's
// intra-op pool or an input pipeline in the process does: with more of them
// than the process's CPUs, its own threads wait for a CPU behind each other
// (the case the shim must not report as the host's: libiashim/src/own_cpu_use.h).
#ifndef IASHIM_BENCH_FAKEJOB_BUSY_HOST_THREADS_H_
#define IASHIM_BENCH_FAKEJOB_BUSY_HOST_THREADS_H_

#include <atomic>
#include <thread>
#include <vector>

namespace iashim::fakejob {

class BusyHostThreads {
 public:
  // Starts `count` (0 or more) spinning threads; the destructor stops them.
  explicit BusyHostThreads(int count);
  ~BusyHostThreads();
  BusyHostThreads(const BusyHostThreads&) = delete;
  BusyHostThreads& operator=(const BusyHostThreads&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_BUSY_HOST_THREADS_H_
