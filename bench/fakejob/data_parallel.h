// Data-parallel training as torchrun runs it: each rank is a process with one
// GPU, told its place by environment variables (RANK, WORLD_SIZE, LOCAL_RANK)
// and where to meet the others (MASTER_ADDR, MASTER_PORT); every iteration ends
// with an all-reduce of the gradients across the ranks. simgpu's collectives
// stand in for NCCL's (simgpu/include/simgpu/collective.h).
#ifndef IASHIM_BENCH_FAKEJOB_DATA_PARALLEL_H_
#define IASHIM_BENCH_FAKEJOB_DATA_PARALLEL_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace iashim::fakejob {

inline constexpr int kMaxRanks = 64;

// One rank's part in an all-reduce group.
struct AllReduceRank {
  std::string group;  // the communicator's name, the same for every rank
  int rank = 0;
  int world_size = 1;
  uint64_t bytes = 0;  // all-reduced per iteration
};

// Where this process stands in a torchrun-style job.
struct RankEnvironment {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;  // its GPU among the node's (cuda:LOCAL_RANK)
  std::string group;   // from the rendezvous endpoint
};

using EnvLookup = std::function<const char*(const char* name)>;

// Reads RANK, WORLD_SIZE, LOCAL_RANK (default RANK), MASTER_ADDR and
// MASTER_PORT. nullopt when WORLD_SIZE is unset; InvalidArgument naming the
// variable when one is missing or out of range.
absl::StatusOr<std::optional<RankEnvironment>> ReadRankEnvironment(const EnvLookup& env);

// "fakejob-<addr>-<port>", with characters a group name cannot hold as '_':
// every rank that meets at one endpoint names the same group.
std::string GroupForEndpoint(std::string_view addr, std::string_view port);

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_DATA_PARALLEL_H_
