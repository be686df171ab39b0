// iashim-loadgen's command line.
#ifndef IASHIM_BENCH_LOAD_LOAD_OPTIONS_H_
#define IASHIM_BENCH_LOAD_LOAD_OPTIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace iashim::load {

struct LoadOptions {
  int shims = 1000;
  double seconds = 30;
  std::string endpoint = "tcp://127.0.0.1:5555";  // the coordinator's ROUTER
  int threads = 2;
  int shims_per_gpu = 4;      // one guaranteed shim per GPU, the rest opportunistic
  double churn_per_s = 0;     // shims leaving (Goodbye) and joining as new processes, per second
  double report_every_s = 10;
  double warmup_s = 10;       // RSS after this long is the leak check's reference
  int window_ms = 100;        // telemetry window, as IASHIM_WINDOW_MS
  int coordinator_pid = 0;    // sample its VmRSS; 0 = do not
  std::string metrics;        // HOST:PORT of the coordinator's /metrics; empty = do not scrape
  std::string write_cluster;  // write the matching cluster file here and exit
  bool json = false;
  bool help = false;
};

// Parses argv[1..]. Errors name the option and the value.
absl::StatusOr<LoadOptions> ParseLoadOptions(const std::vector<std::string>& args);

std::string LoadUsage();

}  // namespace iashim::load

#endif  // IASHIM_BENCH_LOAD_LOAD_OPTIONS_H_
