#include "libiashim/tools/trace_summary.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>

namespace iashim {
namespace {

std::string Number(std::optional<double> v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", *v);
  return buf;
}

std::string Percent(std::optional<double> part, double total) {
  if (!part || total <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", *part / total * 100);
  return buf;
}

std::string Row(const std::string& name, uint64_t launches, uint64_t sampled,
                std::optional<double> mean, std::optional<double> est, double total_est) {
  char counts[64];
  std::snprintf(counts, sizeof counts, "%" PRIu64 ",%" PRIu64, launches, sampled);
  return CsvField(name) + "," + counts + "," + Number(mean) + "," + Number(est) + "," +
         Percent(est, total_est) + "\n";
}

}  // namespace

std::string CsvField(const std::string& field) {
  if (field.find_first_of(",\"\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::optional<uint64_t> KernelSummary::MeanGpuNs() const {
  if (sampled == 0) return std::nullopt;
  return sampled_gpu_ns / sampled;
}

std::optional<double> KernelSummary::EstimatedGpuNs() const {
  if (sampled == 0) return std::nullopt;
  return static_cast<double>(sampled_gpu_ns) / static_cast<double>(sampled) *
         static_cast<double>(launches);
}

std::vector<KernelSummary> SummarizeKernels(const Trace& trace) {
  std::map<std::string, KernelSummary> by_name;
  for (const TraceEvent& e : trace.events) {
    if (e.launch.event == 2) continue;  // a sync, not a launch
    const std::string name = e.launch.event == 1 ? "(graph)" : trace.NameOf(e.launch.kernel);
    KernelSummary& k = by_name[name];
    k.kernel = name;
    ++k.launches;
    if (e.gpu_ns != 0) {
      ++k.sampled;
      k.sampled_gpu_ns += e.gpu_ns;
    }
  }
  std::vector<KernelSummary> rows;
  for (auto& [name, k] : by_name) rows.push_back(std::move(k));
  std::stable_sort(rows.begin(), rows.end(), [](const KernelSummary& a, const KernelSummary& b) {
    const std::optional<double> ea = a.EstimatedGpuNs(), eb = b.EstimatedGpuNs();
    if (ea.has_value() != eb.has_value()) return ea.has_value();
    if (ea && *ea != *eb) return *ea > *eb;
    if (a.launches != b.launches) return a.launches > b.launches;
    return a.kernel < b.kernel;
  });
  return rows;
}

std::string FormatSummaryCsv(const std::vector<KernelSummary>& rows) {
  uint64_t launches = 0, sampled = 0;
  double total_est = 0;
  for (const KernelSummary& k : rows) {
    launches += k.launches;
    sampled += k.sampled;
    total_est += k.EstimatedGpuNs().value_or(0);
  }
  std::string out = "kernel,launches,sampled,mean_gpu_ns,est_gpu_ns,gpu_pct\n";
  for (const KernelSummary& k : rows) {
    const std::optional<uint64_t> mean = k.MeanGpuNs();
    out += Row(k.kernel, k.launches, k.sampled,
               mean ? std::optional<double>(static_cast<double>(*mean)) : std::nullopt,
               k.EstimatedGpuNs(), total_est);
  }
  // The total's estimate is the sum of the timed kernels' only: untimed ones
  // add an unknown amount, which the sampled count beside it shows.
  out += Row("(total)", launches, sampled, std::nullopt,
             sampled ? std::optional<double>(total_est) : std::nullopt, total_est);
  return out;
}

}  // namespace iashim
