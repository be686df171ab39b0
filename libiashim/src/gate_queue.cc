#include "libiashim/src/gate_queue.h"

#include <algorithm>

namespace iashim {

GateQueue::GateQueue() { waiters_.reserve(kReserved); }

bool GateQueue::Enqueue(uint64_t ticket, uint64_t stream, int priority) {
  if (Contains(ticket)) return false;
  waiters_.push_back({ticket, stream, priority});
  return true;
}

std::optional<uint64_t> GateQueue::Next() const {
  if (waiters_.empty()) return std::nullopt;
  int best = waiters_.front().priority;
  for (const Waiter& w : waiters_) best = std::min(best, w.priority);
  // The first waiter, in arrival order, whose stream holds a waiter of the best
  // priority. It is that stream's first waiter (an earlier one of the same
  // stream would have matched first), and its stream's head is the earliest
  // among the best streams' heads.
  for (const Waiter& w : waiters_) {
    for (const Waiter& v : waiters_) {
      if (v.stream == w.stream && v.priority == best) return w.ticket;
    }
  }
  return std::nullopt;  // unreachable: the best waiter's own stream matches
}

bool GateQueue::Remove(uint64_t ticket) {
  const auto it = std::find_if(waiters_.begin(), waiters_.end(),
                               [ticket](const Waiter& w) { return w.ticket == ticket; });
  if (it == waiters_.end()) return false;
  waiters_.erase(it);  // keeps arrival order
  return true;
}

bool GateQueue::Contains(uint64_t ticket) const {
  return std::any_of(waiters_.begin(), waiters_.end(),
                     [ticket](const Waiter& w) { return w.ticket == ticket; });
}

}  // namespace iashim
