#include "coordinator/daemon/energy_ledger.h"

#include <gtest/gtest.h>

#include <limits>

namespace iashim::daemon {
namespace {

const policy::GpuId kGpu{"node-a", 0};
const policy::GpuId kOther{"node-a", 1};

TEST(EnergyLedger, SplitsEachGpusEnergyByGpuTime) {
  EnergyLedger ledger;
  ledger.Reading(kGpu, 1000);  // the starting point
  ledger.Attribute({{kGpu, {{"a", 0.6}, {"b", 0.2}}}}, 10.0);
  EXPECT_EQ(ledger.Joules("a"), 0.0);
  EXPECT_FALSE(ledger.JoulesPerIteration("a", 0.5));  // no interval yet
  ledger.Reading(kGpu, 1400);
  ledger.Attribute({{kGpu, {{"a", 0.6}, {"b", 0.2}}}}, 12.0);
  EXPECT_DOUBLE_EQ(*ledger.Joules("a"), 300.0);  // 3/4 of 400 J
  EXPECT_DOUBLE_EQ(*ledger.Joules("b"), 100.0);
  EXPECT_DOUBLE_EQ(*ledger.PowerWatts(kGpu), 200.0);  // 400 J in 2 s
  // a drew 150 W: at 0.5 s an iteration, 75 J each; b 50 W at 0.2 s, 10 J.
  EXPECT_DOUBLE_EQ(*ledger.JoulesPerIteration("a", 0.5), 75.0);
  EXPECT_DOUBLE_EQ(*ledger.JoulesPerIteration("b", 0.2), 10.0);
  EXPECT_FALSE(ledger.JoulesPerIteration("a", 0));  // iteration time unknown
}

// A board drawing 200 W steadily, read every 0.5 s and attributed every 1 s
// a little out of step: an interval holds three readings' worth of energy or
// one. The GPU's power must not swing with it (it read 300 W and 100 W).
TEST(EnergyLedger, GpuPowerIsSmoothedOverReadingJitter) {
  EnergyLedger ledger;
  ledger.Reading(kGpu, 0);
  ledger.Attribute({{kGpu, {{"a", 1.0}}}}, 0.0);
  double counter = 0;
  for (int tick = 1; tick <= 20; ++tick) {
    counter += tick % 2 == 1 ? 300 : 100;  // 1.5 s of energy, then 0.5 s
    ledger.Reading(kGpu, counter);
    ledger.Attribute({{kGpu, {{"a", 1.0}}}}, double(tick));
    if (tick > 10) {
      EXPECT_NEAR(*ledger.PowerWatts(kGpu), 200.0, 25.0) << "tick " << tick;
    }
  }
}

// Per iteration follows the recent power, smoothed over about kPowerTauS:
// a job throttled from 200 W to 50 W is charged close to 50 W after a few
// time constants, not its lifetime mean.
TEST(EnergyLedger, PerIterationFollowsRecentPower) {
  EnergyLedger ledger;
  double counter = 0;
  ledger.Reading(kGpu, counter);
  ledger.Attribute({{kGpu, {{"a", 1}}}}, 0.0);
  for (int s = 1; s <= 10; ++s) {
    ledger.Reading(kGpu, counter += 200);
    ledger.Attribute({{kGpu, {{"a", 1}}}}, s);
  }
  EXPECT_NEAR(*ledger.JoulesPerIteration("a", 1.0), 200.0, 1e-9);
  for (int s = 11; s <= 40; ++s) {
    ledger.Reading(kGpu, counter += 50);
    ledger.Attribute({{kGpu, {{"a", 1}}}}, s);
  }
  EXPECT_NEAR(*ledger.JoulesPerIteration("a", 1.0), 50.0, 1.0);
  EXPECT_DOUBLE_EQ(*ledger.Joules("a"), 2000.0 + 1500.0);
}

TEST(EnergyLedger, IdleEnergyIsSharedEvenly) {
  EnergyLedger ledger;
  ledger.Reading(kGpu, 0);
  ledger.Attribute({{kGpu, {{"a", 0}, {"b", 0}}}}, 0.0);
  ledger.Reading(kGpu, 80);
  ledger.Attribute({{kGpu, {{"a", 0}, {"b", 0}}}}, 2.0);
  EXPECT_DOUBLE_EQ(*ledger.Joules("a"), 40.0);
  EXPECT_DOUBLE_EQ(*ledger.Joules("b"), 40.0);
  EXPECT_DOUBLE_EQ(*ledger.JoulesPerIteration("a", 1.0), 20.0);  // 40 J over 2 s
}

// Readings come from several processes, each a little stale: a lower one
// than the GPU's highest is old, not a restarted counter.
TEST(EnergyLedger, StaleReadingsDoNotMoveTheCounterBack) {
  EnergyLedger ledger;
  ledger.Reading(kGpu, 500);
  ledger.Attribute({{kGpu, {{"a", 1}}}}, 0.0);
  ledger.Reading(kGpu, 700);
  ledger.Reading(kGpu, 650);  // another job's older reading
  ledger.Attribute({{kGpu, {{"a", 1}}}}, 1.0);
  EXPECT_DOUBLE_EQ(*ledger.Joules("a"), 200.0);
  ledger.Attribute({{kGpu, {{"a", 1}}}}, 2.0);  // nothing new
  EXPECT_DOUBLE_EQ(*ledger.Joules("a"), 200.0);
}

// A GPU with no job on it may have its counter restart (driver reload): its
// next reading is a new starting point, not a negative or huge delta.
TEST(EnergyLedger, AGpuLeftEmptyStartsAfresh) {
  EnergyLedger ledger;
  ledger.Reading(kGpu, 9000);
  ledger.Attribute({{kGpu, {{"a", 1}}}}, 0.0);
  ledger.Forget("a");
  ledger.Attribute({}, 1.0);
  ledger.Reading(kGpu, 10);  // restarted
  ledger.Attribute({{kGpu, {{"c", 1}}}}, 2.0);
  EXPECT_EQ(ledger.Joules("c"), 0.0);
  ledger.Reading(kGpu, 60);
  ledger.Attribute({{kGpu, {{"c", 1}}}}, 3.0);
  EXPECT_DOUBLE_EQ(*ledger.Joules("c"), 50.0);
  EXPECT_FALSE(ledger.Joules("a"));
}

TEST(EnergyLedger, GpusAreAccountedApartAndUnknownsStayUnknown) {
  EnergyLedger ledger;
  ledger.Reading(kGpu, 0);
  ledger.Reading(kOther, 0);
  const std::map<policy::GpuId, std::vector<EnergyLedger::GpuTime>> jobs = {
      {kGpu, {{"a", 1}}}, {kOther, {{"b", 1}}}};
  ledger.Attribute(jobs, 0.0);
  ledger.Reading(kGpu, 100);
  ledger.Reading(kOther, 30);
  ledger.Reading(kOther, std::numeric_limits<double>::quiet_NaN());  // ignored
  ledger.Reading(kOther, -1);                                        // ignored
  ledger.Attribute(jobs, 1.0);
  EXPECT_DOUBLE_EQ(*ledger.Joules("a"), 100.0);
  EXPECT_DOUBLE_EQ(*ledger.Joules("b"), 30.0);
  EXPECT_FALSE(ledger.Joules("never-seen"));
  EXPECT_FALSE(ledger.PowerWatts({"node-b", 0}));
}

}  // namespace
}  // namespace iashim::daemon
