// The coordinator's interference model: what it calls each job, and what it
// learns from the pairs it sees sharing a GPU.
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"
#include "daemon/coordinator.h"

namespace iashim::daemon {
namespace {

// A slowdown and the job's share when it was measured, as a normalised
// throughput; NaN when it does not measure interference alone (not measured,
// or the job was throttled, so part of its slowdown was its budget).
double Unharmed(double slowdown, double share) {
  if (!(slowdown >= 0) || !(share >= 0.999)) return std::numeric_limits<double>::quiet_NaN();
  return 1.0 / (1.0 + slowdown);
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
  return t;
}

void Coordinator::LearnInterference(const state::ObservationRecord& o) {
  if (o.kind_a.empty() || o.kind_b.empty() || o.kind_a == kUnknownKind ||
      o.kind_b == kUnknownKind) {
    return;
  }
  const double a = Unharmed(o.slowdown_a, o.share_a);
  const double b = Unharmed(o.slowdown_b, o.share_b);
  // A throttled partner makes the other's slowdown smaller than sharing
  // alone would: learn only from pairs where neither was throttled.
  if (!(o.share_a >= 0.999 && o.share_b >= 0.999)) return;
  if (std::isnan(a) && std::isnan(b)) return;
  interference_.Observe({.kind = o.kind_a}, {.kind = o.kind_b}, a, b);
}

}  // namespace iashim::daemon
