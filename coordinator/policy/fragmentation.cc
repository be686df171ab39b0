#include "coordinator/policy/fragmentation.h"

#include <algorithm>

namespace iashim::policy {
namespace {

// What whole-GPU classes can use.
bool EmptyAndFree(const GpuRoom& g) { return g.empty && !g.full; }

bool Usable(const RequestClass& c, const GpuRoom& g) {
  if (g.full) return false;
  if (c.mem_bytes == 0) return EmptyAndFree(g);
  return g.memory_bytes == 0 || g.free_bytes >= c.mem_bytes;
}

// One class's unusable capacity on a node, counted GPU by GPU.
double ClassUnusable(const RequestClass& c, std::span<const GpuRoom> node) {
  int usable = 0;
  double blocked = 0, free = 0;
  for (const GpuRoom& g : node) {
    free += FreeShare(g);
    if (Usable(c, g)) {
      ++usable;
    } else {
      blocked += FreeShare(g);
    }
  }
  return usable < c.gpus ? free : blocked;
}

}  // namespace

double FreeShare(const GpuRoom& g) {
  if (g.full) return 0;
  if (g.memory_bytes == 0) return g.empty ? 1.0 : 0.0;
  return static_cast<double>(std::min(g.free_bytes, g.memory_bytes)) /
         static_cast<double>(g.memory_bytes);
}

GpuRoom RoomOf(const GpuInfo& gpu, std::span<const PlacedJob> jobs, int max_jobs_per_gpu) {
  return GpuRoom{.free_bytes = FreeBytes(gpu, jobs),
                 .memory_bytes = gpu.memory_bytes,
                 .empty = jobs.empty(),
                 .full = max_jobs_per_gpu > 0 && jobs.size() >= static_cast<size_t>(max_jobs_per_gpu)};
}

GpuRoom RoomAfter(const GpuRoom& before, uint64_t mem_bytes, size_t jobs_before,
                  int max_jobs_per_gpu) {
  GpuRoom after = before;
  after.empty = false;
  after.free_bytes = mem_bytes == 0 ? 0 : before.free_bytes - std::min(before.free_bytes, mem_bytes);
  after.full = mem_bytes == 0 ||
               (max_jobs_per_gpu > 0 && jobs_before + 1 >= static_cast<size_t>(max_jobs_per_gpu));
  return after;
}

FragmentationMeter::FragmentationMeter(std::span<const RequestClass> classes) {
  std::vector<std::pair<uint64_t, double>> shares;
  for (const RequestClass& c : classes) {
    if (c.mem_bytes == 0) {
      whole_.push_back(c);
    } else if (c.gpus > 1) {
      gangs_.push_back(c);
    } else {
      shares.emplace_back(c.mem_bytes, c.weight);
    }
  }
  std::sort(shares.begin(), shares.end());
  for (const auto& [mem, weight] : shares) share_mem_.push_back(mem);
  share_weight_above_.assign(shares.size() + 1, 0.0);
  for (size_t j = shares.size(); j-- > 0;) {
    share_weight_above_[j] = share_weight_above_[j + 1] + shares[j].second;
  }
}

double FragmentationMeter::ShareTerm(const GpuRoom& g) const {
  // A GPU of unknown size takes any share; a full one has nothing free.
  if (g.full || g.memory_bytes == 0) return 0;
  // The classes asking more than g has free: share_mem_[j] > free_bytes.
  const size_t j = static_cast<size_t>(
      std::upper_bound(share_mem_.begin(), share_mem_.end(), g.free_bytes) - share_mem_.begin());
  return FreeShare(g) * share_weight_above_[j];
}

double FragmentationMeter::NodeTerm(int empty, double free,
                                    std::span<const GpuRoom> node) const {
  double term = 0;
  for (const RequestClass& c : whole_) {
    // Empty GPUs have all of their capacity free, and whole-GPU classes use
    // only them: the rest of the free capacity sits on partial GPUs.
    term += c.weight * (empty < c.gpus ? free : free - empty);
  }
  for (const RequestClass& c : gangs_) term += c.weight * ClassUnusable(c, node);
  return term;
}

double FragmentationMeter::Unusable(std::span<const GpuRoom> node) const {
  int empty = 0;
  double free = 0, shares = 0;
  for (const GpuRoom& g : node) {
    free += FreeShare(g);
    if (EmptyAndFree(g)) ++empty;
    shares += ShareTerm(g);
  }
  return shares + NodeTerm(empty, free, node);
}

double FragmentationMeter::Delta(std::span<const GpuRoom> node, size_t i, const GpuRoom& after) {
  const GpuRoom& before = node[i];
  if (counted_ != node.data() || counted_size_ != node.size()) {
    counted_ = node.data();
    counted_size_ = node.size();
    counted_empty_ = 0;
    counted_free_ = 0;
    for (const GpuRoom& g : node) {
      counted_free_ += FreeShare(g);
      if (EmptyAndFree(g)) ++counted_empty_;
    }
  }
  double delta = ShareTerm(after) - ShareTerm(before);
  if (whole_.empty() && gangs_.empty()) return delta;
  const int empty_after = counted_empty_ - static_cast<int>(EmptyAndFree(before)) +
                          static_cast<int>(EmptyAndFree(after));
  const double free_after = counted_free_ - FreeShare(before) + FreeShare(after);
  if (gangs_.empty()) {
    return delta + NodeTerm(empty_after, free_after, {}) -
           NodeTerm(counted_empty_, counted_free_, {});
  }
  std::vector<GpuRoom> changed(node.begin(), node.end());
  changed[i] = after;
  return delta + NodeTerm(empty_after, free_after, changed) -
         NodeTerm(counted_empty_, counted_free_, node);
}

double FragmentationMeter::DeltaSet(std::span<const GpuRoom> node, std::span<const size_t> chosen,
                                    std::span<const GpuRoom> after) const {
  std::vector<GpuRoom> changed(node.begin(), node.end());
  for (size_t j = 0; j < chosen.size() && j < after.size(); ++j) changed[chosen[j]] = after[j];
  return Unusable(changed) - Unusable(node);
}

}  // namespace iashim::policy
