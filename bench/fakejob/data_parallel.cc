#include "bench/fakejob/data_parallel.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bench/fakejob/number_parse.h"

namespace iashim::fakejob {
namespace {

// Group names hold at most 63 characters (simgpu's limit).
constexpr size_t kMaxGroupName = 63;

absl::StatusOr<int> ReadInt(const EnvLookup& env, const char* name, int min, int max) {
  const char* raw = env(name);
  if (raw == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " is not set (a data-parallel rank needs RANK, WORLD_SIZE, "
                           "MASTER_ADDR and MASTER_PORT, as torchrun sets them)"));
  }
  const std::optional<int64_t> v = ParseInt64(raw);
  if (!v || *v < min || *v > max) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, "='", raw, "' must be an integer in ", min, "..", max));
  }
  return static_cast<int>(*v);
}

}  // namespace

std::string GroupForEndpoint(std::string_view addr, std::string_view port) {
  std::string group = "fakejob-" + std::string(addr) + "-" + std::string(port);
  for (char& c : group) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  if (group.size() > kMaxGroupName) group.resize(kMaxGroupName);
  return group;
}

absl::StatusOr<std::optional<RankEnvironment>> ReadRankEnvironment(const EnvLookup& env) {
  if (env("WORLD_SIZE") == nullptr) return std::optional<RankEnvironment>();
  RankEnvironment r;
  absl::StatusOr<int> world = ReadInt(env, "WORLD_SIZE", 1, kMaxRanks);
  if (!world.ok()) return world.status();
  r.world_size = *world;
  absl::StatusOr<int> rank = ReadInt(env, "RANK", 0, r.world_size - 1);
  if (!rank.ok()) return rank.status();
  r.rank = *rank;
  r.local_rank = r.rank;
  if (env("LOCAL_RANK") != nullptr) {
    absl::StatusOr<int> local = ReadInt(env, "LOCAL_RANK", 0, kMaxRanks - 1);
    if (!local.ok()) return local.status();
    r.local_rank = *local;
  }
  const char* addr = env("MASTER_ADDR");
  const char* port = env("MASTER_PORT");
  if (addr == nullptr || *addr == '\0' || port == nullptr || *port == '\0') {
    return absl::InvalidArgumentError(
        "MASTER_ADDR and MASTER_PORT must be set: the ranks of one job meet there");
  }
  r.group = GroupForEndpoint(addr, port);
  return std::optional<RankEnvironment>(r);
}

}  // namespace iashim::fakejob
