// Where a job's solo baseline came from, so a reader of `iashim status` knows
// how far to trust its slowdown (and, with kNone, why there is none).
#ifndef IASHIM_POLICY_BASELINE_SOURCE_H_
#define IASHIM_POLICY_BASELINE_SOURCE_H_

#include <string_view>

namespace iashim::policy {

enum class BaselineSource {
  kNone,   // no baseline yet: no slowdown, so nothing to protect against
  kAlone,  // measured while the job had its GPU to itself
  kProbe,  // measured while the coordinator held its co-runners (solo_probe.h)
  kSaved,  // seeded from an earlier run of the same model (state store)
};

// "-", "alone", "probe", "saved": the words status, top and the wire use.
constexpr std::string_view BaselineSourceName(BaselineSource source) {
  switch (source) {
    case BaselineSource::kAlone:
      return "alone";
    case BaselineSource::kProbe:
      return "probe";
    case BaselineSource::kSaved:
      return "saved";
    case BaselineSource::kNone:
      break;
  }
  return "-";
}

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_BASELINE_SOURCE_H_
