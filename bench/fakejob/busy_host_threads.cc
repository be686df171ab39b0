#include "bench/fakejob/busy_host_threads.h"

namespace iashim::fakejob {

BusyHostThreads::BusyHostThreads(int count) {
  for (int i = 0; i < count; ++i) {
    threads_.emplace_back([this] {
      // Spins: its CPU time is what the process asks of the host.
      while (!stop_.load(std::memory_order_relaxed)) {
      }
    });
  }
}

BusyHostThreads::~BusyHostThreads() {
  stop_.store(true, std::memory_order_relaxed);
  for (std::thread& t : threads_) t.join();
}

}  // namespace iashim::fakejob
