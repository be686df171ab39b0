// Whose speed is protected on a shared GPU (DESIGN.md, "The budget"): the one
// Priority type of the shim, the coordinator, its policy, the state store and
// the tools, with its one spelling. The wire format's enum converts through
// common/wire/priority_wire.h.
#ifndef IASHIM_COMMON_TEXT_PRIORITY_H_
#define IASHIM_COMMON_TEXT_PRIORITY_H_

#include <string_view>

namespace iashim {

// The numbering is the wire's and the state store's (schemas/control.fbs,
// schemas/state.fbs).
enum class Priority {
  kGuaranteed = 0,     // its slowdown is held within its target
  kOpportunistic = 1,  // gets what the guaranteed jobs leave
};

// "guaranteed" / "opportunistic".
std::string_view PriorityName(Priority priority);

// "guaranteed" or "opportunistic", in any case: sets *out and returns true.
bool ParsePriority(std::string_view text, Priority* out);

}  // namespace iashim

#endif  // IASHIM_COMMON_TEXT_PRIORITY_H_
