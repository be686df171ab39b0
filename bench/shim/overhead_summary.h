// The table shim_overhead_bench prints after its runs: for each shim benchmark
// the median time per call, the median of its direct twin from the same
// process, and their difference ("added ns per call").
//
// It is a console reporter that also keeps what it prints, so the numbers in
// the table are exactly those of the rows above it.
#ifndef IASHIM_BENCH_SHIM_OVERHEAD_SUMMARY_H_
#define IASHIM_BENCH_SHIM_OVERHEAD_SUMMARY_H_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace iashim_bench {

// The median of `values` (the mean of the middle two for an even count); 0 if empty.
double Median(std::vector<double> values);

// "BM_LaunchShim8Kernels/paced:1" -> "BM_LaunchDirect8Kernels/paced:1"; empty
// if the name has no "Shim".
std::string DirectTwin(const std::string& shim_name);

class OverheadSummary : public benchmark::ConsoleReporter {
 public:
  explicit OverheadSummary(OutputOptions options) : ConsoleReporter(options) {}

  void ReportRuns(const std::vector<Run>& runs) override;

  // One row per shim benchmark whose direct twin ran too.
  void Print(std::ostream& out) const;

  // Runs that reported an error (SkipWithError).
  int errors() const { return errors_; }

 private:
  struct Series {
    std::vector<double> cpu_ns;  // per repetition
    std::vector<double> real_ns;
    std::vector<double> dropped_pct;
    int64_t aggregate_of = 0;  // >0: only the median of this many repetitions was reported
  };
  Series& SeriesFor(const std::string& name);

  std::vector<std::string> order_;  // names in the order they ran
  std::map<std::string, Series> series_;
  int errors_ = 0;
};

}  // namespace iashim_bench

#endif  // IASHIM_BENCH_SHIM_OVERHEAD_SUMMARY_H_
