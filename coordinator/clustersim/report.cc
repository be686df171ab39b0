#include "coordinator/clustersim/report.h"

#include <algorithm>
#include <numeric>

namespace iashim::clustersim {

std::vector<JobRecord> MakeJobRecords(std::span<const SimJob> jobs, const SimResult& result) {
  std::vector<JobRecord> records;
  records.reserve(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobOutcome& o = result.jobs[i];
    JobRecord r;
    r.job = jobs[i].id;
    r.type = jobs[i].type;
    r.arrival_s = jobs[i].arrival_s;
    r.start_s = o.start_s;
    r.finish_s = o.finish_s;
    r.jct_s = o.finish_s - jobs[i].arrival_s;
    r.solo_s = o.solo_s;
    r.slowdown = r.jct_s / o.solo_s;
    records.push_back(std::move(r));
  }
  return records;
}

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  const double rank = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (rank - static_cast<double>(lo));
}

int64_t CountLaterThan(std::span<const JobRecord> records, std::span<const JobRecord> exclusive) {
  int64_t later = 0;
  const size_t n = std::min(records.size(), exclusive.size());
  for (size_t i = 0; i < n; ++i) {
    if (records[i].jct_s > exclusive[i].jct_s * (1 + 1e-6)) ++later;
  }
  return later;
}

void Summarise(std::span<const JobRecord> records, const SimResult& result, int gpus,
               std::span<const JobRecord> exclusive, PolicySummary* summary) {
  std::vector<double> jct;
  std::vector<double> slowdown;
  for (const JobRecord& r : records) {
    jct.push_back(r.jct_s);
    slowdown.push_back(r.slowdown);
  }
  const double n = static_cast<double>(records.size());
  summary->jobs = static_cast<int64_t>(records.size());
  summary->gpus = gpus;
  summary->mean_jct_s = records.empty() ? std::nan("") : std::accumulate(jct.begin(), jct.end(), 0.0) / n;
  summary->p50_jct_s = Percentile(jct, 0.50);
  summary->p99_jct_s = Percentile(jct, 0.99);
  summary->makespan_s = result.makespan_s;
  summary->gpu_util = result.makespan_s > 0 ? result.busy_gpu_seconds / (gpus * result.makespan_s) : 0;
  summary->mean_slowdown =
      records.empty() ? std::nan("") : std::accumulate(slowdown.begin(), slowdown.end(), 0.0) / n;
  summary->p99_slowdown = Percentile(slowdown, 0.99);
  summary->later_than_exclusive = CountLaterThan(records, exclusive);
  summary->shared_jobs = std::count_if(result.jobs.begin(), result.jobs.end(),
                                       [](const JobOutcome& o) { return o.shared; });
  summary->pair_starts = result.pair_starts;
  summary->place_calls = result.place_calls;
  summary->migrations = result.migrations;
  summary->gpu_hours = result.busy_gpu_seconds / 3600;
}

void SummariseEnergy(const SimResult& result, int gpus, const GpuPower& power,
                     PolicySummary* summary) {
  const double joules = power.idle_w * gpus * result.makespan_s +
                        (power.busy_w - power.idle_w) * result.occupied_gpu_seconds;
  summary->energy_kwh = joules / 3.6e6;
  summary->energy_per_job_kwh =
      summary->jobs > 0 ? summary->energy_kwh / static_cast<double>(summary->jobs) : std::nan("");
}

}  // namespace iashim::clustersim
