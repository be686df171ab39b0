#include "coordinator/daemon/job.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "coordinator/policy/cluster_state.h"

namespace iashim::daemon {

policy::JobProfile NewJobProfile() {
  policy::JobProfileOptions o;
  // A training loop launches its whole kernel set every iteration; 3 s without
  // a new kernel is long enough to call the set complete and short enough for
  // a job's solo baseline to be stored under it early in its life.
  o.fingerprint_stable_s = 3;
  return policy::JobProfile(o);
}

std::vector<policy::GpuId> GpusOf(const Job& job) {
  if (!job.gang_gpus.empty()) return job.gang_gpus;
  if (job.gpu) return {*job.gpu};
  return {};
}

std::string GpusName(const Job& job) {
  if (!job.gpu) return "unplaced";
  std::string name = policy::GpuName(*job.gpu);
  for (size_t i = 1; i < job.gang_gpus.size(); ++i) {
    absl::StrAppend(&name, ",", job.gang_gpus[i].index);
  }
  return name;
}

std::optional<policy::GpuId> RankGpu(const Job& job, int rank) {
  if (!job.is_gang()) return job.gpu;
  if (rank < 0 || static_cast<size_t>(rank) >= job.gang_gpus.size()) return std::nullopt;
  return job.gang_gpus[static_cast<size_t>(rank)];
}

std::optional<double> IterationNs(const Job& job) {
  std::optional<double> slowest;
  for (const auto& [rank, r] : job.ranks) {
    const std::optional<double> ns = r.profile.iteration_ns();
    if (r.connected && ns) slowest = std::max(slowest.value_or(0), *ns);
  }
  return slowest ? slowest : job.profile.iteration_ns();
}

void ForgetSpeed(Job& job) {
  job.profile.ForgetSpeed();
  for (auto& [rank, process] : job.ranks) process.profile.ForgetSpeed();
}

std::optional<double> Slowdown(const Job& job) {
  std::optional<double> worst;
  for (const auto& [rank, r] : job.ranks) {
    const std::optional<double> s = r.profile.slowdown();
    if (r.connected && s) worst = worst ? std::max(*worst, *s) : *s;
  }
  return worst ? worst : job.profile.slowdown();
}

std::optional<double> SlowdownAt(const Job& job, double iteration_ns) {
  std::optional<double> least;
  for (const auto& [rank, r] : job.ranks) {
    const std::optional<double> ns = r.profile.baseline_iteration_ns();
    if (r.connected && ns && *ns > 0) least = std::min(least.value_or(*ns), *ns);
  }
  if (!least) least = job.profile.baseline_iteration_ns();
  if (!least || !(*least > 0)) return std::nullopt;
  return iteration_ns / *least - 1;
}

std::optional<double> SlowdownBeforeProbe(const Job& job) {
  if (!job.iteration_before_probe_ns) return std::nullopt;
  return SlowdownAt(job, *job.iteration_before_probe_ns);
}

}  // namespace iashim::daemon
