// First budgets from what the control loop found (policy/budget_memory.h):
// once the loop has held a guaranteed job next to a throttled co-runner, the
// next co-runner of that kind starts where the loop settled, not at the
// model's estimate; one of another kind starts at the model's estimate
// calibrated by it.
#include <gtest/gtest.h>

#include "tests/coordinator/daemon/guard_filler_plant.h"

namespace iashim::daemon {
namespace {

using testing::GuardFillerPlant;

// The guaranteed job runs 100 ms iterations alone and 100 * (1 + s) ms next
// to an opportunistic job at share s: a kept fraction of 1 / (1 + s), a loss
// of 1 / (1 + s) per unit share, twice what the model's prior makes it.
double LossPerShare(double s) { return 1 / (1 + s); }

TEST(BudgetMemoryTest, TheNextCoRunnerStartsWhereTheLoopSettled) {
  GuardFillerPlant plant([](double share, double) { return 100 * (1 + share); });
  // Nothing learned: the model's prior (0.68 kept at full pace, each way)
  // gives a pace of 0.284, and a budget of 0.68 of that (the GPU time the
  // filler, never measured alone, takes at full pace beside the guard).
  const double prior = (1 - 1 / 1.1) / (1 - 0.68) * 0.68;
  EXPECT_NEAR(plant.Join("f1", "fk"), prior, 1e-6);
  plant.Run(60);
  const double settled = plant.share();
  EXPECT_LT(settled, prior);  // the plant loses more per share than the prior says
  plant.Leave();
  plant.Run(5);
  // The share that holds the guard at its target, from the loss per share
  // at the settled point.
  const double expected = (1 - 1 / 1.1) / LossPerShare(settled);
  EXPECT_NEAR(plant.Join("f2", "fk"), expected, 0.01);
  plant.Leave();
  plant.Run(5);
  // A kind never seen: the model's estimate for it (the prior: no pair was
  // observed unthrottled) scaled by the calibration, which here is the same.
  EXPECT_NEAR(plant.Join("f3", "other"), expected, 0.01);
}

}  // namespace
}  // namespace iashim::daemon
