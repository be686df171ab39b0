#include "coordinator/daemon/energy_ledger.h"

#include <algorithm>
#include <cmath>

namespace iashim::daemon {

namespace {

// Folds the mean power of an interval of `seconds` into `smoothed`, an
// exponential average with time constant kPowerTauS.
void SmoothPower(std::optional<double>& smoothed, double watts, double seconds) {
  const double keep = std::exp(-seconds / EnergyLedger::kPowerTauS);
  smoothed = smoothed ? keep * *smoothed + (1 - keep) * watts : watts;
}

}  // namespace

void EnergyLedger::Reading(const policy::GpuId& gpu, double counter_j) {
  if (!std::isfinite(counter_j) || counter_j < 0) return;
  Gpu& g = gpus_[gpu];
  g.latest_j = std::max(g.latest_j, counter_j);
}

void EnergyLedger::Attribute(const std::map<policy::GpuId, std::vector<GpuTime>>& jobs_by_gpu,
                             double now_s) {
  for (auto it = gpus_.begin(); it != gpus_.end();) {
    const auto jobs = jobs_by_gpu.find(it->first);
    if (jobs == jobs_by_gpu.end() || jobs->second.empty()) {
      it = gpus_.erase(it);  // no one on it: its counter may restart
      continue;
    }
    Gpu& g = it->second;
    if (g.attributed_j && g.latest_j > *g.attributed_j) {
      const double drawn = g.latest_j - *g.attributed_j;
      const double seconds = g.attributed_s ? now_s - *g.attributed_s : 0;
      double total = 0;
      for (const GpuTime& t : jobs->second) total += std::max(0.0, t.busy);
      for (const GpuTime& t : jobs->second) {
        const double weight = total > 0 ? std::max(0.0, t.busy) / total
                                        : 1.0 / double(jobs->second.size());
        JobEnergy& e = jobs_[t.job];
        e.joules += drawn * weight;
        if (seconds > 0) SmoothPower(e.power_w, drawn * weight / seconds, seconds);
      }
      // The GPU's power is smoothed too: readings come every half second or
      // so, so one interval can hold one reading more or less than it spans.
      if (seconds > 0) SmoothPower(g.power_w, drawn / seconds, seconds);
    } else if (!g.attributed_j) {
      for (const GpuTime& t : jobs->second) jobs_.try_emplace(t.job);  // attributed from here
    }
    if (!g.attributed_j || g.latest_j > *g.attributed_j) {
      g.attributed_j = g.latest_j;
      g.attributed_s = now_s;
    }
    ++it;
  }
}

void EnergyLedger::Forget(const std::string& job) { jobs_.erase(job); }

std::optional<double> EnergyLedger::Joules(const std::string& job) const {
  const auto it = jobs_.find(job);
  if (it == jobs_.end()) return std::nullopt;
  return it->second.joules;
}

std::optional<double> EnergyLedger::JoulesPerIteration(const std::string& job,
                                                       double iteration_s) const {
  const auto it = jobs_.find(job);
  if (it == jobs_.end() || !it->second.power_w || !(iteration_s > 0)) return std::nullopt;
  return *it->second.power_w * iteration_s;
}

std::optional<double> EnergyLedger::PowerWatts(const policy::GpuId& gpu) const {
  const auto it = gpus_.find(gpu);
  return it == gpus_.end() ? std::nullopt : it->second.power_w;
}

}  // namespace iashim::daemon
