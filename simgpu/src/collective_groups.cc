#include "simgpu/src/collective_groups.h"

#include <sys/mman.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/wire/kernel_id.h"
#include "simgpu/src/config_parse.h"
#include "simgpu/src/shared_device.h"
#include "simgpu/src/shared_region.h"

namespace simgpu {

// Arrival times kept per rank: the collectives it may still be waited on for.
constexpr int kCollectiveArrivalRing = 4;
constexpr size_t kCollectiveNameBytes = 64;

// The layout in shared memory (plain data, no pointers).
struct CollectiveRankSlot {
  int32_t pid;             // 0: no process holds this rank
  int32_t device;          // the physical device it runs on, in its node's namespace
  uint64_t start_ticks;
  uint64_t node;           // the node it is on (NodeId)
  uint64_t arrived;        // the last collective (1, 2, ...) this rank reached
  int64_t arrival_ns[kCollectiveArrivalRing];
};

struct CollectiveGroupSlot {
  uint32_t in_use;
  uint32_t nranks;
  char name[kCollectiveNameBytes];
  CollectiveRankSlot ranks[kMaxCollectiveRanks];
};

namespace {

constexpr uint64_t kGroupsMagic = 0x53494d434f4c4c01ULL;  // "SIMCOLL" + 1
constexpr uint32_t kGroupsLayoutVersion = 3;

bool AnyRankAlive(const CollectiveGroupSlot& g) {
  for (uint32_t r = 0; r < g.nranks && r < kMaxCollectiveRanks; ++r) {
    if (g.ranks[r].pid != 0 && ProcessAlive(g.ranks[r].pid, g.ranks[r].start_ticks)) return true;
  }
  return false;
}

void Reset(CollectiveGroupSlot& g, std::string_view name, uint32_t nranks) {
  std::memset(&g, 0, sizeof(g));
  g.in_use = 1;
  g.nranks = nranks;
  std::memcpy(g.name, name.data(), name.size());
}

}  // namespace

struct CollectiveGroups::Table {
  pthread_mutex_t mutex;
  alignas(64) uint64_t magic;
  uint32_t layout_version;
  CollectiveGroupSlot groups[kMaxCollectiveGroups];
};

std::string CollectiveGroupsPath(std::string_view ns, std::string_view fabric) {
  if (!fabric.empty()) return std::string(fabric) + "/collectives";
  return "/dev/shm/" + std::string(ns) + "-collectives";
}

uint64_t NodeId(std::string_view ns, std::string_view hostname) {
  return iashim::Fnv1a(hostname, iashim::Fnv1a("@", iashim::Fnv1a(ns)));
}

uint64_t ThisNode(std::string_view ns) {
  struct utsname u {};
  if (::uname(&u) != 0) return NodeId(ns, "");
  return NodeId(ns, u.nodename);
}

bool ValidGroupName(std::string_view name) {
  if (name.empty() || name.size() >= kCollectiveNameBytes) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-';
  });
}

std::unique_ptr<CollectiveGroups> CollectiveGroups::Open(std::string_view ns, std::string* error) {
  return OpenAt(CollectiveGroupsPath(ns), ThisNode(ns), error);
}

std::unique_ptr<CollectiveGroups> CollectiveGroups::OpenAt(const std::string& path, uint64_t node,
                                                           std::string* error) {
  void* mem = MapSharedRegion(
      path, sizeof(Table),
      [](const void* m) {
        const Table* t = static_cast<const Table*>(m);
        return t->magic == kGroupsMagic && t->layout_version == kGroupsLayoutVersion;
      },
      [](void* m) {
        Table* t = static_cast<Table*>(m);
        std::memset(static_cast<void*>(t), 0, sizeof(Table));
        InitRobustMutex(&t->mutex);
        t->magic = kGroupsMagic;
        t->layout_version = kGroupsLayoutVersion;
      },
      error);
  if (mem == nullptr) return nullptr;
  return std::unique_ptr<CollectiveGroups>(new CollectiveGroups(static_cast<Table*>(mem), node));
}

CollectiveGroups::~CollectiveGroups() { ::munmap(table_, sizeof(Table)); }

int CollectiveGroups::Join(std::string_view name, uint32_t rank, uint32_t nranks, int32_t pid,
                           uint64_t start_ticks, int device, std::string* error) {
  if (!ValidGroupName(name)) {
    *error = "collective group name must be 1..63 of [A-Za-z0-9._-]";
    return -1;
  }
  if (nranks == 0 || nranks > kMaxCollectiveRanks || rank >= nranks) {
    *error = "collective rank " + std::to_string(rank) + " of " + std::to_string(nranks) +
             ": ranks must be 1.." + std::to_string(kMaxCollectiveRanks) + " and rank < nranks";
    return -1;
  }
  RobustLock lock(&table_->mutex);
  int slot = -1, free_slot = -1;
  for (int i = 0; i < kMaxCollectiveGroups; ++i) {
    const CollectiveGroupSlot& g = table_->groups[i];
    if (g.in_use && std::string_view(g.name) == name) {
      slot = i;
      break;
    }
    if (free_slot < 0 && (!g.in_use || !AnyRankAlive(g))) free_slot = i;
  }
  if (slot < 0) {
    if (free_slot < 0) {
      *error = "all " + std::to_string(kMaxCollectiveGroups) +
               " collective groups of the namespace (or fabric) are held by live processes";
      return -1;
    }
    slot = free_slot;
    Reset(table_->groups[slot], name, nranks);
  }
  CollectiveGroupSlot& g = table_->groups[slot];
  if (g.nranks != nranks) {
    if (AnyRankAlive(g)) {
      *error = "collective group '" + std::string(name) + "' has " + std::to_string(g.nranks) +
               " ranks, not " + std::to_string(nranks);
      return -1;
    }
    Reset(g, name, nranks);
  }
  // Ranks whose process has exited belong to an earlier run: they start again.
  for (uint32_t r = 0; r < g.nranks; ++r) {
    CollectiveRankSlot& other = g.ranks[r];
    if (other.pid != 0 && !(other.pid == pid && other.start_ticks == start_ticks) &&
        !ProcessAlive(other.pid, other.start_ticks)) {
      other = CollectiveRankSlot{};
    }
  }
  CollectiveRankSlot& mine = g.ranks[rank];
  if (mine.pid != 0 && !(mine.pid == pid && mine.start_ticks == start_ticks)) {
    *error = "rank " + std::to_string(rank) + " of collective group '" + std::string(name) +
             "' is held by live process " + std::to_string(mine.pid);
    return -1;
  }
  mine.pid = pid;
  mine.start_ticks = start_ticks;
  mine.device = device;
  mine.node = node_;
  return slot;
}

