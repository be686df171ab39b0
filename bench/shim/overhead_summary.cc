#include "bench/shim/overhead_summary.h"

#include <algorithm>
#include <cstdio>

namespace iashim_bench {

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string DirectTwin(const std::string& shim_name) {
  const size_t at = shim_name.find("Shim");
  if (at == std::string::npos) return "";
  std::string twin = shim_name;
  twin.replace(at, 4, "Direct");
  return twin;
}

OverheadSummary::Series& OverheadSummary::SeriesFor(const std::string& name) {
  auto [it, inserted] = series_.try_emplace(name);
  if (inserted) order_.push_back(name);
  return it->second;
}

void OverheadSummary::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    if (run.error_occurred) {
      ++errors_;
      continue;
    }
    const std::string name = run.run_name.str();
    const auto dropped = run.counters.find("drop%");
    if (run.run_type == Run::RT_Iteration) {
      Series& s = SeriesFor(name);
      s.cpu_ns.push_back(run.GetAdjustedCPUTime());
      s.real_ns.push_back(run.GetAdjustedRealTime());
      if (dropped != run.counters.end()) s.dropped_pct.push_back(dropped->second.value);
    } else if (run.aggregate_name == "median") {
      // With --benchmark_display_aggregates_only the repetitions never reach
      // a display reporter: take the library's median instead.
      Series& s = SeriesFor(name);
      if (!s.cpu_ns.empty()) continue;
      s.aggregate_of = run.repetitions;
      s.cpu_ns.push_back(run.GetAdjustedCPUTime());
      s.real_ns.push_back(run.GetAdjustedRealTime());
      if (dropped != run.counters.end()) s.dropped_pct.push_back(dropped->second.value);
    }
  }
}

void OverheadSummary::Print(std::ostream& out) const {
  char line[256];
  std::snprintf(line, sizeof line, "%-44s %10s %10s %11s %11s %8s %5s\n", "shim benchmark",
                "direct ns", "shim ns", "added ns", "added ns", "dropped", "reps");
  out << line;
  std::snprintf(line, sizeof line, "%-44s %10s %10s %11s %11s %8s %5s\n", "", "(cpu)", "(cpu)",
                "(cpu)", "(real)", "records", "");
  out << line;
  for (const std::string& name : order_) {
    const std::string twin = DirectTwin(name);
    if (twin.empty()) continue;
    const auto direct = series_.find(twin);
    if (direct == series_.end()) continue;
    const Series& s = series_.at(name);
    const double direct_cpu = Median(direct->second.cpu_ns);
    const double shim_cpu = Median(s.cpu_ns);
    const double added_real = Median(s.real_ns) - Median(direct->second.real_ns);
    char dropped[32] = "-";
    if (!s.dropped_pct.empty())
      std::snprintf(dropped, sizeof dropped, "%.1f%%", Median(s.dropped_pct));
    const long long reps =
        s.aggregate_of > 0 ? s.aggregate_of : static_cast<long long>(s.cpu_ns.size());
    std::snprintf(line, sizeof line, "%-44s %10.1f %10.1f %11.1f %11.1f %8s %5lld\n", name.c_str(),
                  direct_cpu, shim_cpu, shim_cpu - direct_cpu, added_real, dropped, reps);
    out << line;
  }
}

}  // namespace iashim_bench
