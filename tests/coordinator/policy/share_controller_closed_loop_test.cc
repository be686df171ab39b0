// The share controller in closed loop with simulated plants: a guaranteed
// job whose slowdown grows with the opportunistic jobs' total share, measured
// with noise (and, in one plant, with lag). Each test records the trajectory
// (printed in compact form, and in full on failure) and asserts that the
// controller converges under the target, then stays put (few changes of
// direction), and uses the slack the plant allows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "coordinator/policy/share_controller.h"

namespace iashim::policy {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr double kTarget = 0.10;
constexpr double kMinShare = 0.05;

// Slowdown of the guaranteed job when the opportunistic jobs' shares sum to
// `total`, during step `step`.
using Plant = std::function<double(double total, int step)>;

Plant Linear(double a) {
  return [a](double total, int) { return a * total; };
}

struct Scenario {
  int steps = 600;
  int opportunistic = 1;
  double initial_share = 1.0;
  double noise = 0.01;   // standard deviation of the measurement, absolute
  double lag_tau_s = 0;  // measurement lag (EWMA), 0 = none
  uint64_t seed = 1;
};

struct Trajectory {
  std::vector<double> total;     // total share in force during each step
  std::vector<double> slowdown;  // the plant's true slowdown during each step
  std::vector<double> measured;
  std::vector<ShareAction> action;
  std::vector<bool> saturated;

  // One line per step in [from, to), every `every` steps.
  std::string Describe(int from, int to, int every = 1) const {
    std::string out;
    for (int i = from; i < to && i < static_cast<int>(total.size()); i += every) {
      out += absl::StrFormat("  t=%4d total=%.3f slowdown=%.3f measured=%.3f %s\n", i, total[i],
                             slowdown[i], measured[i], ShareActionName(action[i]));
    }
    return out;
  }

  // Changes of direction of the total share in [from, to): an up-down-up
  // sequence is two.
  int DirectionChanges(int from, int to) const {
    int changes = 0;
    int last = 0;
    for (int i = std::max(from, 1); i < to; ++i) {
      const double d = total[i] - total[i - 1];
      if (std::abs(d) < 1e-9) continue;
      const int dir = d > 0 ? 1 : -1;
      if (last != 0 && dir != last) ++changes;
      last = dir;
    }
    return changes;
  }

