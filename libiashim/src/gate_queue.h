// The order in which the launch gate releases the launches it holds back when
// the budget runs out: the local reordering of DESIGN.md's budget. Pure
// bookkeeping of waiters, no threads and no waiting.
//
// Rules, for Next():
//  - per stream, FIFO: a stream's waiters leave in arrival order (launches on
//    one stream must reach the driver in program order);
//  - across streams, by priority (lower number first, as CUDA stream
//    priorities): the stream holding the most urgent waiter goes first. A
//    stream whose waiters were enqueued with different priorities (a handle
//    reused for a new stream) counts as its most urgent one, so an urgent
//    launch is never stuck behind a lower-priority stream's queue;
//  - equal priorities: the stream whose first waiter arrived first.
//
// Held launches are few (tens), so the waiters live in one vector in arrival
// order and Next() scans it; no allocation until more than kReserved wait.
#ifndef IASHIM_GATE_QUEUE_H_
#define IASHIM_GATE_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace iashim {

class GateQueue {
 public:
  static constexpr size_t kReserved = 64;

  GateQueue();

  // Adds a waiter; false (and nothing changes) if `ticket` is already waiting.
  bool Enqueue(uint64_t ticket, uint64_t stream, int priority);
  // The waiter to release next, if any.
  std::optional<uint64_t> Next() const;
  // Drops a waiter (released, or gave up); false if it was not waiting.
  bool Remove(uint64_t ticket);

  bool Contains(uint64_t ticket) const;
  size_t size() const { return waiters_.size(); }
  bool empty() const { return waiters_.empty(); }

 private:
  struct Waiter {
    uint64_t ticket;
    uint64_t stream;
    int priority;
  };
  std::vector<Waiter> waiters_;  // in arrival order
};

}  // namespace iashim

#endif  // IASHIM_GATE_QUEUE_H_
