// What the coordinator decided and when, as lines for its log: a job placed,
// queued or refused and why, a probe's outcome, a job or a node fallen silent
// and heard again, a job's end. Status and /metrics show the state; this says
// when and why it changed, so an operator reading the daemon's journal (or a
// replay's coordinator.log) can follow one job's story without polling.
//
// The coordinator only appends; the server takes the lines after each message
// and tick and writes them to stderr with the time (server.cc), so the
// coordinator stays free of I/O and clocks of its own. Bounded: past
// `capacity` lines not yet taken, the oldest are dropped and counted (a
// placement storm must not grow the daemon without limit).
#ifndef IASHIM_COORDINATOR_DAEMON_EVENT_LOG_H_
#define IASHIM_COORDINATOR_DAEMON_EVENT_LOG_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace iashim::daemon {

class EventLog {
 public:
  explicit EventLog(size_t capacity = 4096) : capacity_(capacity == 0 ? 1 : capacity) {}

  void Add(std::string line);
  // Every line not taken yet, oldest first.
  std::vector<std::string> Take();
  uint64_t dropped() const { return dropped_; }

 private:
  size_t capacity_;
  std::deque<std::string> lines_;
  uint64_t dropped_ = 0;
};

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_EVENT_LOG_H_
