#include "libiashim/src/share_feedback.h"

#include <cmath>

#include <gtest/gtest.h>

namespace iashim {
namespace {

TEST(ShareFeedbackTest, StartsAtOne) { EXPECT_EQ(ShareFeedback().scale(), 1.0); }

TEST(ShareFeedbackTest, OverTheShareChargesMore) {
  ShareFeedback f;
  EXPECT_GT(f.Update(0.3, 0.4, /*held=*/false), 1.0);
}

TEST(ShareFeedbackTest, UnderTheShareWhileHeldChargesLess) {
  ShareFeedback f;
  EXPECT_LT(f.Update(0.3, 0.2, /*held=*/true), 1.0);
}

TEST(ShareFeedbackTest, UnderTheShareWithoutBeingHeldLearnsNothing) {
  // The job did not ask for more: lowering the charges would only wind up.
  ShareFeedback f;
  EXPECT_EQ(f.Update(0.3, 0.05, /*held=*/false), 1.0);
}

TEST(ShareFeedbackTest, DeadBandIgnoresSmallErrors) {
  ShareFeedback f;
  EXPECT_EQ(f.Update(0.5, 0.51, true), 1.0);
  EXPECT_EQ(f.Update(0.5, 0.49, true), 1.0);
}

TEST(ShareFeedbackTest, OneReadingMovesAtMostOneStep) {
  ShareFeedback f;
  EXPECT_DOUBLE_EQ(f.Update(0.1, 1.0, false), ShareFeedback::kMaxStep);
  ShareFeedback g;
  EXPECT_DOUBLE_EQ(g.Update(0.5, 0.0, true), 1 / ShareFeedback::kMaxStep);
}

TEST(ShareFeedbackTest, ScaleStaysWithinBounds) {
  ShareFeedback up;
  for (int i = 0; i < 100; ++i) up.Update(0.1, 1.0, false);
  EXPECT_DOUBLE_EQ(up.scale(), ShareFeedback::kMaxScale);
  ShareFeedback down;
  for (int i = 0; i < 100; ++i) down.Update(0.9, 0.0, true);
  EXPECT_DOUBLE_EQ(down.scale(), ShareFeedback::kMinScale);
}

TEST(ShareFeedbackTest, OutOfRangeReadingsAreIgnored) {
  ShareFeedback f;
  EXPECT_EQ(f.Update(0.3, NAN, true), 1.0);
  EXPECT_EQ(f.Update(0.3, -0.1, true), 1.0);
  EXPECT_EQ(f.Update(0.3, 1.5, true), 1.0);
  EXPECT_EQ(f.Update(0.0, 0.2, true), 1.0);
  EXPECT_EQ(f.Update(1.0, 0.2, true), 1.0);  // share 1 is unthrottled: nothing to hold to
}

// A plant where charging `scale` times the learned cost gives the process
// bias/scale of wall time (the bias is what the cost model got wrong, e.g.
// durations stretched by another process). The loop must settle on the share
// within the dead band, and approach it monotonically (no overshoot back and
// forth), for biases either way.
TEST(ShareFeedbackTest, SettlesOnTheShareWithoutOscillating) {
  for (double bias : {0.5, 0.7, 1.0, 1.4, 2.5}) {
    for (double share : {0.1, 0.3, 0.5, 0.9}) {
      ShareFeedback f;
      double previous_error = 0;
      int sign_changes = 0;
      for (int step = 0; step < 40; ++step) {
        const double measured = std::min(1.0, share * bias / f.scale());
        const double error = measured - share;
        if (previous_error != 0 && error != 0 && (error > 0) != (previous_error > 0)) ++sign_changes;
        previous_error = error;
        f.Update(share, measured, /*held=*/true);
      }
      const double measured = std::min(1.0, share * bias / f.scale());
      EXPECT_NEAR(measured / share, 1.0, 1.5 * ShareFeedback::kDeadBand)
          << "bias " << bias << " share " << share;
      EXPECT_LE(sign_changes, 1) << "bias " << bias << " share " << share;
    }
  }
}

}  // namespace
}  // namespace iashim
