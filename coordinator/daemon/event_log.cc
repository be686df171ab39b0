#include "coordinator/daemon/event_log.h"

#include <algorithm>
#include <utility>

namespace iashim::daemon {

void EventLog::Add(std::vector<std::string> jobs, std::string text) {
  if (pending_.size() >= capacity_) {
    pending_.pop_front();
    ++dropped_;
  }
  pending_.push_back({.jobs = std::move(jobs), .text = std::move(text)});
}

std::vector<std::string> EventLog::Take(int64_t unix_ns) {
  std::vector<std::string> taken;
  taken.reserve(pending_.size());
  for (Event& e : pending_) {
    taken.push_back(e.text);
    if (recent_capacity_ == 0) continue;
    if (recent_.size() >= recent_capacity_) recent_.pop_front();
    e.unix_ns = unix_ns;
    recent_.push_back(std::move(e));
  }
  pending_.clear();
  return taken;
}

std::vector<const Event*> EventLog::Recent(std::string_view job) const {
  std::vector<const Event*> found;
  for (const Event& e : recent_) {
    if (job.empty() || std::find(e.jobs.begin(), e.jobs.end(), job) != e.jobs.end()) {
      found.push_back(&e);
    }
  }
  return found;
}

}  // namespace iashim::daemon
