// What the shim's background thread pays, once per telemetry window, to read
// every thread's run-queue wait (libiashim/src/run_queue_wait.h): one
// schedstat file per thread of the process. Measured with this process
// holding `threads` extra idle threads (a training process has tens: data
// loaders' pin-memory thread, OpenMP pools, NCCL, autograd), beside no extra
// thread. At 10 windows a second (IASHIM_WINDOW_MS=100, the default) the time
// per call in microseconds is a thousandth of that in percent of one core.
#include <benchmark/benchmark.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "libiashim/src/run_queue_wait.h"

namespace {

// Threads that sleep until destroyed, as a pool's idle workers do.
class IdleThreads {
 public:
  explicit IdleThreads(int n) {
    for (int i = 0; i < n; ++i) {
      threads_.emplace_back([this] {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return stop_; });
      });
    }
  }
  ~IdleThreads() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

void TakeLongestWait(benchmark::State& state, size_t max_reads) {
  const IdleThreads idle(int(state.range(0)));
  iashim::RunQueueWait wait("/proc/self/task", max_reads);
  wait.TakeLongestWaitNs();
  for (auto _ : state) benchmark::DoNotOptimize(wait.TakeLongestWaitNs());
  // Files read: the idle threads' and this thread's, up to the cap.
  state.SetItemsProcessed(int64_t(state.iterations() * wait.last_reads()));
  // At 10 windows a second: 10 x seconds per call (time / (calls / 10)).
  state.counters["core_share"] = benchmark::Counter(
      double(state.iterations()) / 10, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// As the shim reads: at most RunQueueWait::kDefaultMaxReads files a call.
void BM_TakeLongestWait(benchmark::State& state) {
  TakeLongestWait(state, iashim::RunQueueWait::kDefaultMaxReads);
}
// Every thread's file every call: what the cap saves.
void BM_TakeLongestWaitUncapped(benchmark::State& state) { TakeLongestWait(state, SIZE_MAX); }

BENCHMARK(BM_TakeLongestWait)->ArgName("threads")->Arg(0)->Arg(16)->Arg(64)->Arg(256)->Arg(1024);
BENCHMARK(BM_TakeLongestWaitUncapped)->ArgName("threads")->Arg(256)->Arg(1024);

}  // namespace

BENCHMARK_MAIN();
