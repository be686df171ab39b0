#include "coordinator/state/write_health.h"

#include "absl/strings/str_cat.h"

namespace iashim::state {

std::optional<std::string> WriteHealth::Update(const StateStore& store) {
  const bool failing = !store.write_error().ok();
  if (failing == failing_) return std::nullopt;
  failing_ = failing;
  if (failing) {
    return absl::StrCat("cannot write state in ", store.dir(), ": ", store.write_error().message(),
                        "; still serving, changes are kept in memory and written when the "
                        "disk takes them (retried every second)");
  }
  return absl::StrCat("state in ", store.dir(), " is written again: everything in memory is on disk (",
                      store.failed_writes(), " failed writes since start)");
}

}  // namespace iashim::state
