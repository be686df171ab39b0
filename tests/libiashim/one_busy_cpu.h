// One CPU made busy for a test: the calling thread and `loops` spinning
// threads are confined to the first CPU the calling thread may run on, so it
// (and any process it starts meanwhile, which inherits its CPU) waits in the
// run queue. The destructor stops the loops and gives the thread its CPUs back.
#ifndef IASHIM_TESTS_LIBIASHIM_ONE_BUSY_CPU_H_
#define IASHIM_TESTS_LIBIASHIM_ONE_BUSY_CPU_H_

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <thread>
#include <vector>

namespace iashim_test {

class OneBusyCpu {
 public:
  explicit OneBusyCpu(int loops) {
    ok_ = pthread_getaffinity_np(pthread_self(), sizeof before_, &before_) == 0;
    int cpu = 0;
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &before_)) ++cpu;
    CPU_ZERO(&one_);
    CPU_SET(cpu, &one_);
    for (int i = 0; i < loops; ++i) {
      loops_.emplace_back([this] {
        pthread_setaffinity_np(pthread_self(), sizeof one_, &one_);
        while (!stop_.load(std::memory_order_relaxed)) {
        }
      });
    }
    ok_ = ok_ && pthread_setaffinity_np(pthread_self(), sizeof one_, &one_) == 0;
  }
  ~OneBusyCpu() { Release(); }
  OneBusyCpu(const OneBusyCpu&) = delete;
  OneBusyCpu& operator=(const OneBusyCpu&) = delete;

  // The calling thread is on the busy CPU.
  bool ok() const { return ok_; }

  // Stops the loops and gives the thread its CPUs back (at most once).
  void Release() {
    if (released_) return;
    released_ = true;
    pthread_setaffinity_np(pthread_self(), sizeof before_, &before_);
    stop_ = true;
    for (std::thread& t : loops_) t.join();
  }

 private:
  cpu_set_t before_;
  cpu_set_t one_;
  bool ok_ = false;
  bool released_ = false;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> loops_;
};

}  // namespace iashim_test

#endif  // IASHIM_TESTS_LIBIASHIM_ONE_BUSY_CPU_H_
