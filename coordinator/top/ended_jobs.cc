#include "coordinator/top/ended_jobs.h"

#include <algorithm>

namespace iashim::top {
namespace {

// Its process is gone, whether or not it said goodbye (a lost node stays
// on its GPU line).
bool Gone(const JobView& j) {
  return j.State() == JobState::kDisconnected || j.State() == JobState::kLost;
}

}  // namespace

void EndedJobs::Observe(const ClusterView& view, double now_s) {
  std::map<Key, double> still;
  for (const GpuView& g : view.gpus) {
    for (const JobView& j : g.jobs) {
      if (!Gone(j)) continue;
      const Key key{j.job, j.pid};
      const auto it = disconnected_since_.find(key);
      still[key] = it == disconnected_since_.end() ? now_s : it->second;
    }
  }
  disconnected_since_ = std::move(still);
}

ClusterView EndedJobs::Visible(const ClusterView& view, double now_s) const {
  ClusterView out = view;
  for (GpuView& g : out.gpus) {
    const auto ended = [&](const JobView& j) {
      if (!Gone(j)) return false;
      const auto it = disconnected_since_.find({j.job, j.pid});
      return it != disconnected_since_.end() && now_s - it->second > kShowEndedSeconds;
    };
    const size_t before = g.jobs.size();
    g.jobs.erase(std::remove_if(g.jobs.begin(), g.jobs.end(), ended), g.jobs.end());
    g.hidden_ended += static_cast<int>(before - g.jobs.size());
  }
  return out;
}

}  // namespace iashim::top
