#include "coordinator/policy/best_fit.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>

namespace iashim::policy {
namespace {

// Smaller is better: known sizes before unknown (0), then smaller, then id.
bool SmallerGpu(const GpuInfo* a, const GpuInfo* b) {
  return std::make_tuple(a->memory_bytes == 0, a->memory_bytes, a->id) <
         std::make_tuple(b->memory_bytes == 0, b->memory_bytes, b->id);
}

}  // namespace

std::vector<const GpuInfo*> BestFitEmptyGpus(std::span<const GpuInfo* const> empty, int k) {
  std::vector<const GpuInfo*> best;
  if (k < 1) return best;
  const size_t want = static_cast<size_t>(k);
  // Node key, lower is better: empty GPUs there, unknown sizes among the
  // chosen, their total size. Nodes come in host order, so a strict
  // comparison leaves ties to the first.
  std::tuple<size_t, size_t, uint64_t> best_key;
  std::vector<const GpuInfo*> node;
  for (size_t begin = 0; begin < empty.size();) {
    size_t end = begin + 1;
    while (end < empty.size() && empty[end]->id.host == empty[begin]->id.host) ++end;
    if (end - begin >= want) {
      if (want == 1) {  // the common case, without copying the node's GPUs
        node.assign(1, *std::min_element(empty.begin() + begin, empty.begin() + end, SmallerGpu));
      } else {
        node.assign(empty.begin() + begin, empty.begin() + end);
        std::partial_sort(node.begin(), node.begin() + want, node.end(), SmallerGpu);
        node.resize(want);
      }
      size_t unknown = 0;
      uint64_t total = 0;
      for (const GpuInfo* g : node) {
        if (g->memory_bytes == 0) ++unknown;
        total = g->memory_bytes > std::numeric_limits<uint64_t>::max() - total
                    ? std::numeric_limits<uint64_t>::max()
                    : total + g->memory_bytes;
      }
      const auto key = std::make_tuple(end - begin, unknown, total);
      if (best.empty() || key < best_key) {
        best_key = key;
        best.swap(node);
      }
    }
    begin = end;
  }
  std::sort(best.begin(), best.end(),
            [](const GpuInfo* a, const GpuInfo* b) { return a->id < b->id; });
  return best;
}

}  // namespace iashim::policy
