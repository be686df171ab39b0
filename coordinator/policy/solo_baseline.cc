#include "coordinator/policy/solo_baseline.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace iashim::policy {
namespace {

bool PositiveAndFinite(double v) { return std::isfinite(v) && v > 0; }

void Push(std::deque<double>& samples, double v, size_t history) {
  samples.push_back(v);
  while (samples.size() > std::max<size_t>(history, 1)) samples.pop_front();
}

double Median(const std::deque<double>& samples) {
  std::vector<double> v(samples.begin(), samples.end());
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double upper = v[mid];
  const double lower = *std::max_element(v.begin(), v.begin() + mid);
  return 0.5 * (lower + upper);
}

}  // namespace

SoloBaseline::SoloBaseline(SoloBaselineOptions options) : options_(options) {}

void SoloBaseline::AddSoloWindow(double iteration_ns, double kernels_per_s,
                                 BaselineSource origin) {
  if (PositiveAndFinite(iteration_ns)) Push(iteration_, iteration_ns, options_.history);
  if (PositiveAndFinite(kernels_per_s)) Push(rate_, kernels_per_s, options_.history);
  if (PositiveAndFinite(iteration_ns) || PositiveAndFinite(kernels_per_s)) last_origin_ = origin;
}

void SoloBaseline::Seed(double iteration_ns, double kernels_per_s) {
  if (PositiveAndFinite(iteration_ns)) seed_iteration_ns_ = iteration_ns;
  if (PositiveAndFinite(kernels_per_s)) seed_kernels_per_s_ = kernels_per_s;
}

std::optional<double> SoloBaseline::iteration_ns() const {
  return Estimate(iteration_, seed_iteration_ns_);
}

std::optional<double> SoloBaseline::kernels_per_s() const {
  return Estimate(rate_, seed_kernels_per_s_);
}

BaselineSource SoloBaseline::source() const {
  const size_t enough = std::max<size_t>(options_.min_windows, 1);
  const bool by_iteration = iteration_ns().has_value();
  const std::deque<double>& used = by_iteration ? iteration_ : rate_;
  if (!by_iteration && !kernels_per_s().has_value()) return BaselineSource::kNone;
  if (!used.empty() && used.size() >= enough) return last_origin_;
  return BaselineSource::kSaved;
}

std::optional<double> SoloBaseline::Estimate(const std::deque<double>& samples,
                                             std::optional<double> seed) const {
  if (!samples.empty() && samples.size() >= std::max<size_t>(options_.min_windows, 1)) {
    return Median(samples);
  }
  return seed;
}

}  // namespace iashim::policy
