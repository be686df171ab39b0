#include "inflight_window.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace iashim {
namespace {

TEST(InflightWindow, StartsEmpty) {
  InflightWindow w;
  EXPECT_EQ(w.inflight(), 0u);
  EXPECT_FALSE(w.Full(1));
  EXPECT_FALSE(w.Full(0));
}

TEST(InflightWindow, CountsSubmittedMinusCompleted) {
  InflightWindow w;
  for (uint64_t s = 1; s <= 5; ++s) w.OnSubmit(s);
  EXPECT_EQ(w.inflight(), 5u);
  w.OnComplete(3);
  EXPECT_EQ(w.inflight(), 2u);
  EXPECT_EQ(w.submitted(), 5u);
  EXPECT_EQ(w.completed(), 3u);
  w.OnComplete(5);
  EXPECT_EQ(w.inflight(), 0u);
}

TEST(InflightWindow, FullAtTheCap) {
  InflightWindow w;
  w.OnSubmit(1);
  w.OnSubmit(2);
  EXPECT_FALSE(w.Full(3));
  w.OnSubmit(3);
  EXPECT_TRUE(w.Full(3));
  EXPECT_TRUE(w.Full(2));  // a lowered cap: over it is full too
  EXPECT_FALSE(w.Full(4));
  w.OnComplete(1);
  EXPECT_FALSE(w.Full(3));
}

TEST(InflightWindow, ZeroCapMeansNoCap) {
  InflightWindow w;
  w.OnSubmit(1'000'000);
  EXPECT_FALSE(w.Full(0));
  EXPECT_TRUE(w.Full(1));
}

TEST(InflightWindow, StaleReportsChangeNothing) {
  InflightWindow w;
  w.OnSubmit(10);
  w.OnSubmit(4);  // late report of an older submission
  EXPECT_EQ(w.submitted(), 10u);
  w.OnComplete(6);
  w.OnComplete(2);  // an older completion
  w.OnComplete(6);  // repeated
  EXPECT_EQ(w.completed(), 6u);
  EXPECT_EQ(w.inflight(), 4u);
}

// A completion heard before its submission (threads racing) is kept, and
// never makes the count negative.
TEST(InflightWindow, CompletionAheadOfSubmission) {
  InflightWindow w;
  w.OnSubmit(3);
  w.OnComplete(5);
  EXPECT_EQ(w.inflight(), 0u);
  EXPECT_FALSE(w.Full(1));
  w.OnSubmit(5);  // already done
  EXPECT_EQ(w.inflight(), 0u);
  w.OnSubmit(6);
  EXPECT_EQ(w.inflight(), 1u);
}

TEST(InflightWindow, GapsInSequenceCountAsInFlight) {
  // Sequence numbers are process-wide: one window may hear of every launch
  // only up to the highest; the ones between count until completed.
  InflightWindow w;
  w.OnSubmit(1);
  w.OnSubmit(4);
  EXPECT_EQ(w.inflight(), 4u);
  w.OnComplete(4);
  EXPECT_EQ(w.inflight(), 0u);
}

}  // namespace
}  // namespace iashim
