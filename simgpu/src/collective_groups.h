// The collective groups of a simgpu namespace: which processes are the ranks of
// each group (an NCCL communicator), which node each rank is on, and when each
// rank reached each of its collectives. Kept in /dev/shm/<ns>-collectives,
// shared by every process of the namespace, so that ranks in different
// processes and on different devices meet as an all-reduce's ranks do.
//
// With SIMGPU_FABRIC, the simulated network between nodes: the groups are kept
// in <fabric>/collectives instead, shared by every node that names the same
// directory, so ranks on different nodes (each with its own /dev/shm and its
// own simulated GPUs) meet. A node is a simgpu namespace on a host (uname's
// nodename). The nodes must be on one machine: the file is mapped shared, its
// mutex is a process-shared one, and whether a rank's process is alive is
// judged by pid in one PID namespace.
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

// The file that holds namespace `ns`'s groups: /dev/shm/<ns>-collectives, or
// <fabric>/collectives when a fabric directory is given.
std::string CollectiveGroupsPath(std::string_view ns, std::string_view fabric = {});

// The node a process is on: namespace `ns` on host `hostname` (the cluster's
// nodes share one namespace name and differ in hostname; tests on one host
// differ in namespace). ThisNode uses uname()'s nodename.
uint64_t NodeId(std::string_view ns, std::string_view hostname);
uint64_t ThisNode(std::string_view ns);

// A group name: 1..63 of [A-Za-z0-9._-].
bool ValidGroupName(std::string_view name);

class CollectiveGroups : public CollectiveBus {
 public:
  // Maps (creating if needed) the groups of namespace `ns`, in /dev/shm, as
  // seen from this process's node.
  static std::unique_ptr<CollectiveGroups> Open(std::string_view ns, std::string* error);
  // Maps (creating if needed) the groups file `path`, as seen from `node`: the
  // ranks this mapping joins are on `node`.
  static std::unique_ptr<CollectiveGroups> OpenAt(const std::string& path, uint64_t node,
                                                  std::string* error);
  ~CollectiveGroups() override;
  CollectiveGroups(const CollectiveGroups&) = delete;
  CollectiveGroups& operator=(const CollectiveGroups&) = delete;

  // Makes process (pid, start_ticks) rank `rank` of the `nranks`-rank group
  // `name`, creating the group if no live process holds it. A rank held by a
  // process that has exited is taken over (a new run under the same name), and
  // counts from its first collective again. Returns the group's slot, or -1 with
  // `error` naming what is wrong (another size, a rank taken by a live process,
  // every slot in use).
  // `device` is the physical device (in the namespace) the rank runs on; the
  // rank is on this mapping's node.
  int Join(std::string_view name, uint32_t rank, uint32_t nranks, int32_t pid,
           uint64_t start_ticks, int device, std::string* error);

  // The devices of the ranks of `group` on this mapping's node that have not
  // yet been seen to reach collective `seq`: a rank's arrival is recorded when
  // its device is next simulated, so a rank waiting for them simulates their
  // devices itself (in one process driving several devices, nobody else
  // would). A rank on another node is left out: its device is in that node's
  // shared memory, and its own process simulates it while it waits.
  std::vector<int> DevicesBehind(int32_t group, uint64_t seq);

  void Arrive(int32_t group, uint32_t rank, uint64_t seq, int64_t t_ns) override;
  std::optional<int64_t> Release(int32_t group, uint32_t rank, uint64_t seq,
                                 int64_t self_ns) override;
  bool SpansNodes(int32_t group) override;

 private:
  struct Table;
  CollectiveGroups(Table* table, uint64_t node) : table_(table), node_(node) {}
  Table* table_;
  const uint64_t node_;
};

// A namespace's groups, mapped on first use: a namespace whose processes
// launch no collective gets no groups file. Where they are kept comes from
// SIMGPU_FABRIC, read then.
class NamespaceCollectives : public CollectiveBus {
 public:
  explicit NamespaceCollectives(std::string_view ns) : ns_(ns) {}
  // Null, after one line on stderr, if SIMGPU_FABRIC is invalid (said once per
  // process) or the file cannot be mapped.
  CollectiveGroups* Get();

  void Arrive(int32_t group, uint32_t rank, uint64_t seq, int64_t t_ns) override;
  std::optional<int64_t> Release(int32_t group, uint32_t rank, uint64_t seq,
                                 int64_t self_ns) override;
  bool SpansNodes(int32_t group) override;

 private:
  const std::string ns_;
  std::once_flag once_;
  std::unique_ptr<CollectiveGroups> groups_;
};

}  // namespace simgpu

#endif  // SIMGPU_COLLECTIVE_GROUPS_H_
