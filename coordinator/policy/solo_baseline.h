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
// A window in which the job's threads waited long for a CPU (the host was
// overloaded: TelemetryWindow::cpu_wait_ns) measured the host as
// much as the job: an LSTM whose first seconds shared two cores with other
// jobs starting read its solo iteration 10% slow, and every slowdown after
// that 10% too low. Such windows are kept apart: the estimate uses the
// uncontended windows once there are min_windows of them, and the contended
// ones only until then (a baseline that reads a little slow protects better
// than none; contended() says that it is one, so that a probe can measure
// again). The windows arrive with the wait already taken out of their speed
// (JobProfileOptions::max_cpu_wait_correction); in a contended one what is
// left is the less certain part.
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
  // `origin`: kAlone or kProbe. `cpu_contended`: the job's threads
  // waited for a CPU too long for it to be the job's own speed.
  void AddSoloWindow(double iteration_ns, double kernels_per_s,
                     BaselineSource origin = BaselineSource::kAlone, bool cpu_contended = false);

  // Either value may be 0 = not seeded.
  void Seed(double iteration_ns, double kernels_per_s);

  // nullopt until there are min_windows own samples or a seed.
  std::optional<double> iteration_ns() const;
  std::optional<double> kernels_per_s() const;

  // Of the estimate slowdowns use first: the iteration time if known, else
  // the launch rate.
  BaselineSource source() const;
  // The estimate in use comes from own windows of which some were contended
  // for a CPU (fewer than min_windows uncontended ones so far).
  bool contended() const;

  size_t iteration_samples() const { return iteration_.all.size(); }
  size_t rate_samples() const { return rate_.all.size(); }

 private:
  // Own windows: all of them and the uncontended ones.
  struct Samples {
    std::deque<double> all;
    std::deque<double> uncontended;
  };
  void Add(Samples& samples, double v, bool cpu_contended) const;
  bool Enough(const std::deque<double>& samples) const;
  // The samples the estimate is taken over; null when there are too few.
  const std::deque<double>* InUse(const Samples& samples) const;
  // The estimate slowdowns use first is the iteration time (iteration_ns()
  // has a value), without computing it.
  bool ByIteration() const;
  std::optional<double> Estimate(const Samples& samples, std::optional<double> seed) const;

  SoloBaselineOptions options_;
  Samples iteration_;
  Samples rate_;
  std::optional<double> seed_iteration_ns_;
  std::optional<double> seed_kernels_per_s_;
  BaselineSource last_origin_ = BaselineSource::kAlone;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_SOLO_BASELINE_H_
