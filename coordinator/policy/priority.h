// Whose speed is protected on a shared GPU: the policy's name for the one
// Priority type (common/text/priority.h).
#ifndef IASHIM_POLICY_PRIORITY_H_
#define IASHIM_POLICY_PRIORITY_H_

#include "common/text/priority.h"

namespace iashim::policy {

using ::iashim::Priority;

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_PRIORITY_H_
