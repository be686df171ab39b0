#include "coordinator/daemon/gang_slowdown.h"

#include <algorithm>

namespace iashim::daemon {
namespace {

// The smallest collective fraction of the gang's connected ranks.
std::optional<double> LeastCollective(const Job& job) {
  std::optional<double> least;
  for (const auto& [rank, r] : job.ranks) {
    const std::optional<double> c = r.profile.collective_fraction();
    if (r.connected && c) least = std::min(least.value_or(*c), *c);
  }
  return least;
}

// The rank of `job` running on `gpu`, if it is connected.
std::optional<int> RankOn(const Job& job, const policy::GpuId& gpu) {
  const auto g = std::find(job.gang_gpus.begin(), job.gang_gpus.end(), gpu);
  if (g == job.gang_gpus.end()) return std::nullopt;
  const int rank = static_cast<int>(g - job.gang_gpus.begin());
  const auto it = job.ranks.find(rank);
  if (it == job.ranks.end() || !it->second.connected) return std::nullopt;
  return rank;
}

// The mean of the connected ranks' own slowdowns.
std::optional<double> MeanOwnSlowdown(const Job& job, std::optional<double> gang) {
  double sum = 0;
  int n = 0;
  for (const auto& [rank, r] : job.ranks) {
    if (!r.connected) continue;
    const std::optional<double> s = OwnSlowdown(r);
    if (!s) return gang;
    sum += *s;
    ++n;
  }
  if (n == 0) return gang;
  return sum / n;
}

}  // namespace

std::optional<GangBudgets> ParseGangBudgets(std::string_view name) {
  if (name == "straggler") return GangBudgets::kStragglerAware;
  if (name == "independent") return GangBudgets::kIndependent;
  if (name == "average") return GangBudgets::kAverage;
  return std::nullopt;
}

std::optional<double> OwnSlowdown(const RankProcess& r) {
  const std::optional<double> s = r.profile.slowdown();
  const std::optional<double> c = r.profile.collective_fraction();
  const std::optional<double> c0 = r.profile.solo_collective_fraction();
  if (!s || !c || !c0 || !(*c0 < 0.99)) return s;
  return (1 - *c) * (1 + *s) / (1 - *c0) - 1;
}

std::optional<double> RankSlack(const Job& job, int rank) {
  if (!job.is_gang()) return std::nullopt;
  const auto it = job.ranks.find(rank);
  const std::optional<double> s = Slowdown(job);
  const std::optional<double> least = LeastCollective(job);
  if (it == job.ranks.end() || !it->second.connected || !s || !least) return std::nullopt;
  const std::optional<double> c = it->second.profile.collective_fraction();
  if (!c) return std::nullopt;
  return std::clamp((*c - *least) * (1 + *s), 0.0, 1.0);
}

std::optional<double> SlowdownOnGpu(const Job& job, const policy::GpuId& gpu, GangBudgets mode) {
  const std::optional<double> gang = Slowdown(job);
  if (!job.is_gang()) return gang;
  const std::optional<int> rank = RankOn(job, gpu);
  if (!rank) return gang;
  if (mode == GangBudgets::kIndependent) {
    const std::optional<double> own = OwnSlowdown(job.ranks.at(*rank));
    return own ? own : gang;
  }
  if (mode == GangBudgets::kAverage) return MeanOwnSlowdown(job, gang);
  const std::optional<double> slack = RankSlack(job, *rank);
  if (!gang || !slack) return gang;
  return *gang - *slack;
}

}  // namespace iashim::daemon
