// The coordinator's interference model: what it calls each job, and what it
// learns from the pairs it sees sharing a GPU.
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"
#include "coordinator/daemon/coordinator.h"

namespace iashim::daemon {
namespace {

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
  return t;
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
  interference_.Observe({.kind = o.kind_a}, {.kind = o.kind_b}, a, b);
}

}  // namespace iashim::daemon
