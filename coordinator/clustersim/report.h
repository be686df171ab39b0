// What a replay measured: per job and per policy. Pure arithmetic over the
// simulator's outcomes.
//
// Definitions (README.md):
//  - JCT = finish - arrival; slowdown = JCT / solo_s, solo_s = total_steps
//    / solo throughput (1 = ran alone from the moment it arrived).
//  - Percentiles interpolate linearly between order statistics (p50 of
//    {1, 2} is 1.5).
//  - makespan = last finish - first arrival; gpu_util = GPU-seconds with at
//    least one job / (GPUs * makespan).
//  - later_than_exclusive: jobs whose JCT exceeds their JCT under
//    `exclusive` by more than 1e-6 relative.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_REPORT_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_REPORT_H_

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "coordinator/clustersim/power_model.h"
#include "coordinator/clustersim/simulator.h"

namespace iashim::clustersim {

struct JobRecord {
  std::string job;
  JobType type;
  double arrival_s = 0;
  double start_s = 0;
  double finish_s = 0;
  double jct_s = 0;
  double solo_s = 0;
  double slowdown = 0;
};

struct PolicySummary {
  std::string policy;
  int64_t jobs = 0;
  int64_t skipped = 0;      // no solo throughput for (type, scale) in the file
  // Left out by the cluster's shape (PreparedJobs): wider than a node and
  // not whole nodes of it; wider than the cluster. JSON and CSV also give
  // their sum as `unplaceable`.
  int64_t not_whole_nodes = 0;
  int64_t wider_than_cluster = 0;
  int gpus = 0;
  double arrival_scale = 1;
  uint64_t seed = 0;
  double mean_jct_s = 0;
  double p50_jct_s = 0;
  double p99_jct_s = 0;
  double makespan_s = 0;
  double gpu_util = 0;
  double mean_slowdown = 0;
  double p99_slowdown = 0;
  int64_t later_than_exclusive = 0;
  int64_t shared_jobs = 0;  // jobs that ran next to another for some time
  int64_t pair_starts = 0;
  int64_t place_calls = 0;  // times the policy was asked (cost, for profiling)
  int64_t migrations = 0;   // jobs moved to empty GPUs (SimConfig::migration_cost_s)
  // GPU-hours held by jobs, and energy (power_model.h; NaN for a GPU type
  // without figures): every GPU's idle power over the makespan plus the
  // busy power above idle in proportion to occupancy.
  double gpu_hours = 0;
  double energy_kwh = std::nan("");
  double energy_per_job_kwh = std::nan("");
  // Learning policies only (NaN / 0 otherwise): prequential MAE of the
  // normalised throughput of co-locations the policy made.
  double predictor_mae = std::nan("");
  int64_t predictor_predictions = 0;
};

std::vector<JobRecord> MakeJobRecords(std::span<const SimJob> jobs, const SimResult& result);

// q in [0, 1]; NaN for no values.
double Percentile(std::vector<double> values, double q);

// Jobs of `records` whose JCT exceeds the same job's under `exclusive`
// (same order, same jobs) by more than 1e-6 relative.
int64_t CountLaterThan(std::span<const JobRecord> records, std::span<const JobRecord> exclusive);

// Fills every statistic of `summary` from the records (the caller sets
// policy, counts of skipped jobs, config and predictor fields).
void Summarise(std::span<const JobRecord> records, const SimResult& result, int gpus,
               std::span<const JobRecord> exclusive, PolicySummary* summary);

// Fills gpu_hours, energy_kwh and energy_per_job_kwh (after Summarise).
void SummariseEnergy(const SimResult& result, int gpus, const GpuPower& power,
                     PolicySummary* summary);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_REPORT_H_
