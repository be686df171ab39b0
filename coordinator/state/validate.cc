#include "state/validate.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "state/limits.h"

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

struct Validator {
  absl::Status operator()(const JobRecord& j) const {
    if (absl::Status s = CheckName("job id", j.job); !s.ok()) return s;
    if (absl::Status s = CheckLength("host", j.host, kMaxNameBytes); !s.ok()) return s;
    if (absl::Status s = CheckLength("command", j.command, kMaxCommandBytes); !s.ok()) return s;
    if (absl::Status s = CheckLength("gpu host", j.gpu_host, kMaxNameBytes); !s.ok()) return s;
    if (absl::Status s = CheckLength("kind", j.kind, kMaxNameBytes); !s.ok()) return s;
    if (j.priority != Priority::kGuaranteed && j.priority != Priority::kOpportunistic) {
      return absl::InvalidArgumentError(
          absl::StrCat("priority ", static_cast<int>(j.priority), " is not 0 or 1"));
    }
    return absl::OkStatus();
  }
  absl::Status operator()(const JobRemoval& r) const { return CheckName("job id", r.job); }
  absl::Status operator()(const BaselineRecord&) const { return absl::OkStatus(); }
  absl::Status operator()(const ObservationRecord& o) const {
    if (absl::Status s = CheckLength("kind a", o.kind_a, kMaxNameBytes); !s.ok()) return s;
    if (absl::Status s = CheckLength("kind b", o.kind_b, kMaxNameBytes); !s.ok()) return s;
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