void CollectiveGroups::Arrive(int32_t group, uint32_t rank, uint64_t seq, int64_t t_ns) {
  if (group < 0 || group >= kMaxCollectiveGroups || rank >= kMaxCollectiveRanks) return;
  RobustLock lock(&table_->mutex);
  CollectiveRankSlot& r = table_->groups[group].ranks[rank];
  if (r.arrived >= seq) return;
  r.arrived = seq;
  r.arrival_ns[seq % kCollectiveArrivalRing] = t_ns;
}

std::vector<int> CollectiveGroups::DevicesBehind(int32_t group, uint64_t seq) {
  std::vector<int> devices;
  if (group < 0 || group >= kMaxCollectiveGroups) return devices;
  RobustLock lock(&table_->mutex);
  const CollectiveGroupSlot& g = table_->groups[group];
  for (uint32_t r = 0; r < g.nranks && r < kMaxCollectiveRanks; ++r) {
    const CollectiveRankSlot& other = g.ranks[r];
    if (other.pid != 0 && other.node == node_ && other.arrived < seq &&
        std::find(devices.begin(), devices.end(), other.device) == devices.end())
      devices.push_back(other.device);
  }
  return devices;
}

std::optional<int64_t> CollectiveGroups::Release(int32_t group, uint32_t rank, uint64_t seq,
                                                 int64_t self_ns) {
  if (group < 0 || group >= kMaxCollectiveGroups) return std::nullopt;
  RobustLock lock(&table_->mutex);
  const CollectiveGroupSlot& g = table_->groups[group];
  int64_t last = INT64_MIN;
  for (uint32_t r = 0; r < g.nranks && r < kMaxCollectiveRanks; ++r) {
    const CollectiveRankSlot& other = g.ranks[r];
    if (other.arrived >= seq) {
      last = std::max(last, other.arrival_ns[seq % kCollectiveArrivalRing]);
    } else if (r == rank) {
      last = std::max(last, self_ns);
    } else {
      return std::nullopt;
    }
  }
  if (last == INT64_MIN) return std::nullopt;
  return last;
}

bool CollectiveGroups::SpansNodes(int32_t group) {
  if (group < 0 || group >= kMaxCollectiveGroups) return false;
  RobustLock lock(&table_->mutex);
  const CollectiveGroupSlot& g = table_->groups[group];
  std::optional<uint64_t> node;
  for (uint32_t r = 0; r < g.nranks && r < kMaxCollectiveRanks; ++r) {
    const CollectiveRankSlot& other = g.ranks[r];
    if (other.pid == 0) continue;
    if (node.has_value() && *node != other.node) return true;
    node = other.node;
  }
  return false;
}

namespace {

// SIMGPU_FABRIC's problem, said once per process however many devices ask.
void ReportBadFabric(const char* fabric, const std::string& problem) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(stderr,
                 "simgpu: SIMGPU_FABRIC='%s' is invalid: %s: give the absolute path of an "
                 "existing, writable directory that the nodes share, or unset it; collectives "
                 "cannot complete\n",
                 fabric, problem.c_str());
  });
}

}  // namespace

CollectiveGroups* NamespaceCollectives::Get() {
  std::call_once(once_, [this] {
    const char* fabric = std::getenv("SIMGPU_FABRIC");
    if (fabric != nullptr) {
      if (const std::string problem = FabricDirProblem(fabric); !problem.empty()) {
        ReportBadFabric(fabric, problem);
        return;
      }
    }
    std::string error;
    groups_ = CollectiveGroups::OpenAt(CollectiveGroupsPath(ns_, fabric ? fabric : ""),
                                       ThisNode(ns_), &error);
    if (!groups_) std::fprintf(stderr, "simgpu: collectives cannot complete: %s\n", error.c_str());
  });
  return groups_.get();
}

void NamespaceCollectives::Arrive(int32_t group, uint32_t rank, uint64_t seq, int64_t t_ns) {
  if (CollectiveGroups* groups = Get()) groups->Arrive(group, rank, seq, t_ns);
}

std::optional<int64_t> NamespaceCollectives::Release(int32_t group, uint32_t rank, uint64_t seq,
                                                     int64_t self_ns) {
  CollectiveGroups* groups = Get();
  if (groups == nullptr) return std::nullopt;
  return groups->Release(group, rank, seq, self_ns);
}

bool NamespaceCollectives::SpansNodes(int32_t group) {
  CollectiveGroups* groups = Get();
  return groups != nullptr && groups->SpansNodes(group);
}

}  // namespace simgpu
