// The coordinator's interference model: what it calls each job, and what it
// learns from the pairs it sees sharing a GPU.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "absl/strings/str_format.h"
#include "coordinator/daemon/coordinator.h"

namespace iashim::daemon {
namespace {

// Below this share of GPU time in classified kernels, a job's kernel mix is
// not known well enough to say how memory-bound it is.
constexpr double kClassifiedEnough = 0.5;

// The least GPU time per second FullPaceGpuTime says a co-runner takes.
constexpr double kMinFullPaceGpuTime = 0.2;

// A measured slowdown as a normalised throughput; NaN when not measured.
double Normalised(double slowdown) {
  return slowdown >= 0 ? 1.0 / (1.0 + slowdown) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

policy::JobTraits Coordinator::Traits(const Job& job) const {
  policy::JobTraits t;
  if (!job.kind.empty()) {
    t.kind = job.kind;
  } else if (job.profile.fingerprint_stable()) {
    // A shim started by hand, or `iashim run` without --kind: the model's
    // kernel set names it, so a rerun of the same model is recognised.
    t.kind = absl::StrFormat("fp:%016x", job.profile.fingerprint());
  } else {
    t.kind = std::string(kUnknownKind);
  }
  if (const std::optional<double> busy = job.profile.busy()) t.busy = *busy;
  // The kernel mix, once most of the GPU time is in kernels a rule classed.
  const policy::KernelMix mix = job.profile.kernel_mix();
  if (mix.compute + mix.memory >= kClassifiedEnough) {
    t.memory_bound = mix.memory / (mix.compute + mix.memory);
  }
  return t;
}

void Coordinator::RememberKindTraits() {
  for (const auto& [id, job] : jobs_) {
    policy::JobTraits t = Traits(job);
    if (const std::optional<double> solo = job.profile.solo_busy();
        solo && t.kind != kUnknownKind && !job.is_gang()) {
      kind_solo_busy_[t.kind] = *solo;
    }
    if (t.kind == kUnknownKind || (std::isnan(t.busy) && std::isnan(t.memory_bound))) continue;
    policy::JobTraits& known = kind_traits_[t.kind];
    if (!std::isnan(t.busy)) known.busy = t.busy;
    if (!std::isnan(t.memory_bound)) known.memory_bound = t.memory_bound;
  }
}

policy::JobTraits Coordinator::KindTraits(const std::string& kind) const {
  policy::JobTraits t;
  t.kind = kind;
  if (const auto it = kind_traits_.find(kind); it != kind_traits_.end()) {
    t.busy = it->second.busy;
    t.memory_bound = it->second.memory_bound;
  }
  return t;
}

double Coordinator::FullPaceGpuTime(const Job& co_runner, const policy::JobTraits& traits,
                                    const policy::JobTraits& guaranteed) const {
  // It keeps p of its speed beside the guaranteed job, and alone keeps the
  // GPU busy d of the time: p * d. Unknown d counts as 1 (the most it could
  // take), and a gang's rank as 1 too (its time in collectives, which is
  // mostly waiting for other ranks, would count as busy).
  const double kept = std::clamp(interference_.Predict(traits, guaranteed).throughput, 0.0, 1.0);
  double solo_busy = 1.0;
  if (!co_runner.is_gang()) {
    if (const std::optional<double> own = co_runner.profile.solo_busy()) {
      solo_busy = *own;
    } else if (const auto it = kind_solo_busy_.find(traits.kind); it != kind_solo_busy_.end()) {
      solo_busy = it->second;
    }
  }
  // Bounded below so that one odd measurement cannot hold a co-runner at
  // nothing: the loop still corrects what this misses.
  return std::clamp(kept * solo_busy, kMinFullPaceGpuTime, 1.0);
}

void Coordinator::LearnInterference(const state::ObservationRecord& o) {
  if (o.kind_a.empty() || o.kind_b.empty() || o.kind_a == kUnknownKind ||
      o.kind_b == kUnknownKind) {
    return;
  }
  // A throttled job's slowdown is partly its budget, and a throttled partner
  // makes the other's slowdown smaller than sharing alone would: learn only
  // from pairs where neither was throttled.
  if (!(o.share_a >= 0.999 && o.share_b >= 0.999)) return;
  const double a = Normalised(o.slowdown_a);
  const double b = Normalised(o.slowdown_b);
  if (std::isnan(a) && std::isnan(b)) return;
  interference_.Observe(KindTraits(o.kind_a), KindTraits(o.kind_b), a, b);
}

}  // namespace iashim::daemon
