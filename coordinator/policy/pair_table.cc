#include "coordinator/policy/pair_table.h"

#include <algorithm>
#include <cmath>

namespace iashim::policy {

bool UsableNormalisedThroughput(double v) { return std::isfinite(v) && v >= 0.0 && v <= 1.5; }

namespace {

std::string Key(const std::string& victim, const std::string& aggressor) {
  std::string key;
  key.reserve(victim.size() + 1 + aggressor.size());
  key.append(victim).push_back('\0');
  key.append(aggressor);
  return key;
}

}  // namespace

PairTable::PairTable(double prior_mean) : prior_mean_(prior_mean) {}

void PairTable::Observe(const JobTraits& a, const JobTraits& b, double a_norm, double b_norm) {
  if (a.kind.empty() || b.kind.empty()) return;
  if (UsableNormalisedThroughput(a_norm)) Add(a.kind, b.kind, a_norm);
  if (UsableNormalisedThroughput(b_norm)) Add(b.kind, a.kind, b_norm);
}

void PairTable::Add(const std::string& victim, const std::string& aggressor, double value) {
  Mean& m = pairs_[Key(victim, aggressor)];
  m.sum += value;
  ++m.count;
  all_.sum += value;
  ++all_.count;
}

InterferencePrediction PairTable::Predict(const JobTraits& victim,
                                          const JobTraits& aggressor) const {
  InterferencePrediction out;
  auto it = pairs_.find(Key(victim.kind, aggressor.kind));
  if (it != pairs_.end()) {
    const double n = static_cast<double>(it->second.count);
    out.throughput = it->second.sum / n;
    out.uncertainty = 0.05 / std::sqrt(n);  // a table assumes repeats agree
    out.evidence = static_cast<int>(std::min<int64_t>(it->second.count, INT32_MAX));
    return out;
  }
  out.throughput =
      all_.count > 0 ? all_.sum / static_cast<double>(all_.count) : prior_mean_;
  out.uncertainty = 0.25;
  return out;
}

}  // namespace iashim::policy
