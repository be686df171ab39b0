// The collective groups of a simgpu namespace: which processes are the ranks of
// each group (an NCCL communicator) and when each rank reached each of its
// collectives. Kept in /dev/shm/<ns>-collectives, shared by every process of
// the namespace, so that ranks in different processes and on different devices
// meet as an all-reduce's ranks do.
//
// A collective is released once every rank has reached it, at the last arrival;
// the fastest rank can be at most one collective ahead of the slowest
// unreleased one, so a few arrival times per rank are all that is kept.
#ifndef SIMGPU_COLLECTIVE_GROUPS_H_
#define SIMGPU_COLLECTIVE_GROUPS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simgpu/src/collective_bus.h"

namespace simgpu {

inline constexpr int kMaxCollectiveGroups = 64;
inline constexpr uint32_t kMaxCollectiveRanks = 64;

// The file that holds namespace `ns`'s groups.
std::string CollectiveGroupsPath(std::string_view ns);

// A group name: 1..63 of [A-Za-z0-9._-].
bool ValidGroupName(std::string_view name);

class CollectiveGroups : public CollectiveBus {
 public:
  // Maps (creating if needed) the groups of namespace `ns`.
  static std::unique_ptr<CollectiveGroups> Open(std::string_view ns, std::string* error);
  ~CollectiveGroups() override;
  CollectiveGroups(const CollectiveGroups&) = delete;
  CollectiveGroups& operator=(const CollectiveGroups&) = delete;

  // Makes process (pid, start_ticks) rank `rank` of the `nranks`-rank group
  // `name`, creating the group if no live process holds it. A rank held by a
  // process that has exited is taken over (a new run under the same name), and
  // counts from its first collective again. Returns the group's slot, or -1 with
  // `error` naming what is wrong (another size, a rank taken by a live process,
  // every slot in use).
  // `device` is the physical device (in the namespace) the rank runs on.
  int Join(std::string_view name, uint32_t rank, uint32_t nranks, int32_t pid,
           uint64_t start_ticks, int device, std::string* error);

  // The devices of the ranks of `group` that have not yet been seen to reach
  // collective `seq`: a rank's arrival is recorded when its device is next
  // simulated, so a rank waiting for them simulates their devices itself (in
  // one process driving several devices, nobody else would).
  std::vector<int> DevicesBehind(int32_t group, uint64_t seq);

  void Arrive(int32_t group, uint32_t rank, uint64_t seq, int64_t t_ns) override;
  std::optional<int64_t> Release(int32_t group, uint32_t rank, uint64_t seq,
                                 int64_t self_ns) override;

 private:
  struct Table;
  explicit CollectiveGroups(Table* table) : table_(table) {}
  Table* table_;
};

// A namespace's groups, mapped on first use: a namespace whose processes
// launch no collective gets no groups file.
class NamespaceCollectives : public CollectiveBus {
 public:
  explicit NamespaceCollectives(std::string_view ns) : ns_(ns) {}
  // Null, after one line on stderr, if the file cannot be mapped.
  CollectiveGroups* Get();

  void Arrive(int32_t group, uint32_t rank, uint64_t seq, int64_t t_ns) override;
  std::optional<int64_t> Release(int32_t group, uint32_t rank, uint64_t seq,
                                 int64_t self_ns) override;

 private:
  const std::string ns_;
  std::once_flag once_;
  std::unique_ptr<CollectiveGroups> groups_;
};

}  // namespace simgpu

#endif  // SIMGPU_COLLECTIVE_GROUPS_H_
