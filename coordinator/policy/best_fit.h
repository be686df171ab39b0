// Choosing empty GPUs for a job that will run alone on them. A gang of k
// GPUs needs k empty GPUs of one node (node = GpuId.host). Best fit keeps
// whole nodes free for the gangs that need them: the node with the fewest
// empty GPUs that still has k, then the smallest GPUs there (keeps big GPUs
// for big jobs; unknown sizes last), ties in GpuId order.
#ifndef IASHIM_POLICY_BEST_FIT_H_
#define IASHIM_POLICY_BEST_FIT_H_

#include <span>
#include <vector>

#include "coordinator/policy/cluster.h"

namespace iashim::policy {

// `empty`: the GPUs that are empty and could hold the job, in GpuId order (so
// each node's GPUs are adjacent). Returns the k chosen, in GpuId order; empty
// when no node has k of them (or k < 1).
std::vector<const GpuInfo*> BestFitEmptyGpus(std::span<const GpuInfo* const> empty, int k);

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_BEST_FIT_H_