  // Steps in [from, to) whose true slowdown exceeded `limit`.
  int StepsAbove(double limit, int from, int to) const {
    int n = 0;
    for (int i = from; i < to; ++i) n += slowdown[i] > limit ? 1 : 0;
    return n;
  }
};

Trajectory Simulate(const Plant& plant, const Scenario& sc) {
  ShareController controller;
  std::vector<OpportunisticJob> opp;
  for (int j = 0; j < sc.opportunistic; ++j) {
    opp.push_back({absl::StrFormat("opp%d", j), sc.initial_share});
  }
  std::mt19937_64 rng(sc.seed);
  std::normal_distribution<double> noise(0.0, sc.noise);
  Trajectory tr;
  double lagged = 0;
  for (int i = 0; i < sc.steps; ++i) {
    double total = 0;
    for (const OpportunisticJob& o : opp) total += o.share;
    const double truth = plant(total, i);
    if (sc.lag_tau_s > 0) {
      lagged += (1 - std::exp(-1.0 / sc.lag_tau_s)) * (truth - lagged);
    } else {
      lagged = truth;
    }
    const double measured = lagged + noise(rng);
    const std::vector<GuaranteedJob> guaranteed = {
        {.job = "g", .slowdown = measured, .slowdown_target = kTarget}};
    const ShareStep step = controller.Step(i * kS, guaranteed, opp);
    tr.total.push_back(total);
    tr.slowdown.push_back(truth);
    tr.measured.push_back(measured);
    tr.action.push_back(step.action);
    tr.saturated.push_back(step.saturated);
    for (size_t j = 0; j < opp.size(); ++j) opp[j].share = step.shares[j].share;
  }
  return tr;
}

// Prints a compact trajectory so a run shows what the controller did.
void Print(const std::string& name, const Trajectory& tr) {
  std::cout << name << " (every 40th step):\n" << tr.Describe(0, tr.total.size(), 40);
}

// The true slowdown's mean over steps [from, to).
double MeanSlowdown(const Trajectory& tr, int from, int to) {
  double sum = 0;
  for (int i = from; i < to; ++i) sum += tr.slowdown[i];
  return sum / (to - from);
}

// Harvest: with a measurement whose noise is a tenth of the target, the
// guaranteed job settles within 3 points below its target, not far under it
// (the band narrows to what the noise allows), from above and from the floor,
// on every plant and seed. (Under twice that noise the band stays wide: the
// NoisyMeasurement test.)
TEST(ShareControllerClosedLoopTest, SettlesWithinThreePointsBelowTheTarget) {
  for (double a : {0.1, 0.2, 0.5, 1.0}) {
    for (double initial : {1.0, kMinShare}) {
      for (uint64_t seed : {1, 2, 3}) {
        Scenario sc;
        sc.seed = seed;
        sc.initial_share = initial;
        const Trajectory tr = Simulate(Linear(a), sc);
        const double settled = MeanSlowdown(tr, 200, sc.steps);
        SCOPED_TRACE(absl::StrFormat("a=%.2f from %.2f seed=%d", a, initial, seed));
        EXPECT_GE(settled, kTarget - 0.03) << tr.Describe(0, sc.steps, 20);
        EXPECT_LE(settled, kTarget);
      }
    }
  }
}

// The common assertions for a plant that stays the same in [from, to):
// settled (true slowdown within target, allowing `overshoot_steps` noisy
// excursions of at most 5%) from `from + settle_steps` on, at most
// `max_changes` changes of direction after that, and at least `min_total`
// of share used at the end.
void ExpectSettles(const Trajectory& tr, int from, int to, int settle_steps, int max_changes,
                   double min_total, int overshoot_steps = 0) {
  const int settled = from + settle_steps;
  const std::string trace = tr.Describe(from, to);
  EXPECT_LE(tr.StepsAbove(kTarget, settled, to), overshoot_steps) << trace;
  EXPECT_EQ(tr.StepsAbove(kTarget * 1.05, settled, to), 0) << trace;
  EXPECT_LE(tr.DirectionChanges(settled, to), max_changes) << trace;
  EXPECT_GE(tr.total[to - 1], min_total) << trace;
}

class LinearPlantTest : public ::testing::TestWithParam<double> {};

// From a full share: cuts until the target holds, then stays.
TEST_P(LinearPlantTest, ConvergesFromAboveAndHolds) {
  const double a = GetParam();
  const double max_total = std::min(1.0, kTarget / a);
  for (uint64_t seed : {1, 2, 3}) {
    Scenario sc;
    sc.seed = seed;
    const Trajectory tr = Simulate(Linear(a), sc);
    if (seed == 1) Print(absl::StrFormat("linear a=%.2f from 1.0", a), tr);
    SCOPED_TRACE(absl::StrFormat("a=%.2f seed=%d", a, seed));
    ExpectSettles(tr, 0, sc.steps, 60, 2, 0.5 * max_total);
  }
}

// From the floor: raises to use the slack, without overshooting.
TEST_P(LinearPlantTest, ConvergesFromBelowAndUsesTheSlack) {
  const double a = GetParam();
  const double max_total = std::min(1.0, kTarget / a);
  for (uint64_t seed : {4, 5, 6}) {
    Scenario sc;
    sc.seed = seed;
    sc.initial_share = kMinShare;
    const Trajectory tr = Simulate(Linear(a), sc);
    if (seed == 4) Print(absl::StrFormat("linear a=%.2f from the floor", a), tr);
    SCOPED_TRACE(absl::StrFormat("a=%.2f seed=%d", a, seed));
    ExpectSettles(tr, 0, sc.steps, 120, 2, 0.5 * max_total);
  }
}

INSTANTIATE_TEST_SUITE_P(Gains, LinearPlantTest, ::testing::Values(0.1, 0.2, 0.5, 1.0));

// Noise of a fifth of the target on every sample (after the profile's own
// smoothing, that is a very noisy job): single samples cross the target and
// the calm threshold all the time, yet the controller settles.
TEST(ShareControllerClosedLoopTest, NoisyMeasurement) {
  for (double a : {0.2, 0.5}) {
    for (uint64_t seed : {1, 2}) {
      Scenario sc;
      sc.noise = 0.02;
      sc.seed = seed;
      sc.steps = 1200;
      const Trajectory tr = Simulate(Linear(a), sc);
      if (seed == 1) Print(absl::StrFormat("noisy (0.02) a=%.2f", a), tr);
      SCOPED_TRACE(absl::StrFormat("a=%.2f seed=%d", a, seed));
      ExpectSettles(tr, 0, sc.steps, 60, 3, 0.5 * kTarget / a);
    }
  }
}

// Noise of a third of the target: the controller now dithers, but within a
// bounded range, rarely (about once in two minutes at most), and never at the
// guaranteed job's expense.
TEST(ShareControllerClosedLoopTest, VeryNoisyMeasurementDithersButNeverHarms) {
  for (double a : {0.2, 0.5}) {
    for (uint64_t seed : {1, 2}) {
      Scenario sc;
      sc.noise = 0.03;
      sc.seed = seed;
      sc.steps = 1200;
      const Trajectory tr = Simulate(Linear(a), sc);
      SCOPED_TRACE(absl::StrFormat("a=%.2f seed=%d", a, seed));
      ExpectSettles(tr, 0, sc.steps, 60, 12, 0.4 * kTarget / a);
    }
  }
}

TEST(ShareControllerClosedLoopTest, TwoOpportunisticJobsShareTheSlack) {
  Scenario sc;
  sc.opportunistic = 2;
  const double a = 0.15;  // the total may reach 0.67
  const Trajectory tr = Simulate(Linear(a), sc);
  Print("two jobs a=0.15", tr);
  ExpectSettles(tr, 0, sc.steps, 60, 2, 0.5 * kTarget / a);
}

TEST(ShareControllerClosedLoopTest, PlantWithAnOffset) {
  // Some harm even at the floor (context switches), then linear.
  const Plant plant = [](double total, int) { return 0.03 + 0.25 * total; };
  Scenario sc;
  const Trajectory tr = Simulate(plant, sc);
  Print("offset 0.03 + 0.25 T", tr);
  ExpectSettles(tr, 0, sc.steps, 60, 2, 0.5 * 0.28);
}

TEST(ShareControllerClosedLoopTest, ConvexPlant) {
  // Harm grows faster than the share: the linear model underestimates it.
  const Plant plant = [](double total, int) { return 0.4 * total * total; };
  for (double initial : {1.0, kMinShare}) {
    Scenario sc;
    sc.initial_share = initial;
    const Trajectory tr = Simulate(plant, sc);
    Print(absl::StrFormat("convex 0.4 T^2 from %.2f", initial), tr);
    ExpectSettles(tr, 0, sc.steps, 120, 2, 0.5 * 0.5);
  }
}

TEST(ShareControllerClosedLoopTest, LaggedMeasurement) {
  // The slowdown is an EWMA with a 3 s time constant (JobProfile's default):
  // right after a cut, the measurement still shows the old harm.
  for (double initial : {1.0, kMinShare}) {
    Scenario sc;
    sc.initial_share = initial;
    sc.lag_tau_s = 3;
    const Trajectory tr = Simulate(Linear(0.3), sc);
    Print(absl::StrFormat("lagged a=0.3 from %.2f", initial), tr);
    ExpectSettles(tr, 0, sc.steps, 120, 2, 0.5 / 3);
  }
}

TEST(ShareControllerClosedLoopTest, ImpossiblePlantRestsAtTheFloorAndSaysSo) {
  Scenario sc;
  const Trajectory tr = Simulate(Linear(4.0), sc);  // 0.2 even at the floor
  Print("impossible a=4", tr);
  const int settled = 30;
  for (int i = settled; i < sc.steps; ++i) {
    ASSERT_NEAR(tr.total[i], kMinShare, 1e-9) << tr.Describe(0, settled + 10);
    ASSERT_TRUE(tr.saturated[i]);
  }
  EXPECT_EQ(tr.DirectionChanges(0, sc.steps), 0);
}

// The guaranteed job slowed for 5 minutes by something the co-runner's share
// barely touches (its host, its input pipeline): 12 points of slowdown, on top
// of what the co-runner adds (`harm` at a full share). The loop cuts to the
// floor, sees that the floor bought little, and gives share back: all of it
// where the co-runner costs a point (what the floor bought is under the
// allowance), and where it costs 5 points, first too much (the start of the
// episode was read before the measurement caught up), then, measured, trimmed
// to where it costs about the allowance, a tenth of the target, over the
// floor. When the cause goes, the loop is back to its usual rules.
TEST(ShareControllerClosedLoopTest, SlowedByItsHostTheFloorIsGivenBack) {
  struct Case {
    double harm;             // the co-runner's, at a full share
    double min_total;        // held from step 200 to 400 (in 9 steps of 10 at least)...
    double max_total;        // ...and no more
    double max_mean_excess;  // the mean slowdown then over the floor's
  };
  for (const Case& c : {Case{0.01, 0.9, 1.0, 0.011}, Case{0.05, 0.15, 0.4, 0.015}}) {
    const Plant plant = [&](double total, int step) {
      return (step >= 100 && step < 400 ? 0.12 : 0.0) + c.harm * total;
    };
    const double at_floor = 0.12 + c.harm * kMinShare;
    for (uint64_t seed : {1, 2, 3}) {
      Scenario sc;
      sc.seed = seed;
      sc.lag_tau_s = 3;
      sc.steps = 700;
      const Trajectory tr = Simulate(plant, sc);
      if (seed == 1)
        Print(absl::StrFormat("slowed by its host for steps 100-400, harm %.2f", c.harm), tr);
      SCOPED_TRACE(absl::StrFormat("harm=%.2f seed=%d", c.harm, seed));
      const std::string trace = tr.Describe(90, 420, 2);
      int held = 0;
      double excess = 0;
      for (int i = 200; i < 400; ++i) {
        held += tr.total[i] >= c.min_total && tr.total[i] <= c.max_total + 1e-9 ? 1 : 0;
        excess += tr.slowdown[i] - at_floor;
      }
      EXPECT_GE(held, 180) << trace;  // of 200
      EXPECT_LE(excess / 200, c.max_mean_excess) << trace;
      ExpectSettles(tr, 400, sc.steps, 120, 2, 0.9);
    }
  }
}

// The target out of reach, but the floor bought most of the way (0.11 at the
// floor, 0.395 at a full share): only a sliver is given back, what costs a
// tenth of the target. (The first release, from a start read while the
// measurement still rose, gives too much; the jump ends it within seconds,
// and the next episode, measured from there, gives the sliver.)
TEST(ShareControllerClosedLoopTest, AFloorThatBuysMuchIsGivenBackOnlyASliver) {
  const Plant plant = [](double total, int) { return 0.095 + 0.3 * total; };
  for (uint64_t seed : {1, 2}) {
    Scenario sc;
    sc.seed = seed;
    sc.lag_tau_s = 3;
    sc.noise = 0.003;
    const Trajectory tr = Simulate(plant, sc);
    if (seed == 1) Print("a floor that buys much", tr);
    SCOPED_TRACE(absl::StrFormat("seed=%d", seed));
    int given_back = 0;
    for (int i = 120; i < sc.steps; ++i) {
      given_back += tr.total[i] > kMinShare + 1e-9 ? 1 : 0;
      // A tenth of the target, give or take what the noise lets it resolve.
      ASSERT_LE(tr.total[i], kMinShare + 0.1 * kTarget / 0.3 + 0.005) << tr.Describe(0, 200, 2);
    }
    EXPECT_GE(given_back, sc.steps - 180) << tr.Describe(0, 200, 2);
  }
}

TEST(ShareControllerClosedLoopTest, PlantChangesMidRun) {
  // The guaranteed job enters a phase that suffers more, then one that
  // suffers much less: the controller must cut, then find the new slack.
  const Plant plant = [](double total, int step) {
    const double a = step < 300 ? 0.2 : step < 600 ? 0.6 : 0.1;
    return a * total;
  };
  Scenario sc;
  sc.steps = 1200;
  const Trajectory tr = Simulate(plant, sc);
  Print("plant change 0.2 -> 0.6 -> 0.1", tr);
  {
    SCOPED_TRACE("phase a=0.2");
    ExpectSettles(tr, 0, 300, 60, 2, 0.5 * 0.5);
  }
  {
    SCOPED_TRACE("phase a=0.6");
    ExpectSettles(tr, 300, 600, 60, 2, 0.5 * 0.1 / 0.6);
  }
  {
    SCOPED_TRACE("phase a=0.1");
    ExpectSettles(tr, 600, 1200, 120, 2, 0.5 * 1.0);
  }
}

TEST(ShareControllerClosedLoopTest, GuaranteedJobLeavesAndComesBack) {
  ShareController controller;
  std::vector<OpportunisticJob> opp = {{"o1", 1.0}, {"o2", 1.0}};
  auto total = [&] { return opp[0].share + opp[1].share; };
  auto step = [&](int64_t t, bool guaranteed_present) {
    std::vector<GuaranteedJob> g;
    if (guaranteed_present) g.push_back({.job = "g", .slowdown = 0.5 * total()});
    const ShareStep s = controller.Step(t * kS, g, opp);
    for (size_t j = 0; j < opp.size(); ++j) opp[j].share = s.shares[j].share;
    return s;
  };
  int64_t t = 0;
  for (; t < 120; ++t) step(t, true);
  EXPECT_LE(0.5 * total(), kTarget);
  EXPECT_LT(total(), 0.3);
  // It leaves: everything back at once.
  const ShareStep left = step(t++, false);
  EXPECT_EQ(left.action, ShareAction::kUnthrottle);
  EXPECT_DOUBLE_EQ(opp[0].share, 1.0);
  EXPECT_DOUBLE_EQ(opp[1].share, 1.0);
  for (; t < 200; ++t) step(t, false);
  EXPECT_DOUBLE_EQ(total(), 2.0);
  // Another guaranteed job arrives: protected again.
  for (; t < 320; ++t) step(t, true);
  EXPECT_LE(0.5 * total(), kTarget);
}

// A co-runner at full share that puts the guaranteed job ten or fifteen
// times over its target (a newcomer the model thought harmless, a target
// lowered to repay a run): halving four times, one cut per decrease_hold_s,
// left it over target for 10-11 s; cuts that aim at the headroom once the
// excess is confirmed bring it under in at most 8, lag included.
TEST(ShareControllerClosedLoopTest, AFarExcessIsCutBackInAFewSeconds) {
  for (double a : {1.0, 1.5}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      Scenario sc;
      sc.steps = 120;
      sc.lag_tau_s = 3;
      sc.seed = seed;
      const Trajectory tr = Simulate(Linear(a), sc);
      int under = -1;
      for (int i = 0; i < sc.steps && under < 0; ++i) {
        if (tr.slowdown[i] <= kTarget + 1e-9) under = i;
      }
      EXPECT_GE(under, 0) << "a=" << a << " seed=" << seed << "\n" << tr.Describe(0, 30);
      EXPECT_LE(under, 8) << "a=" << a << " seed=" << seed << "\n" << tr.Describe(0, 30);
      // And it settles as before: at most the floor's slowdown from then on.
      EXPECT_EQ(tr.StepsAbove(std::max(kTarget, a * kMinShare) + 0.02, 30, sc.steps), 0)
          << "a=" << a << "\n"
          << tr.Describe(0, sc.steps, 5);
    }
  }
}

}  // namespace
}  // namespace iashim::policy
