#include "common/text/priority.h"

#include "common/text/text.h"

namespace iashim {

std::string_view PriorityName(Priority priority) {
  return priority == Priority::kOpportunistic ? "opportunistic" : "guaranteed";
}

bool ParsePriority(std::string_view text, Priority* out) {
  for (const Priority p : {Priority::kGuaranteed, Priority::kOpportunistic}) {
    if (EqualsIgnoreCase(text, PriorityName(p))) {
      *out = p;
      return true;
    }
  }
  return false;
}

}  // namespace iashim
