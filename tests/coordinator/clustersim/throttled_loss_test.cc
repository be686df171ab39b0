#include "coordinator/clustersim/internal/throttled_loss.h"

#include <gtest/gtest.h>

namespace iashim::clustersim::sim_internal {
namespace {

// A Transformer beside two LSTMs on simgpu: it loses 0.285 beside one, 0.445
// beside both (iashim-simgpu-throughputs, as scripts/live-replay.sh exports
// them).
constexpr CoRunnerLosses kTransformerBesideTwoLstms{0.285, 0.285, 0.445};

TEST(ThrottledLoss, AtFullPaceItIsTheTriplesAndAtNoPaceNothing) {
  EXPECT_DOUBLE_EQ(LossAtPace(kTransformerBesideTwoLstms, 1.0), 0.445);
  EXPECT_DOUBLE_EQ(LossAtPace(kTransformerBesideTwoLstms, 0.0), 0.0);
}

TEST(ThrottledLoss, AtALowPaceThePairsAdd) {
  const double pace = 0.05;
  const double loss = LossAtPace(kTransformerBesideTwoLstms, pace);
  EXPECT_GT(loss, 0.445 * pace);           // more than the triple scaled
  EXPECT_LT(loss, 2 * 0.285 * pace);       // less than the pairs' sum...
  EXPECT_GT(loss, 0.98 * 2 * 0.285 * pace);  // ...but close to it
}

TEST(ThrottledLoss, PaceForLossInvertsLossAtPace) {
  for (double loss : {0.01, 0.0826, 0.2, 0.44}) {
    const double pace = PaceForLoss(kTransformerBesideTwoLstms, loss);
    EXPECT_GT(pace, 0);
    EXPECT_LT(pace, 1);
    EXPECT_NEAR(LossAtPace(kTransformerBesideTwoLstms, pace), loss, 1e-12) << loss;
  }
}

TEST(ThrottledLoss, AHarmlessPairOrAnAllowanceAboveTheTriplesIsFullPace) {
  EXPECT_DOUBLE_EQ(PaceForLoss(kTransformerBesideTwoLstms, 0.445), 1.0);
  EXPECT_DOUBLE_EQ(PaceForLoss(kTransformerBesideTwoLstms, 0.6), 1.0);
  EXPECT_DOUBLE_EQ(PaceForLoss({0, 0, 0}, 0.0826), 1.0);
  EXPECT_DOUBLE_EQ(PaceForLoss(kTransformerBesideTwoLstms, 0.0), 0.0);
}

// Harms that add exactly (the triple the pairs' sum) are linear in pace;
// a triple worse than the pairs' sum (super-additive) still inverts.
TEST(ThrottledLoss, LinearAndSuperAdditiveTriplesInvert) {
  const CoRunnerLosses linear{0.2, 0.3, 0.5};
  EXPECT_NEAR(PaceForLoss(linear, 0.1), 0.2, 1e-12);
  const CoRunnerLosses super_additive{0.2, 0.3, 0.7};
  const double pace = PaceForLoss(super_additive, 0.1);
  EXPECT_NEAR(LossAtPace(super_additive, pace), 0.1, 1e-12);
  EXPECT_LT(pace, 0.2);
}

// One co-runner: a loss in proportion to the pace, inverted as the
// controller's ProtectiveShare does (loss / h, or full pace when h fits).
TEST(ThrottledLoss, OneCoRunnersLossIsInProportionToItsPace) {
  const CoRunnerLosses one = InProportionToPace(0.3);
  EXPECT_DOUBLE_EQ(LossAtPace(one, 0.5), 0.15);
  EXPECT_DOUBLE_EQ(PaceForLoss(one, 0.06), 0.2);
  EXPECT_DOUBLE_EQ(PaceForLoss(one, 0.3), 1.0);
  EXPECT_DOUBLE_EQ(PaceForLoss(one, -0.01), 0.0);
}

}  // namespace
}  // namespace iashim::clustersim::sim_internal
