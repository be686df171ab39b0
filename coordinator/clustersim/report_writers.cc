#include "coordinator/clustersim/report_writers.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/clustersim/text.h"

namespace iashim::clustersim {
namespace {

// Summary fields in output order.
const char* const kSummaryFields[] = {
    "policy",
    "jobs",
    "skipped",
    "unplaceable",
    "gpus",
    "arrival_scale",
    "seed",
    "mean_jct_s",
    "p50_jct_s",
    "p99_jct_s",
    "makespan_s",
    "gpu_util",
    "mean_slowdown",
    "p99_slowdown",
    "later_than_exclusive",
    "shared_jobs",
    "pair_starts",
    "place_calls",
    "predictor_mae",
    "predictor_predictions",
    "gpu_hours",
    "energy_kwh",
    "energy_per_job_kwh",
    "not_whole_nodes",
    "wider_than_cluster",  // unplaceable's two reasons
    "migrations",
};

nlohmann::json Number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

// RFC 4180: quote a field holding a comma, quote or line break.
std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string CsvCell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return CsvField(v.get<std::string>());
  if (v.is_number_float()) return absl::StrFormat("%.10g", v.get<double>());
  return v.dump();
}

absl::Status WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::UnavailableError(Cat(path.string(), ": cannot create"));
  out << text;
  out.close();
  if (!out) return absl::DataLossError(Cat(path.string(), ": write failed"));
  return absl::OkStatus();
}

std::string Hours(double s) { return absl::StrFormat("%.2f", s / 3600); }

}  // namespace

nlohmann::json SummaryJson(const PolicySummary& s) {
  nlohmann::json j;
  j["policy"] = s.policy;
  j["jobs"] = s.jobs;
  j["skipped"] = s.skipped;
  j["unplaceable"] = s.not_whole_nodes + s.wider_than_cluster;
  j["not_whole_nodes"] = s.not_whole_nodes;
  j["wider_than_cluster"] = s.wider_than_cluster;
  j["gpus"] = s.gpus;
  j["arrival_scale"] = Number(s.arrival_scale);
  j["seed"] = s.seed;
  j["mean_jct_s"] = Number(s.mean_jct_s);
  j["p50_jct_s"] = Number(s.p50_jct_s);
  j["p99_jct_s"] = Number(s.p99_jct_s);
  j["makespan_s"] = Number(s.makespan_s);
  j["gpu_util"] = Number(s.gpu_util);
  j["mean_slowdown"] = Number(s.mean_slowdown);
  j["p99_slowdown"] = Number(s.p99_slowdown);
  j["later_than_exclusive"] = s.later_than_exclusive;
  j["shared_jobs"] = s.shared_jobs;
  j["pair_starts"] = s.pair_starts;
  j["place_calls"] = s.place_calls;
  j["migrations"] = s.migrations;
  j["predictor_mae"] = Number(s.predictor_mae);
  j["predictor_predictions"] = s.predictor_predictions;
  j["gpu_hours"] = Number(s.gpu_hours);
  j["energy_kwh"] = Number(s.energy_kwh);
  j["energy_per_job_kwh"] = Number(s.energy_per_job_kwh);
  return j;
}

std::string SummaryJsonLines(std::span<const PolicyRun> runs) {
  std::string out;
  for (const PolicyRun& run : runs) Append(&out, SummaryJson(run.summary).dump(), "\n");
  return out;
}

std::string SummaryTable(std::span<const PolicyRun> runs) {
  std::string out = absl::StrFormat("%-10s %6s %9s %9s %10s %9s %5s %8s %8s %6s %7s %6s %9s\n",
                                    "policy", "jobs", "meanJCT_h", "p50JCT_h", "p99JCT_h",
                                    "makespan_d", "util", "mean_sd", "p99_sd", "later", "shared",
                                    "mae", "kWh/job");
  for (const PolicyRun& run : runs) {
    const PolicySummary& s = run.summary;
    absl::StrAppendFormat(&out, "%-10s %6d %9s %9s %10s %9.2f %5.2f %8.2f %8.2f %6d %7d %6s %9.1f\n",
                          s.policy, s.jobs, Hours(s.mean_jct_s), Hours(s.p50_jct_s),
                          Hours(s.p99_jct_s), s.makespan_s / 86400, s.gpu_util, s.mean_slowdown,
                          s.p99_slowdown, s.later_than_exclusive, s.shared_jobs,
                          std::isfinite(s.predictor_mae) ? absl::StrFormat("%.3f", s.predictor_mae)
                                                         : std::string("-"),
                          s.energy_per_job_kwh);
  }
  if (!runs.empty()) {
    const PolicySummary& s = runs.front().summary;
    absl::StrAppendFormat(&out,
                          "%d GPUs, arrival scale %g, seed %d; %d trace jobs skipped (no solo "
                          "throughput), %d left out as not whole nodes (wider than a node, not a "
                          "multiple of its GPUs), %d as wider than the cluster\n",
                          s.gpus, s.arrival_scale, s.seed, s.skipped, s.not_whole_nodes,
                          s.wider_than_cluster);
  }
  return out;
}

std::string SummaryCsv(std::span<const PolicyRun> runs) {
  std::string out = Cat(absl::StrJoin(kSummaryFields, ","), "\n");
  for (const PolicyRun& run : runs) {
    const nlohmann::json j = SummaryJson(run.summary);
    std::vector<std::string> cells;
    for (const char* field : kSummaryFields) cells.push_back(CsvCell(j.at(field)));
    Append(&out, absl::StrJoin(cells, ","), "\n");
  }
  return out;
}

std::string JobsCsv(std::span<const JobRecord> jobs) {
  std::string out = "job,type,scale,arrival_s,start_s,finish_s,jct_s,solo_s,slowdown\n";
  for (const JobRecord& r : jobs) {
    absl::StrAppendFormat(&out, "%s,%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.6f\n", CsvField(r.job),
                          CsvField(r.type.name), r.type.scale, r.arrival_s, r.start_s, r.finish_s,
                          r.jct_s, r.solo_s, r.slowdown);
  }
  return out;
}

absl::Status WriteOutDir(const std::string& dir, std::span<const PolicyRun> runs) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::UnavailableError(Cat(dir, ": cannot create: ", ec.message()));
  const std::filesystem::path root(dir);
  if (absl::Status s = WriteFile(root / "summary.csv", SummaryCsv(runs)); !s.ok()) return s;
  nlohmann::json all = nlohmann::json::array();
  for (const PolicyRun& run : runs) all.push_back(SummaryJson(run.summary));
  if (absl::Status s = WriteFile(root / "summary.json", all.dump(2) + "\n"); !s.ok()) return s;
  for (const PolicyRun& run : runs) {
    const std::string name = Cat("jobs-", run.summary.policy, ".csv");
    if (absl::Status s = WriteFile(root / name, JobsCsv(run.jobs)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace iashim::clustersim
