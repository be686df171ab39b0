#include "coordinator/policy/simple_placement.h"

#include <algorithm>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/policy/best_fit.h"

namespace iashim::policy {
namespace {

std::string Bytes(uint64_t bytes) {
  return absl::StrFormat("%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
}

std::string Asked(uint64_t mem_bytes) {
  return mem_bytes == 0 ? std::string("the whole GPU") : Bytes(mem_bytes);
}

const PlacedJob* GuaranteedOn(std::span<const PlacedJob> jobs) {
  for (const PlacedJob& j : jobs) {
    if (j.priority == Priority::kGuaranteed) return &j;
  }
  return nullptr;
}

// Why `gpu` cannot take the request now; empty when it can.
std::string WhyNot(const PlacementRequest& r, const GpuInfo& gpu, std::span<const PlacedJob> jobs) {
  if (!FitsNow(gpu, jobs, r.mem_bytes)) {
    if (r.mem_bytes == 0) {
      return absl::StrCat(GpuName(gpu.id), " runs ", jobs.size(),
                          " job(s); the whole GPU was asked");
    }
    return absl::StrCat(GpuName(gpu.id), " has ", Bytes(FreeBytes(gpu, jobs)), " free of ",
                        Bytes(gpu.memory_bytes), "; ", Bytes(r.mem_bytes), " asked");
  }
  if (r.priority == Priority::kGuaranteed) {
    if (const PlacedJob* g = GuaranteedOn(jobs)) {
      return absl::StrCat(GpuName(gpu.id), " already runs guaranteed job ", g->job);
    }
  }
  return "";
}

PlacementDecision PlaceOnRequestedGpu(const PlacementRequest& r, const ClusterState& state) {
  const GpuInfo* gpu = state.FindGpu(*r.gpu);
  if (gpu == nullptr) {
    return PlacementDecision::Rejected(absl::StrCat("no GPU ", GpuName(*r.gpu), " in the cluster"));
  }
  if (!CanEverFit(*gpu, r.mem_bytes)) {
    return PlacementDecision::Rejected(absl::StrCat(
        Bytes(r.mem_bytes), " asked; ", GpuName(gpu->id), " has ", Bytes(gpu->memory_bytes)));
  }
  const std::string why_not = WhyNot(r, *gpu, state.JobsOn(gpu->id));
  if (!why_not.empty()) return PlacementDecision::Queued(why_not);
  return PlacementDecision::Placed(gpu->id, "the requested GPU");
}

// A gang runs alone on k GPUs of one node: sharing its GPUs would slow the
// whole gang to its slowest member, which this policy cannot foresee.
PlacementDecision PlaceGang(const PlacementRequest& r, const ClusterState& state,
                            const std::string& where) {
  std::vector<const GpuInfo*> gpus;
  for (const GpuInfo& g : state.cluster.gpus) {
    if (r.host.empty() || g.id.host == r.host) gpus.push_back(&g);
  }
  if (gpus.empty()) return PlacementDecision::Rejected(absl::StrCat("no GPUs on ", where));
  std::sort(gpus.begin(), gpus.end(),
            [](const GpuInfo* a, const GpuInfo* b) { return a->id < b->id; });
  const size_t want = static_cast<size_t>(r.gpu_count);
  bool ever = false;
  std::vector<const GpuInfo*> empty;
  for (size_t begin = 0; begin < gpus.size();) {
    size_t end = begin, could = 0;
    for (; end < gpus.size() && gpus[end]->id.host == gpus[begin]->id.host; ++end) {
      if (!CanEverFit(*gpus[end], r.mem_bytes)) continue;
      ++could;
      if (state.JobsOn(gpus[end]->id).empty()) empty.push_back(gpus[end]);
    }
    ever = ever || could >= want;
    begin = end;
  }
  if (!ever) {
    return PlacementDecision::Rejected(absl::StrCat("a gang of ", r.gpu_count, " GPUs with ",
                                                    Asked(r.mem_bytes), " each asked; no node on ",
                                                    where, " has that many such GPUs"));
  }
  const std::vector<const GpuInfo*> chosen = BestFitEmptyGpus(empty, r.gpu_count);
  if (chosen.empty()) {
    return PlacementDecision::Queued(
        absl::StrCat("no node on ", where, " has ", r.gpu_count, " empty GPUs now"));
  }
  std::vector<GpuId> ids;
  for (const GpuInfo* g : chosen) ids.push_back(g->id);
  return PlacementDecision::PlacedGang(
      std::move(ids), absl::StrCat(r.gpu_count, " empty GPUs on node ", chosen.front()->id.host));
}

}  // namespace

PlacementDecision SimplePlacement::Place(const PlacementRequest& r,
                                         const ClusterState& state) const {
  if (r.gpu_count < 1) {
    return PlacementDecision::Rejected(
        absl::StrCat("gpu_count ", r.gpu_count, " asked; at least 1"));
  }
  if (!r.job.empty()) {
    std::vector<GpuId> at = state.FindJobGpus(r.job);
    if (!at.empty()) {
      std::string reason = absl::StrCat("already placed on ", GpuName(at.front()));
      if (at.size() == 1) return PlacementDecision::Placed(at.front(), std::move(reason));
      return PlacementDecision::PlacedGang(std::move(at), std::move(reason));
    }
  }
  if (r.gpu.has_value()) {
    if (r.gpu_count > 1) {
      return PlacementDecision::Rejected(absl::StrCat(
          "a gang of ", r.gpu_count, " GPUs cannot be pinned to one GPU; name its host instead"));
    }
    return PlaceOnRequestedGpu(r, state);
  }

  const std::string where = r.host.empty() ? "the cluster" : absl::StrCat("host ", r.host);
  if (r.gpu_count > 1) return PlaceGang(r, state, where);
  std::vector<const GpuInfo*> candidates;
  for (const GpuInfo& g : state.cluster.gpus) {
    if (r.host.empty() || g.id.host == r.host) candidates.push_back(&g);
  }
  if (candidates.empty()) return PlacementDecision::Rejected(absl::StrCat("no GPUs on ", where));

  bool ever = false;
  const GpuInfo* empty = nullptr;
  const GpuInfo* shared = nullptr;
  std::tuple<double, size_t, int64_t> shared_key;  // busy, jobs, -free: lower is better
  std::string last_why_not;
  for (const GpuInfo* g : candidates) {
    if (!CanEverFit(*g, r.mem_bytes)) continue;
    ever = true;
    const std::span<const PlacedJob> jobs = state.JobsOn(g->id);
    if (jobs.empty()) {
      // Smallest that fits; unknown size (0) last; then GpuId order.
      const auto size_key = [](const GpuInfo* x) {
        return std::make_tuple(x->memory_bytes == 0, x->memory_bytes, x->id);
      };
      if (empty == nullptr || size_key(g) < size_key(empty)) empty = g;
      continue;
    }
    std::string why_not = WhyNot(r, *g, jobs);
    if (!why_not.empty()) {
      last_why_not = std::move(why_not);
      continue;
    }
    const uint64_t free = FreeBytes(*g, jobs);
    const auto key = std::make_tuple(TotalBusy(jobs), jobs.size(),
                                     -static_cast<int64_t>(free / 2));  // /2: no overflow
    if (shared == nullptr || key < shared_key || (key == shared_key && g->id < shared->id)) {
      shared = g;
      shared_key = key;
    }
  }
  if (!ever) {
    return PlacementDecision::Rejected(
        absl::StrCat(Asked(r.mem_bytes), " asked; no GPU on ", where, " has that much memory"));
  }
  if (empty != nullptr) return PlacementDecision::Placed(empty->id, "an empty GPU");
  if (shared != nullptr) {
    const size_t n = state.JobsOn(shared->id).size();
    return PlacementDecision::Placed(
        shared->id,
        absl::StrFormat("shared with %d job(s), the least busy GPU that fits (busy %.2f)", n,
                        std::get<0>(shared_key)));
  }
  if (r.mem_bytes == 0) {
    return PlacementDecision::Queued(
        absl::StrCat("the whole GPU was asked; no GPU on ", where, " is empty"));
  }
  return PlacementDecision::Queued(
      absl::StrCat("no GPU on ", where, " can take the job now (e.g. ", last_why_not, ")"));
}

}  // namespace iashim::policy
