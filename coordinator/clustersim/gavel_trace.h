// Gavel's job traces (bench/data/gavel/msr-seed0/*.trace): one job a line,
// seven tab-separated fields
//   job_type  command  num_steps_arg  needs_data_dir  total_steps  arrival_time_s  scale_factor
// Only the job type, its step count, arrival and GPU count matter here; the
// command is never run.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_GAVEL_TRACE_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_GAVEL_TRACE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/clustersim/gavel_throughputs.h"

namespace iashim::clustersim {

struct TraceJob {
  std::string id;  // "<file stem>:<line>", unique across the merged traces
  JobType type;
  int64_t total_steps = 0;
  double arrival_s = 0;
};

// Parses one trace's text. Strict: exactly 7 fields, a non-empty job type,
// needs_data_dir 0 or 1, total_steps a positive integer, arrival a finite
// number >= 0, scale_factor a positive integer. Errors say "<source>:<line>:"
// and which field is wrong. A final newline is optional; blank lines are
// errors (a truncated or hand-edited trace should not pass silently).
// `stem` names the jobs.
absl::StatusOr<std::vector<TraceJob>> ParseGavelTrace(std::string_view text,
                                                      std::string_view source,
                                                      std::string_view stem);

absl::StatusOr<std::vector<TraceJob>> ReadGavelTraceFile(const std::string& path);

// Reads every file and merges the jobs by arrival time (ties: file order on
// the command line, then line order), so the same files give the same order.
absl::StatusOr<std::vector<TraceJob>> ReadGavelTraces(std::span<const std::string> paths);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_GAVEL_TRACE_H_
