#include "libiashim/src/iteration_detector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace iashim {
namespace {

// Drives a detector through segments: `launches` launches, then a sync
// `duration_ns` after the previous one.
class IterationDetectorTest : public ::testing::Test {
 protected:
  void Segment(uint32_t launches, uint64_t duration_ns) {
    for (uint32_t i = 0; i < launches; ++i) detector_.OnLaunch();
    now_ns_ += duration_ns;
    detector_.OnSync(now_ns_);
  }

  IterationDetector detector_;
  uint64_t now_ns_ = 1'000'000'000;
};

TEST_F(IterationDetectorTest, NothingBeforeTheFirstSync) {
  detector_.OnLaunch();
  const IterationDetector::Completed done = detector_.Take();
  EXPECT_EQ(done.iterations, 0u);
  EXPECT_EQ(done.total_ns, 0u);
  EXPECT_EQ(detector_.period(), 1);
}

// The first sync only marks where the first iteration starts.
TEST_F(IterationDetectorTest, FirstSyncIsTheStartingBoundary) {
  Segment(5, 100);
  EXPECT_EQ(detector_.Take().iterations, 0u);
  Segment(5, 250);
  const IterationDetector::Completed done = detector_.Take();
  EXPECT_EQ(done.iterations, 1u);
  EXPECT_EQ(done.total_ns, 250u);
}

TEST_F(IterationDetectorTest, OneSyncPerIterationEachSyncIsAnIteration) {
  Segment(7, 1000);  // start boundary
  detector_.Take();
  // Same launches per segment, varying durations: each is one iteration.
  for (uint64_t duration : {100u, 200u, 300u, 150u, 5000u, 1u, 42u, 999u, 1000u, 7u}) {
    Segment(7, duration);
    const IterationDetector::Completed done = detector_.Take();
    EXPECT_EQ(done.iterations, 1u);
    EXPECT_EQ(done.total_ns, duration);
    EXPECT_EQ(detector_.period(), 1);
  }
}

TEST_F(IterationDetectorTest, TakeSumsAndResets) {
  Segment(3, 10);
  for (int i = 0; i < 100; ++i) Segment(3, 1000 + i);
  const IterationDetector::Completed done = detector_.Take();
  EXPECT_EQ(done.iterations, 100u);
  EXPECT_EQ(done.total_ns, 100u * 1000 + 99 * 100 / 2);
  const IterationDetector::Completed again = detector_.Take();
  EXPECT_EQ(again.iterations, 0u);
  EXPECT_EQ(again.total_ns, 0u);
}

// Every step calls .item() twice: a long forward/backward segment and a short
// optimizer segment. The detector must settle on period 2, and each iteration
// then spans both segments whatever the phase it locked onto.
TEST_F(IterationDetectorTest, TwoSyncsPerIterationGivesPeriodTwo) {
  constexpr uint64_t kLong = 30'000, kShort = 2'000;
  for (int i = 0; i < 20; ++i) {
    Segment(120, kLong);
    Segment(9, kShort);
  }
  EXPECT_EQ(detector_.period(), 2);
  detector_.Take();  // discard the warm-up, before the period was known

  constexpr int kIterations = 50;
  for (int i = 0; i < kIterations; ++i) {
    Segment(120, kLong);
    Segment(9, kShort);
    const IterationDetector::Completed done = detector_.Take();
    EXPECT_EQ(done.iterations, 1u) << i;
    EXPECT_EQ(done.total_ns, kLong + kShort) << i;
  }
  EXPECT_EQ(detector_.period(), 2);
}

TEST_F(IterationDetectorTest, ThreeSyncsPerIterationGivesPeriodThree) {
  for (int i = 0; i < 20; ++i) {
    Segment(50, 700);
    Segment(4, 30);
    Segment(4, 20);
  }
  EXPECT_EQ(detector_.period(), 3);
  detector_.Take();
  for (int i = 0; i < 10; ++i) {
    Segment(50, 700);
    Segment(4, 30);
    Segment(4, 20);
  }
  const IterationDetector::Completed done = detector_.Take();
  EXPECT_EQ(done.iterations, 10u);
  EXPECT_EQ(done.total_ns, 10u * 750);
}

// One extra sync (a stray .item() in a logging step) does not lose the period:
// the 90% agreement rule tolerates it and iterations keep spanning both
// segments.
TEST_F(IterationDetectorTest, StraySyncKeepsThePeriod) {
  for (int i = 0; i < 40; ++i) {
    Segment(120, 3000);
    Segment(9, 500);
  }
  ASSERT_EQ(detector_.period(), 2);
  Segment(3, 10);  // the stray segment
  Segment(120, 3000);
  Segment(9, 500);
  detector_.Take();  // the iteration around the stray sync is longer; skip it
  for (int i = 0; i < 30; ++i) {
    Segment(120, 3000);
    Segment(9, 500);
    const IterationDetector::Completed done = detector_.Take();
    EXPECT_EQ(detector_.period(), 2) << i;
    EXPECT_EQ(done.iterations, 1u) << i;
    EXPECT_EQ(done.total_ns, 3500u) << i;
  }
}

// When the loop changes to one sync per iteration, the detector settles back on
// period 1 within a few segments (the history still holds the old pattern for a
// while, so the first few boundaries may be misplaced).
TEST_F(IterationDetectorTest, PatternChangeSettlesOnTheNewPeriod) {
  for (int i = 0; i < 40; ++i) {
    Segment(120, 3000);
    Segment(9, 500);
  }
  ASSERT_EQ(detector_.period(), 2);
  for (int i = 0; i < 16; ++i) Segment(50, 1000);
  detector_.Take();
  for (int i = 0; i < 50; ++i) {
    Segment(50, 1000);
    const IterationDetector::Completed done = detector_.Take();
    EXPECT_EQ(detector_.period(), 1) << i;
    EXPECT_EQ(done.iterations, 1u) << i;
    EXPECT_EQ(done.total_ns, 1000u) << i;
  }
}

// A sync with nothing launched since the previous one (a second .item() on
// the same result, an idle poll) is no boundary at all.
TEST_F(IterationDetectorTest, SyncsWithoutLaunchesAreIgnored) {
  Segment(5, 100);
  detector_.Take();
  Segment(0, 50);
  Segment(0, 20);
  Segment(5, 130);
  const IterationDetector::Completed done = detector_.Take();
  EXPECT_EQ(done.iterations, 1u);
  EXPECT_EQ(done.total_ns, 200u);  // from the first sync to the last, empty ones skipped
}

TEST_F(IterationDetectorTest, EmptySyncsDoNotBreakAPeriod) {
  for (int i = 0; i < 20; ++i) {
    Segment(120, 3000);
    Segment(0, 10);  // ignored
    Segment(9, 500);
  }
  EXPECT_EQ(detector_.period(), 2);
  detector_.Take();
  for (int i = 0; i < 10; ++i) {
    Segment(120, 3000);
    Segment(0, 10);
    Segment(9, 500);
  }
  const IterationDetector::Completed done = detector_.Take();
  EXPECT_EQ(done.iterations, 10u);
  EXPECT_EQ(done.total_ns, 10u * 3510);
}

// No structure in the launch counts: every segment is taken as an iteration.
TEST_F(IterationDetectorTest, IrregularPatternIsPeriodOne) {
  Segment(1, 1);
  detector_.Take();
  uint32_t lcg = 12345;
  uint64_t total = 0;
  constexpr int kSegments = 200;
  for (int i = 0; i < kSegments; ++i) {
    lcg = lcg * 1103515245u + 12345u;
    const uint32_t launches = 1 + (lcg >> 16) % 997;
    const uint64_t duration = 100 + (lcg >> 8) % 5000;
    Segment(launches, duration);
    total += duration;
    ASSERT_EQ(detector_.period(), 1) << "segment " << i;
  }
  const IterationDetector::Completed done = detector_.Take();
  EXPECT_EQ(done.iterations, uint32_t(kSegments));
  EXPECT_EQ(done.total_ns, total);
}

// A boundary whose time is not after the previous one (a clock step) moves the
// boundary but is not an iteration.
TEST_F(IterationDetectorTest, NonIncreasingTimeIsNotAnIteration) {
  for (int i = 0; i < 5; ++i) detector_.OnLaunch();
  detector_.OnSync(1000);
  detector_.OnLaunch();
  detector_.OnSync(1000);
  detector_.OnLaunch();
  detector_.OnSync(900);
  EXPECT_EQ(detector_.Take().iterations, 0u);
  detector_.OnLaunch();
  detector_.OnSync(1500);
  const IterationDetector::Completed done = detector_.Take();
  EXPECT_EQ(done.iterations, 1u);
  EXPECT_EQ(done.total_ns, 600u);
}

}  // namespace
}  // namespace iashim
