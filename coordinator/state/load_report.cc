#include "coordinator/state/load_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace iashim::state {

std::string LoadReport::ToString() const {
  std::string out =
      absl::StrCat(snapshot_records, " snapshot records, ", journal_records, " journal records (",
                   journal_records_stale, " stale), ", records_dropped, " records and ",
                   snapshot_bytes_dropped + journal_bytes_dropped, " bytes dropped");
  if (!problems.empty()) absl::StrAppend(&out, ": ", absl::StrJoin(problems, "; "));
  return out;
}

}  // namespace iashim::state
