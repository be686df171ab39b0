// Whose speed is protected on a shared GPU (DESIGN.md, "The budget").
#ifndef IASHIM_POLICY_PRIORITY_H_
#define IASHIM_POLICY_PRIORITY_H_

namespace iashim::policy {

enum class Priority {
  kGuaranteed,     // its slowdown is held within its target
  kOpportunistic,  // gets what the guaranteed jobs leave
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_PRIORITY_H_
