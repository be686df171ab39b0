// What the coordinator decided and when, as lines for its log: a job placed,
// queued or refused and why, a probe's outcome, a job or a node fallen silent
// and heard again, a job's end. Status and /metrics show the state; this says
// when and why it changed, so an operator reading the daemon's journal (or a
// replay's coordinator.log) can follow one job's story without polling, and a
// user without the journal can ask for it (`iashim status --events`).
//
// The coordinator only appends; the server takes the lines after each message
// and tick, writes them to stderr with the time (server.cc) and gives that
// time to Take, so the coordinator stays free of I/O and clocks of its own.
// Bounded twice: past `capacity` lines not yet taken, the oldest are dropped
// and counted (a placement storm must not grow the daemon without limit); of
// those taken, the last `recent_capacity` are kept for status.
#ifndef IASHIM_COORDINATOR_DAEMON_EVENT_LOG_H_
#define IASHIM_COORDINATOR_DAEMON_EVENT_LOG_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace iashim::daemon {

struct Event {
  int64_t unix_ns = 0;            // when it was written (Take's time)
  std::vector<std::string> jobs;  // the jobs it concerns, first the one it is about
  std::string text;
};

class EventLog {
 public:
  explicit EventLog(size_t capacity = 4096, size_t recent_capacity = 1024)
      : capacity_(capacity == 0 ? 1 : capacity), recent_capacity_(recent_capacity) {}

  // `jobs`: whom it concerns (none for a node's event).
  void Add(std::vector<std::string> jobs, std::string text);
  // Every line not taken yet, oldest first; they are kept among the recent
  // ones as written at `unix_ns`.
  std::vector<std::string> Take(int64_t unix_ns);
  // The last events taken, oldest first: all of them (`job` empty) or those
  // concerning `job`.
  std::vector<const Event*> Recent(std::string_view job = {}) const;
  uint64_t dropped() const { return dropped_; }

 private:
  size_t capacity_;
  size_t recent_capacity_;
  std::deque<Event> pending_;
  std::deque<Event> recent_;
  uint64_t dropped_ = 0;
};

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_EVENT_LOG_H_
