// Turns iteration end times into per-second throughput reports: for each
// whole elapsed second t, the iterations that completed in (t-1, t].
#ifndef IASHIM_BENCH_FAKEJOB_THROUGHPUT_METER_H_
#define IASHIM_BENCH_FAKEJOB_THROUGHPUT_METER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iashim::fakejob {

struct SecondReport {
  double t = 0;       // end of the window, seconds since start
  int64_t iters = 0;  // iterations completed in the window
  double iters_per_s = 0;
  std::optional<double> iter_ms;  // mean duration of those; none if iters == 0
};

class ThroughputMeter {
 public:
  // Records an iteration that ended `end_s` seconds after the start and took
  // `iter_s` seconds. Returns the reports for every whole second that ended
  // before it (several if iterations are longer than a second).
  std::vector<SecondReport> AddIteration(double end_s, double iter_s);

  int64_t total_iters() const { return total_iters_; }

 private:
  int64_t next_t_ = 1;
  int64_t window_iters_ = 0;
  double window_iter_s_ = 0;
  int64_t total_iters_ = 0;
};

// {"t": 1.000, "iters_per_s": 9.000, "iter_ms": 102.000}, with "rank": N
// first for a data-parallel rank.
std::string SecondReportJson(const SecondReport& r, std::optional<int> rank = std::nullopt);

struct Summary {
  std::string model;
  int64_t iters = 0;
  double seconds = 0;
  double gpu_ms_mean = 0;  // event-timed GPU span per iteration
  int64_t launches = 0;    // kernels launched in all
  std::optional<int> rank;  // a data-parallel rank's
  int world_size = 1;       // its job's ranks
  // With --checkpoint: the iterations done before this run (checkpoint.h).
  std::optional<int64_t> resumed;
};

// {"summary": true, "model": ..., "iters": ..., "seconds": ...,
//  "iters_per_s": ..., "iter_ms": ..., "gpu_ms": ..., "launches": ...}, with
// "rank" and "world_size" for a data-parallel rank, "resumed" with a
// checkpoint (iters: this run's).
std::string SummaryJson(const Summary& s);

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_THROUGHPUT_METER_H_
