// Private to InterferenceAwarePlacement: the words of its decisions. Every
// decision carries a reason a user reads in `iashim status` or the Slurm
// log, so a queued job names the GPU and the job it waits for, and a placed
// one what it was predicted to gain and cost.
#ifndef IASHIM_POLICY_INTERNAL_PLACEMENT_REASONS_H_
#define IASHIM_POLICY_INTERNAL_PLACEMENT_REASONS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "coordinator/policy/internal/placement_scope.h"
#include "coordinator/policy/placement.h"

namespace iashim::policy::placement_internal {

// Why a GPU cannot take the job now: the first one found (in GpuId order)
// becomes the queued reason. Kept as values so no string is built per GPU.
struct Blocker {
  enum class Why {
    kNone,
    kFull,
    kMemory,
    kTwoGuaranteed,
    kAtFloor,
    kShareRule,
    kNewTarget,
    kResidentTarget
  };
  Why why = Why::kNone;
  const GpuView* view = nullptr;
  const PlacedJob* resident = nullptr;
  double throughput = 0;
  double target = 0;
};

// `b` for request `r` in words ("" for kNone); `max_jobs` is the policy's
// max_jobs_per_gpu.
std::string Explain(const Blocker& b, const PlacementRequest& r, int max_jobs);

// "1.5 GiB".
std::string Bytes(uint64_t bytes);

// What a request asked: "1.5 GiB", or "the whole GPU" for 0.
std::string Asked(uint64_t mem_bytes);

// "a:0, a:1": the chosen GPUs (indices into `views`).
std::string GpuNames(std::span<const GpuView> views, std::span<const size_t> chosen);

// "x, y": the jobs on the chosen GPUs (a gang once), or "no job".
std::string JobNames(std::span<const GpuView> views, std::span<const size_t> chosen);

// What the reason of a guaranteed job placed beside guaranteed ones ends
// with (PlacementDecision::beside_guaranteed), naming them.
std::string BesideGuaranteed(const std::vector<std::string>& guaranteed);

}  // namespace iashim::policy::placement_internal

#endif  // IASHIM_POLICY_INTERNAL_PLACEMENT_REASONS_H_
