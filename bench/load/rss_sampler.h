// Samples a process's resident set size (VmRSS in /proc/PID/status) once a
// second on its own thread: the leak check's data.
#ifndef IASHIM_BENCH_LOAD_RSS_SAMPLER_H_
#define IASHIM_BENCH_LOAD_RSS_SAMPLER_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace iashim::load {

// VmRSS of `pid` in KiB; nullopt when the process or the line is not there.
std::optional<uint64_t> ReadRssKib(int pid);

// Least-squares slope of (seconds, KiB) points in KiB per minute; 0 with fewer than 2.
double SlopeKibPerMin(const std::vector<std::pair<double, uint64_t>>& points);

struct RssSummary {
  size_t samples = 0;
  uint64_t warmup_kib = 0;  // the first sample at or after the warm-up
  uint64_t end_kib = 0;     // the last sample
  uint64_t max_kib = 0;
  double second_half_slope_kib_per_min = 0;
};

class RssSampler {
 public:
  // Starts sampling `pid` now; `warmup_s` after this the reference is taken.
  RssSampler(int pid, double warmup_s);
  ~RssSampler();
  RssSampler(const RssSampler&) = delete;
  RssSampler& operator=(const RssSampler&) = delete;

  // Stops sampling (idempotent); Summary() is final afterwards.
  void Stop();
  RssSummary Summary();
  // False once a read failed (the process went away).
  bool alive() const { return alive_.load(); }

 private:
  void Run();

  const int pid_;
  const double warmup_s_;
  std::mutex mu_;
  std::vector<std::pair<double, uint64_t>> points_;  // seconds since start, KiB
  std::atomic<bool> stop_{false};
  std::atomic<bool> alive_{true};
  std::thread thread_;
};

}  // namespace iashim::load

#endif  // IASHIM_BENCH_LOAD_RSS_SAMPLER_H_
