#include "coordinator/daemon/event_log.h"

#include <iterator>
#include <utility>

namespace iashim::daemon {

void EventLog::Add(std::string line) {
  if (lines_.size() >= capacity_) {
    lines_.pop_front();
    ++dropped_;
  }
  lines_.push_back(std::move(line));
}

std::vector<std::string> EventLog::Take() {
  std::vector<std::string> taken(std::make_move_iterator(lines_.begin()),
                                 std::make_move_iterator(lines_.end()));
  lines_.clear();
  return taken;
}

}  // namespace iashim::daemon
