#include "coordinator/policy/internal/placement_reasons.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/policy/cluster_state.h"

namespace iashim::policy::placement_internal {
namespace {

// "job a" or "jobs a, b, c and 2 more": who holds a GPU, so that a queued
// job's user sees which job it waits for (one that never started, say).
std::string Holders(const GpuView& view) {
  constexpr size_t kNamed = 3;
  std::string out = view.jobs.size() == 1 ? "job " : "jobs ";
  for (size_t i = 0; i < view.jobs.size() && i < kNamed; ++i) {
    if (i > 0) out += ", ";
    out += view.jobs[i].job;
  }
  if (view.jobs.size() > kNamed) absl::StrAppend(&out, " and ", view.jobs.size() - kNamed, " more");
  return out;
}

}  // namespace

std::string Explain(const Blocker& b, const PlacementRequest& r, int max_jobs) {
  const std::string gpu = GpuName(b.view->gpu->id);
  switch (b.why) {
    case Blocker::Why::kNone:
      return "";
    case Blocker::Why::kFull:
      return absl::StrCat(gpu, " already runs ", Holders(*b.view), ", max_jobs_per_gpu ", max_jobs);
    case Blocker::Why::kMemory:
      if (r.mem_bytes == 0 && JoinsBusyGpus(r)) {
        return absl::StrCat(gpu, " runs ", Holders(*b.view), ", who leave it no memory");
      }
      if (r.mem_bytes == 0) {
        return absl::StrCat(gpu, " runs ", Holders(*b.view), "; the whole GPU was asked");
      }
      return absl::StrCat(gpu, " has ", Bytes(FreeBytes(*b.view->gpu, b.view->jobs)), " free of ",
                          Bytes(b.view->gpu->memory_bytes), " (the rest held by ", Holders(*b.view),
                          "); ", Bytes(r.mem_bytes), " asked");
    case Blocker::Why::kTwoGuaranteed:
      return absl::StrCat(gpu, " already runs guaranteed job ", b.resident->job);
    case Blocker::Why::kAtFloor:
      return absl::StrCat(gpu, " runs ", Holders(*b.view),
                          ", its co-runners held at the least share (or where the least share "
                          "bought too little) to keep its guaranteed job within target: no share "
                          "left for another");
    case Blocker::Why::kShareRule:
      return absl::StrCat("job ", b.resident->job, " on ", gpu, " may not share a GPU with it");
    case Blocker::Why::kNewTarget:
      return absl::StrFormat(
          "on %s it would run at predicted throughput %.2f, past its slowdown "
          "target %.2f",
          gpu, b.throughput, b.target);
    case Blocker::Why::kResidentTarget:
      return absl::StrFormat(
          "guaranteed job %s on %s would run at predicted throughput %.2f, "
          "past its slowdown target %.2f",
          b.resident->job, gpu, b.throughput, b.target);
  }
  return "";
}

std::string Bytes(uint64_t bytes) {
  return absl::StrFormat("%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
}

std::string Asked(uint64_t mem_bytes) {
  return mem_bytes == 0 ? std::string("the whole GPU") : Bytes(mem_bytes);
}

std::string GpuNames(std::span<const GpuView> views, std::span<const size_t> chosen) {
  std::string out;
  for (size_t c : chosen) {
    if (!out.empty()) out += ", ";
    out += GpuName(views[c].gpu->id);
  }
  return out;
}

std::string JobNames(std::span<const GpuView> views, std::span<const size_t> chosen) {
  std::vector<std::string_view> names;
  for (size_t c : chosen) {
    for (const PlacedJob& j : views[c].jobs) {
      if (std::find(names.begin(), names.end(), j.job) == names.end()) names.push_back(j.job);
    }
  }
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out.append(n);
  }
  return out.empty() ? std::string("no job") : out;
}

std::string BesideGuaranteed(const std::vector<std::string>& guaranteed) {
  return absl::StrCat("; beside guaranteed ", absl::StrJoin(guaranteed, ", "),
                      ": neither held for the other, so its target may not hold until ",
                      guaranteed.size() == 1 ? "it ends" : "they end");
}

}  // namespace iashim::policy::placement_internal
