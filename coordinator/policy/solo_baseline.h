// A job's speed when it has the GPU to itself: the reference its slowdown is
// measured against.
//
// Only windows in which the job was alone on its GPU and not throttled count
// (the caller decides; see JobProfile::AddWindow). The baseline is the mean of
// the most recent such windows that lie near their median (within a quarter
// of it, or four robust standard deviations if the job varies more): one
// window that caught a checkpoint, an evaluation pass or the end of warm-up
// would drag a plain mean and make every later slowdown look smaller or
// larger than it is, while the median alone ignores the small one-sided
// jitter of a busy host that the running speed (a mean) includes, and so
// reads every slowdown too high (neumf's probe baseline, 3.5 ms iterations on
// the 2-core VM: 0.6-0.8% faster than its solo runs with the median, 0.0-0.6%
// with this; three runs each).
//
// A seed (from the persisted profile of an earlier job with the same model
// fingerprint) stands in until the job has min_windows solo windows of its
// own; then the job's own measurements win, because the seed may come from a
// run with another batch size or input pipeline.
//
// source() says which of these the estimate in use comes from: the seed
// (kSaved), or the origin of the latest own window (kAlone, or kProbe for a
// window measured while the coordinator held the job's co-runners).
#ifndef IASHIM_POLICY_SOLO_BASELINE_H_
#define IASHIM_POLICY_SOLO_BASELINE_H_

#include <cstddef>
#include <deque>
#include <optional>

#include "coordinator/policy/baseline_source.h"

namespace iashim::policy {

struct SoloBaselineOptions {
  size_t min_windows = 3;  // own solo windows needed before they replace a seed
  size_t history = 15;     // solo windows the estimate is taken over
};

class SoloBaseline {
 public:
  explicit SoloBaseline(SoloBaselineOptions options = {});

  // One solo window: its mean iteration time (0 = no iteration completed, or
  // iterations are not detected) and kernel launches per second (0 = none).
  // `origin`: kAlone or kProbe.
  void AddSoloWindow(double iteration_ns, double kernels_per_s,
                     BaselineSource origin = BaselineSource::kAlone);

  // Either value may be 0 = not seeded.
  void Seed(double iteration_ns, double kernels_per_s);

  // nullopt until there are min_windows own samples or a seed.
  std::optional<double> iteration_ns() const;
  std::optional<double> kernels_per_s() const;

  // Of the estimate slowdowns use first: the iteration time if known, else
  // the launch rate.
  BaselineSource source() const;

  size_t iteration_samples() const { return iteration_.size(); }
  size_t rate_samples() const { return rate_.size(); }

 private:
  std::optional<double> Estimate(const std::deque<double>& samples,
                                 std::optional<double> seed) const;

  SoloBaselineOptions options_;
  std::deque<double> iteration_;
  std::deque<double> rate_;
  std::optional<double> seed_iteration_ns_;
  std::optional<double> seed_kernels_per_s_;
  BaselineSource last_origin_ = BaselineSource::kAlone;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_SOLO_BASELINE_H_
