// Per job type, the share of its GPU's memory a one-GPU job holds
// (SimConfig::job_memory_share_by_type; iashim-clustersim
// --job-memory-shares FILE). The live replay writes one from its profiles'
// allocations (scripts/live-replay.sh), so the simulator counts memory as
// the coordinator does. Text, one type a line:
//   <Gavel job type> TAB <share in (0, 1]>
// '#' starts a comment line; blank lines are ignored.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_JOB_MEMORY_SHARES_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_JOB_MEMORY_SHARES_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace iashim::clustersim {

// Strict: two fields, a non-empty type listed once, a share in (0, 1].
// Errors say "<source>:<line>:" and what is wrong.
absl::StatusOr<std::map<std::string, double>> ParseJobMemoryShares(std::string_view text,
                                                                   std::string_view source);

absl::StatusOr<std::map<std::string, double>> ReadJobMemoryShares(const std::string& path);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_JOB_MEMORY_SHARES_H_
