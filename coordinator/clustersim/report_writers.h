// Writes what a replay measured: a table for people, JSON lines for
// scripts, and the --out files (summary.csv, summary.json, jobs-<policy>.csv,
// whose column names the plotting scripts read).
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_REPORT_WRITERS_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_REPORT_WRITERS_H_

#include <span>
#include <string>

#include "absl/status/status.h"
#include "coordinator/clustersim/replay.h"
#include "coordinator/clustersim/report.h"
#include "nlohmann/json.hpp"

namespace iashim::clustersim {

// Every summary field, by its name (NaN becomes null).
nlohmann::json SummaryJson(const PolicySummary& s);

// One JSON object per policy, one per line.
std::string SummaryJsonLines(std::span<const PolicyRun> runs);

// A fixed-width table: JCTs in hours, makespan in days.
std::string SummaryTable(std::span<const PolicyRun> runs);

// summary.csv: a header, then one row per policy, the fields of SummaryJson.
std::string SummaryCsv(std::span<const PolicyRun> runs);

// jobs-<policy>.csv: job,type,scale,arrival_s,start_s,finish_s,jct_s,solo_s,slowdown
std::string JobsCsv(std::span<const JobRecord> jobs);

// Creates `dir` if needed and writes summary.csv, summary.json and a
// jobs-<policy>.csv per policy.
absl::Status WriteOutDir(const std::string& dir, std::span<const PolicyRun> runs);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_REPORT_WRITERS_H_
