#include "coordinator/policy/request_mix.h"

#include <algorithm>

namespace iashim::policy {

void RequestMix::Observe(int gpus, uint64_t mem_bytes) {
  if (gpus < 1) return;
  ++counts_[{gpus, mem_bytes}];
  ++observed_;
  stale_ = true;
}

const std::vector<RequestClass>& RequestMix::Classes() const {
  if (!stale_) return classes_;
  stale_ = false;
  std::vector<std::pair<std::pair<int, uint64_t>, int64_t>> common(counts_.begin(), counts_.end());
  if (common.size() > kMaxClasses) {
    // The most common first; ties to the smaller shape, so the choice repeats.
    std::stable_sort(common.begin(), common.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    common.resize(kMaxClasses);
    std::sort(common.begin(), common.end());
  }
  int64_t kept = 0;
  for (const auto& c : common) kept += c.second;
  classes_.clear();
  for (const auto& [shape, count] : common) {
    classes_.push_back(RequestClass{.gpus = shape.first,
                                    .mem_bytes = shape.second,
                                    .weight = static_cast<double>(count) /
                                              static_cast<double>(kept)});
  }
  return classes_;
}

}  // namespace iashim::policy
