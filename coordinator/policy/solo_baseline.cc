#include "coordinator/policy/solo_baseline.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "coordinator/policy/median.h"

namespace iashim::policy {
namespace {

bool PositiveAndFinite(double v) { return std::isfinite(v) && v > 0; }

void Push(std::deque<double>& samples, double v, size_t history) {
  samples.push_back(v);
  while (samples.size() > std::max<size_t>(history, 1)) samples.pop_front();
}

// The mean of the samples near their median: within a quarter of it, or
// within four robust standard deviations (1.4826 MAD) where the job's own
// spread is wider. An event (a checkpoint, an evaluation pass, the end of
// warm-up) moves a window by far more than that and is left out, as the
// median would; the ordinary jitter of a busy host (a few windows a few
// percent slow) is kept, as it is in the running speed the slowdown compares
// with (an EWMA, a mean). The median alone sits below that mean when the
// jitter is one-sided, and every slowdown then reads that much too high.
double MeanNearMedian(const std::deque<double>& samples) {
  const std::vector<double> v(samples.begin(), samples.end());
  const double median = Median(v);
  std::vector<double> deviation;
  deviation.reserve(v.size());
  for (double x : v) deviation.push_back(std::abs(x - median));
  const double reach = std::max(0.25 * median, 4 * 1.4826 * Median(deviation));
  double sum = 0;
  int kept = 0;
  for (double x : v) {
    if (std::abs(x - median) <= reach) {
      sum += x;
      ++kept;
    }
  }
  return sum / kept;  // the samples nearest the median are always within reach
}

}  // namespace

SoloBaseline::SoloBaseline(SoloBaselineOptions options) : options_(options) {}

void SoloBaseline::Add(Samples& samples, double v, bool cpu_contended) const {
  if (!PositiveAndFinite(v)) return;
  Push(samples.all, v, options_.history);
  if (!cpu_contended) Push(samples.uncontended, v, options_.history);
}

void SoloBaseline::AddSoloWindow(double iteration_ns, double kernels_per_s, BaselineSource origin,
                                 bool cpu_contended) {
  Add(iteration_, iteration_ns, cpu_contended);
  Add(rate_, kernels_per_s, cpu_contended);
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

bool SoloBaseline::ByIteration() const {
  return InUse(iteration_) != nullptr || seed_iteration_ns_.has_value();
}

BaselineSource SoloBaseline::source() const {
  const bool by_iteration = ByIteration();
  if (!by_iteration && InUse(rate_) == nullptr && !seed_kernels_per_s_)
    return BaselineSource::kNone;
  if (InUse(by_iteration ? iteration_ : rate_) != nullptr) return last_origin_;
  return BaselineSource::kSaved;
}

bool SoloBaseline::contended() const {
  const Samples& used = ByIteration() ? iteration_ : rate_;
  return InUse(used) == &used.all;
}

bool SoloBaseline::Enough(const std::deque<double>& samples) const {
  return !samples.empty() && samples.size() >= std::max<size_t>(options_.min_windows, 1);
}

const std::deque<double>* SoloBaseline::InUse(const Samples& samples) const {
  if (Enough(samples.uncontended)) return &samples.uncontended;
  if (Enough(samples.all)) return &samples.all;
  return nullptr;
}

std::optional<double> SoloBaseline::Estimate(const Samples& samples,
                                             std::optional<double> seed) const {
  if (const std::deque<double>* used = InUse(samples)) return MeanNearMedian(*used);
  return seed;
}

}  // namespace iashim::policy
