#include "coordinator/state/validate.h"

#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "coordinator/state/limits.h"

namespace iashim::state {
namespace {

absl::Status CheckLength(absl::string_view field, absl::string_view value, size_t max) {
  if (value.size() <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, " is ", value.size(), " bytes, more than the limit of ", max));
}

absl::Status CheckName(absl::string_view field, absl::string_view value) {
  if (value.empty()) return absl::InvalidArgumentError(absl::StrCat(field, " is empty"));
  return CheckLength(field, value, kMaxNameBytes);
}

// NaN or infinity in a share, a slowdown or a baseline would poison every
// figure computed from it (and NaN never compares equal, so it could not be
// told apart from a changed value).
absl::Status CheckFinite(std::initializer_list<std::pair<absl::string_view, double>> fields) {
  for (const auto& [field, value] : fields) {
    if (!std::isfinite(value)) {
      return absl::InvalidArgumentError(absl::StrCat(field, " is ", value, ", not a finite number"));
    }
  }
  return absl::OkStatus();
}

// A gang's GPUs: at most kMaxGangGpus indexes of one node, distinct, the
// first the record's own gpu_index.
absl::Status CheckGang(const JobRecord& j) {
  if (j.gang_gpus.empty()) return absl::OkStatus();
  if (j.gang_gpus.size() > kMaxGangGpus) {
    return absl::InvalidArgumentError(absl::StrCat("gang of ", j.gang_gpus.size(),
                                                   " GPUs, more than the limit of ", kMaxGangGpus));
  }
  if (j.gang_gpus.front() != j.gpu_index) {
    return absl::InvalidArgumentError(absl::StrCat("gang's first GPU ", j.gang_gpus.front(),
                                                   " is not its gpu_index ", j.gpu_index));
  }
  for (size_t i = 0; i < j.gang_gpus.size(); ++i) {
    const int32_t g = j.gang_gpus[i];
    if (g < 0 || g > 255) {
      return absl::InvalidArgumentError(absl::StrCat("gang GPU ", g, " is not in 0..255"));
    }
    for (size_t k = 0; k < i; ++k) {
      if (j.gang_gpus[k] == g) {
        return absl::InvalidArgumentError(absl::StrCat("gang GPU ", g, " is listed twice"));
      }
    }
  }
  return absl::OkStatus();
}

struct Validator {
  absl::Status operator()(const JobRecord& j) const {
    if (absl::Status s = CheckName("job id", j.job); !s.ok()) return s;
    if (absl::Status s = CheckLength("host", j.host, kMaxNameBytes); !s.ok()) return s;
    if (absl::Status s = CheckLength("command", j.command, kMaxCommandBytes); !s.ok()) return s;
    if (absl::Status s = CheckLength("gpu host", j.gpu_host, kMaxNameBytes); !s.ok()) return s;
    if (absl::Status s = CheckLength("kind", j.kind, kMaxNameBytes); !s.ok()) return s;
    if (absl::Status s = CheckLength("token", j.token, kMaxNameBytes); !s.ok()) return s;
    if (absl::Status s = CheckLength("batch system", j.batch_system, kMaxNameBytes); !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckLength("batch job", j.batch_job, kMaxNameBytes); !s.ok()) return s;
    if (absl::Status s = CheckLength("batch step", j.batch_step, kMaxNameBytes); !s.ok()) return s;
    if (j.batch_task < -1 || j.batch_task > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("batch task ", j.batch_task, " is not in -1..65535"));
    }
    if (absl::Status s = CheckGang(j); !s.ok()) return s;
    if (j.priority != Priority::kGuaranteed && j.priority != Priority::kOpportunistic) {
      return absl::InvalidArgumentError(
          absl::StrCat("priority ", static_cast<int>(j.priority), " is not 0 or 1"));
    }
    return CheckFinite({{"slowdown target", j.slowdown_target}, {"share", j.share}});
  }
  absl::Status operator()(const JobRemoval& r) const { return CheckName("job id", r.job); }
  absl::Status operator()(const BaselineRecord& b) const {
    return CheckFinite({{"baseline iteration_ns", b.iteration_ns},
                        {"baseline kernels_per_s", b.kernels_per_s},
                        {"baseline busy", b.busy}});
  }
  absl::Status operator()(const ObservationRecord& o) const {
    if (absl::Status s = CheckLength("kind a", o.kind_a, kMaxNameBytes); !s.ok()) return s;
    if (absl::Status s = CheckLength("kind b", o.kind_b, kMaxNameBytes); !s.ok()) return s;
    if (absl::Status s = CheckFinite({{"slowdown a", o.slowdown_a},
                                      {"slowdown b", o.slowdown_b},
                                      {"share a", o.share_a},
                                      {"share b", o.share_b}});
        !s.ok()) {
      return s;
    }
    return CheckLength("gpu type", o.gpu_type, kMaxNameBytes);
  }
  absl::Status operator()(const BudgetSeqUpdate&) const { return absl::OkStatus(); }
  absl::Status operator()(const KvPut& p) const {
    if (absl::Status s = CheckName("key", p.key); !s.ok()) return s;
    return CheckLength("value", p.value, kMaxValueBytes);
  }
  absl::Status operator()(const KvRemoval& r) const { return CheckName("key", r.key); }
};

}  // namespace

absl::Status Validate(const Mutation& m) { return std::visit(Validator{}, m); }

}  // namespace iashim::state
