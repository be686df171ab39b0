#include "libiashim/src/gate_queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace iashim {
namespace {

// Releases everything in the order Next() gives.
std::vector<uint64_t> Drain(GateQueue& q) {
  std::vector<uint64_t> order;
  while (std::optional<uint64_t> t = q.Next()) {
    order.push_back(*t);
    EXPECT_TRUE(q.Remove(*t));
  }
  return order;
}

using Order = std::vector<uint64_t>;

TEST(GateQueue, EmptyHasNoNext) {
  GateQueue q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.Next(), std::nullopt);
  EXPECT_FALSE(q.Remove(1));
}

TEST(GateQueue, OneStreamIsFifo) {
  GateQueue q;
  for (uint64_t t : {5, 3, 9, 1}) q.Enqueue(t, /*stream=*/7, 0);
  EXPECT_EQ(q.size(), 4u);
  EXPECT_EQ(Drain(q), (Order{5, 3, 9, 1}));
  EXPECT_TRUE(q.empty());
}

TEST(GateQueue, EqualPrioritiesGoByArrival) {
  GateQueue q;
  q.Enqueue(1, 100, 0);
  q.Enqueue(2, 200, 0);
  q.Enqueue(3, 100, 0);
  q.Enqueue(4, 300, 0);
  q.Enqueue(5, 200, 0);
  EXPECT_EQ(Drain(q), (Order{1, 2, 3, 4, 5}));
}

// Lower number = higher priority, as CUDA stream priorities (-5 beats 0).
TEST(GateQueue, HigherPriorityStreamFirst) {
  GateQueue q;
  q.Enqueue(1, 100, 0);
  q.Enqueue(2, 100, 0);
  q.Enqueue(3, 200, -1);
  q.Enqueue(4, 300, -5);
  q.Enqueue(5, 200, -1);
  EXPECT_EQ(Drain(q), (Order{4, 3, 5, 1, 2}));
}

TEST(GateQueue, LateHighPriorityOvertakesEarlyLowPriority) {
  GateQueue q;
  q.Enqueue(1, 100, 0);
  EXPECT_EQ(q.Next(), 1u);
  q.Enqueue(2, 200, -1);
  EXPECT_EQ(q.Next(), 2u);
  EXPECT_TRUE(q.Remove(2));
  EXPECT_EQ(q.Next(), 1u);
}

// A waiter never passes an earlier waiter of its own stream, even when it
// carries a more urgent priority; instead it pulls its stream ahead.
TEST(GateQueue, PerStreamFifoBeatsPriority) {
  GateQueue q;
  q.Enqueue(1, 100, 0);   // stream 100, lax
  q.Enqueue(2, 200, 0);   // stream 200, lax
  q.Enqueue(3, 200, -3);  // stream 200 again (handle reused), urgent
  // Stream 200 holds the most urgent waiter, so it goes first, in order.
  EXPECT_EQ(Drain(q), (Order{2, 3, 1}));
}

TEST(GateQueue, EqualPriorityStreamsTieOnTheirHeads) {
  GateQueue q;
  q.Enqueue(1, 100, 1);
  q.Enqueue(2, 200, 0);
  q.Enqueue(3, 300, 1);
  q.Enqueue(4, 300, 0);  // stream 300 reaches priority 0; its head is 3
  // Streams 200 (head 2) and 300 (head 3) are both at 0: 2 arrived first.
  EXPECT_EQ(Drain(q), (Order{2, 3, 4, 1}));
}

TEST(GateQueue, RemoveFromTheMiddleKeepsOrder) {
  GateQueue q;
  for (uint64_t t = 1; t <= 6; ++t) q.Enqueue(t, t % 2, 0);  // streams 1,0,1,0,1,0
  EXPECT_TRUE(q.Remove(3));                                  // a waiter giving up
  EXPECT_FALSE(q.Remove(3));
  EXPECT_FALSE(q.Contains(3));
  EXPECT_TRUE(q.Contains(5));
  EXPECT_EQ(Drain(q), (Order{1, 2, 4, 5, 6}));
}

TEST(GateQueue, RemovingTheHeadExposesTheNextOfItsStream) {
  GateQueue q;
  q.Enqueue(1, 100, -1);
  q.Enqueue(2, 200, 0);
  q.Enqueue(3, 100, -1);
  EXPECT_EQ(q.Next(), 1u);
  q.Remove(1);
  EXPECT_EQ(q.Next(), 3u);
  q.Remove(3);
  EXPECT_EQ(q.Next(), 2u);
}

// When the urgent waiter of a mixed stream leaves, the stream drops back.
TEST(GateQueue, PriorityIsRecomputedAfterRemove) {
  GateQueue q;
  q.Enqueue(1, 100, 0);
  q.Enqueue(2, 200, 0);
  q.Enqueue(3, 200, -2);
  EXPECT_EQ(q.Next(), 2u);
  q.Remove(3);  // the urgent one gave up
  EXPECT_EQ(q.Next(), 1u);
}

TEST(GateQueue, DuplicateTicketIsRefused) {
  GateQueue q;
  EXPECT_TRUE(q.Enqueue(1, 100, 0));
  EXPECT_FALSE(q.Enqueue(1, 200, -9));  // nothing changes
  EXPECT_EQ(q.size(), 1u);
  q.Enqueue(2, 300, -1);
  EXPECT_EQ(Drain(q), (Order{2, 1}));
  // Once gone, the ticket may come back.
  EXPECT_TRUE(q.Enqueue(1, 100, 0));
}

TEST(GateQueue, ReEnqueuedWaiterGoesToTheBack) {
  GateQueue q;
  q.Enqueue(1, 100, 0);
  q.Enqueue(2, 100, 0);
  q.Remove(1);
  q.Enqueue(1, 100, 0);
  EXPECT_EQ(Drain(q), (Order{2, 1}));
}

TEST(GateQueue, ExtremePriorities) {
  GateQueue q;
  q.Enqueue(1, 1, std::numeric_limits<int>::max());
  q.Enqueue(2, 2, std::numeric_limits<int>::min());
  q.Enqueue(3, 3, 0);
  EXPECT_EQ(Drain(q), (Order{2, 3, 1}));
}

// Many waiters (more than the reserve) on a few streams: every release obeys
// the rules, checked against their definition.
TEST(GateQueue, ManyWaitersObeyTheRules) {
  GateQueue q;
  struct W {
    uint64_t ticket, stream;
    int priority;
  };
  std::vector<W> waiting;
  uint64_t x = 12345;
  for (uint64_t t = 1; t <= 200; ++t) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const uint64_t stream = (x >> 33) % 5;
    const int priority = -int(stream % 3);  // fixed per stream
    q.Enqueue(t, stream, priority);
    waiting.push_back({t, stream, priority});
  }
  while (!waiting.empty()) {
    const std::optional<uint64_t> next = q.Next();
    ASSERT_TRUE(next.has_value());
    size_t i = 0;
    while (waiting[i].ticket != *next) ++i;
    const W w = waiting[i];
    for (size_t j = 0; j < waiting.size(); ++j) {
      // Nothing earlier on its stream, nothing more urgent anywhere, and no
      // equally urgent stream whose head arrived first.
      // (Priorities are fixed per stream here, so "earlier" means strictly
      // less urgent.)
      if (j < i) {
        ASSERT_NE(waiting[j].stream, w.stream);
        ASSERT_LT(w.priority, waiting[j].priority);
      }
      ASSERT_LE(w.priority, waiting[j].priority);
    }
    q.Remove(*next);
    waiting.erase(waiting.begin() + long(i));
  }
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace iashim
