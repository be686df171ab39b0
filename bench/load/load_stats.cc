#include "bench/load/load_stats.h"

#include <algorithm>
#include <cmath>

namespace iashim::load {

Percentiles PercentilesOf(std::vector<int64_t>& samples) {
  Percentiles p;
  p.count = samples.size();
  if (samples.empty()) return p;
  auto rank = [&](double q) {
    const size_t k = size_t(std::ceil(q * double(samples.size()))) - 1;
    std::nth_element(samples.begin(), samples.begin() + k, samples.end());
    return double(samples[k]) / 1e6;
  };
  p.p50_ms = rank(0.50);
  p.p99_ms = rank(0.99);
  p.max_ms = double(*std::max_element(samples.begin(), samples.end())) / 1e6;
  return p;
}

void LoadStats::AddLatency(int64_t ns) {
  std::lock_guard<std::mutex> lock(mu_);
  interval_.push_back(ns);
  all_.push_back(ns);
}

Percentiles LoadStats::TakeInterval() {
  std::vector<int64_t> taken;
  {
    std::lock_guard<std::mutex> lock(mu_);
    taken.swap(interval_);
  }
  return PercentilesOf(taken);
}

Percentiles LoadStats::Overall() {
  std::vector<int64_t> copy;
  {
    std::lock_guard<std::mutex> lock(mu_);
    copy = all_;
  }
  return PercentilesOf(copy);
}

}  // namespace iashim::load
