#include "coordinator/clustersim/trace_variants.h"

#include <algorithm>
#include <map>
#include <random>

#include "absl/strings/str_cat.h"
#include "coordinator/policy/hash.h"

namespace iashim::clustersim {

uint64_t VariantSeed(uint64_t seed, int index) {
  // Mixed, so neighbouring seeds and indexes give unrelated streams.
  return policy::Mix64(seed * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(index) + 1);
}

std::vector<TraceJob> MakeVariant(std::span<const std::vector<TraceJob>> vcs, uint64_t seed,
                                  int index) {
  std::mt19937_64 rng(VariantSeed(seed, index));
  std::bernoulli_distribution keep(kVcKeep);
  std::vector<const std::vector<TraceJob>*> kept;
  for (const std::vector<TraceJob>& vc : vcs) {
    if (keep(rng)) kept.push_back(&vc);
  }
  if (kept.empty() && !vcs.empty()) {
    kept.push_back(&vcs[std::uniform_int_distribution<size_t>(0, vcs.size() - 1)(rng)]);
  }

  // The kept jobs by GPU count: what a job may be replaced with.
  std::map<int, std::vector<const TraceJob*>> by_scale;
  for (const std::vector<TraceJob>* vc : kept) {
    for (const TraceJob& j : *vc) by_scale[j.type.scale].push_back(&j);
  }
  std::normal_distribution<double> jitter(0, kArrivalJitterS);
  std::vector<TraceJob> out;
  for (const std::vector<TraceJob>* vc : kept) {
    for (const TraceJob& j : *vc) {
      const std::vector<const TraceJob*>& pool = by_scale[j.type.scale];
      const TraceJob& drawn = *pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)];
      TraceJob v;
      v.id = absl::StrCat(j.id, "/v", index);
      v.type = drawn.type;
      v.total_steps = drawn.total_steps;
      v.arrival_s = std::max(0.0, j.arrival_s + jitter(rng));
      out.push_back(std::move(v));
    }
  }
  // Arrival order, ties by id: the same variant always replays alike.
  std::sort(out.begin(), out.end(), [](const TraceJob& a, const TraceJob& b) {
    return a.arrival_s != b.arrival_s ? a.arrival_s < b.arrival_s : a.id < b.id;
  });
  return out;
}

}  // namespace iashim::clustersim
