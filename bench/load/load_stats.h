// What the simulated shims count, shared by the polling threads and the
// reporter: message counts (atomics) and budget delivery latencies.
#ifndef IASHIM_BENCH_LOAD_LOAD_STATS_H_
#define IASHIM_BENCH_LOAD_LOAD_STATS_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace iashim::load {

struct Percentiles {
  size_t count = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

// Nearest-rank percentiles of `samples_ns` (reordered). All 0 when empty.
Percentiles PercentilesOf(std::vector<int64_t>& samples_ns);

class LoadStats {
 public:
  std::atomic<uint64_t> sent{0};
  std::atomic<uint64_t> received{0};
  std::atomic<uint64_t> shim_dropped{0};      // messages a full shim queue dropped (coordinator behind)
  std::atomic<uint64_t> budgets{0};
  std::atomic<uint64_t> budgets_stale{0};     // seq not above the one in force: ignored
  std::atomic<uint64_t> advice_send_hello{0};
  std::atomic<uint64_t> advice_refused{0};
  std::atomic<uint64_t> received_invalid{0};  // failed verification or not for a shim
  std::atomic<uint64_t> joins{0};             // shim processes started (churn included)
  std::atomic<uint64_t> leaves{0};            // Goodbyes sent by churn

  // Budget received_unix_ns - issued_unix_ns.
  void AddLatency(int64_t ns);
  // The latencies since the last call, and all of them so far.
  Percentiles TakeInterval();
  Percentiles Overall();

 private:
  std::mutex mu_;
  std::vector<int64_t> interval_;
  std::vector<int64_t> all_;
};

}  // namespace iashim::load

#endif  // IASHIM_BENCH_LOAD_LOAD_STATS_H_
