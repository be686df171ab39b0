#include "libiashim/src/collective_pacer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

namespace iashim {
namespace {

constexpr uint64_t kMs = 1'000'000;

// One rank of a gang that reaches each collective `lead_ns` before the
// gang's last rank: launched after the pace's hold, its collective spins for
// what is left of the lead, then transfers. Held past the lead, it is the
// last itself (and the others spin for the overshoot, returned in *overshoot).
uint64_t Iterate(CollectivePace& pace, uint64_t lead_ns, uint64_t transfer_ns,
                 uint64_t* overshoot = nullptr) {
  const uint64_t hold = pace.next_hold_ns();
  const uint64_t wait = lead_ns > hold ? lead_ns - hold : 0;
  if (overshoot != nullptr) *overshoot = hold > lead_ns ? hold - lead_ns : 0;
  return pace.Observe(transfer_ns + wait, /*throttled=*/true);
}

// Iterate for a rank `lead_ns` early: a hold that is not a probe never makes
// it late (checked here); how late a probe made it raises *worst_overshoot.
void IterateEarly(CollectivePace& pace, uint64_t lead_ns, uint64_t transfer_ns,
                  uint64_t* worst_overshoot) {
  const bool probe = pace.next_hold_ns() != pace.hold_ns();
  uint64_t overshoot = 0;
  Iterate(pace, lead_ns, transfer_ns, &overshoot);
  if (!probe) {
    EXPECT_EQ(overshoot, 0u);
  }
  *worst_overshoot = std::max(*worst_overshoot, overshoot);
}

// The rank starts out last once (so its transfer is known), then is 20 ms
// early every iteration: within a few tens of iterations it holds most of
// that, and but for its probes (by at most the transfer) never so long that
// the gang waits for it.
TEST(CollectivePaceTest, AnEarlyRankLearnsToHoldItsLead) {
  CollectivePace pace;
  const uint64_t transfer = 2 * kMs;
  Iterate(pace, 0, transfer);
  uint64_t worst_overshoot = 0;
  for (int i = 0; i < 30; ++i) {
    SCOPED_TRACE(i);
    IterateEarly(pace, 20 * kMs, transfer, &worst_overshoot);
  }
  EXPECT_EQ(pace.transfer_ns(), transfer);
  EXPECT_GT(pace.hold_ns(), 18 * kMs);
  EXPECT_LE(pace.hold_ns(), 20 * kMs);
  EXPECT_LE(worst_overshoot, transfer);
}

// Long after its first launch as the last rank, the rank still knows its
// transfer (its probes keep one in the window), so a hold that lands just in
// time is not taken for an overshoot and halved: it stays nearly all of the
// lead, and only a probe lands late, by no more than the transfer.
TEST(CollectivePaceTest, HeldLongAfterItsTransferWasLastSeenItStaysInTime) {
  CollectivePace pace;
  Iterate(pace, 0, 2 * kMs);
  uint64_t worst_overshoot = 0;
  uint64_t least_hold = UINT64_MAX;
  const int n = 400;
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    IterateEarly(pace, 20 * kMs, 2 * kMs, &worst_overshoot);
    if (i >= 40) least_hold = std::min(least_hold, pace.hold_ns());
  }
  EXPECT_GT(least_hold, 18 * kMs);
  EXPECT_LE(worst_overshoot, 2 * kMs);
}

// Throttled from its first launch and early to every collective by 250 ms
// (an 8-rank gang's rank beside a light co-runner, its peers beside heavy
// ones), the rank never comes last on its own: its first probe makes it
// last, and from then on it holds nearly all of its lead. Only a probe may
// land after the others, and by no more than a transfer.
TEST(CollectivePaceTest, ARankEarlyFromItsFirstLaunchFindsItsTransferByProbing) {
  CollectivePace pace;
  const uint64_t transfer = 8 * kMs;
  uint64_t worst_overshoot = 0;
  for (int i = 0; i < 40; ++i) {
    SCOPED_TRACE(i);
    IterateEarly(pace, 250 * kMs, transfer, &worst_overshoot);
  }
  EXPECT_EQ(pace.transfer_ns(), transfer);
  EXPECT_GT(pace.hold_ns(), 240 * kMs);
  EXPECT_LE(pace.hold_ns(), 250 * kMs);
  EXPECT_LE(worst_overshoot, transfer);
}

// The last rank holds nothing but its probes: one launch in kProbeEvery held
// for its transfer, which the gang waits for once.
TEST(CollectivePaceTest, TheLastRankHoldsOnlyItsProbes) {
  CollectivePace pace;
  const uint64_t transfer = 2 * kMs;
  size_t probes = 0;
  const size_t n = 10 * CollectivePace::kProbeEvery;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t hold = Iterate(pace, 0, transfer);
    EXPECT_EQ(pace.hold_ns(), 0u) << i;
    EXPECT_LE(hold, transfer) << i;
    probes += hold > 0 ? 1 : 0;
  }
  EXPECT_LE(probes, n / CollectivePace::kProbeEvery + 1);
}

// The others catch up (its lead falls from 20 ms to 5 ms): a hold that now
// makes it the last is halved at each such collective, so it is back under
// the new lead within a few iterations.
TEST(CollectivePaceTest, AHoldThatOvershootsIsHalvedBack) {
  CollectivePace pace;
  Iterate(pace, 0, 2 * kMs);
  for (int i = 0; i < 40; ++i) Iterate(pace, 20 * kMs, 2 * kMs);
  ASSERT_GT(pace.hold_ns(), 18 * kMs);
  int iterations = 0;
  while (pace.hold_ns() > 5 * kMs && iterations < 10) {
    Iterate(pace, 5 * kMs, 2 * kMs);
    ++iterations;
  }
  EXPECT_LE(iterations, 3);
  for (int i = 0; i < 40; ++i) Iterate(pace, 5 * kMs, 2 * kMs);
  EXPECT_GT(pace.hold_ns(), 3 * kMs);
  EXPECT_LE(pace.hold_ns(), 5 * kMs);
}

// A wait has to be there every time to be held: one long one among short
// ones is chance, not a lead.
TEST(CollectivePaceTest, OneLongWaitIsNotALead) {
  CollectivePace pace;
  for (int i = 0; i < 20; ++i) {
    Iterate(pace, i % 5 == 4 ? 30 * kMs : 0, 2 * kMs);
    EXPECT_EQ(pace.hold_ns(), 0u) << i;
  }
}

// Collectives of two sizes under one kernel (a large and a small bucket each
// iteration), the rank never early: the large one's longer transfer is not
// taken for a wait, because the small one, which waited for nothing, bounds
// the lead.
TEST(CollectivePaceTest, CollectivesOfSeveralSizesAreNotTakenForWaits) {
  CollectivePace pace;
  for (int i = 0; i < 40; ++i) {
    Iterate(pace, 0, 10 * kMs);
    Iterate(pace, 0, 1 * kMs);
  }
  EXPECT_EQ(pace.hold_ns(), 0u);
}

TEST(CollectivePaceTest, UnthrottledItHoldsNothingAndForgets) {
  CollectivePace pace;
  Iterate(pace, 0, 2 * kMs);
  for (int i = 0; i < 40; ++i) Iterate(pace, 20 * kMs, 2 * kMs);
  ASSERT_GT(pace.hold_ns(), 0u);
  EXPECT_EQ(pace.Observe(22 * kMs, /*throttled=*/false), 0u);
  EXPECT_EQ(pace.hold_ns(), 0u);
  // Throttled again, the lead is learned afresh (kRecent waits first).
  EXPECT_EQ(pace.Observe(22 * kMs, /*throttled=*/true), 0u);
}

TEST(CollectivePaceTest, TheHoldIsBounded) {
  CollectivePace pace;
  Iterate(pace, 0, 2 * kMs);
  for (size_t i = 0; i < 3 * CollectivePace::kRecent; ++i) {
    Iterate(pace, 5'000 * kMs, 2 * kMs);
    EXPECT_LE(pace.next_hold_ns(), CollectivePace::kMaxHoldNs);
  }
  EXPECT_EQ(pace.hold_ns(), CollectivePace::kMaxHoldNs);
}

TEST(CollectivePacerTest, EachCollectiveKernelHasItsOwnHold) {
  CollectivePacer pacer;
  for (int i = 0; i < 40; ++i) {
    pacer.Observe(7, 0, i == 0 ? 2 * kMs : 2 * kMs + 20 * kMs - std::min(pacer.HoldNs(7), 20 * kMs),
                  true);
    pacer.Observe(9, 0, 2 * kMs, true);
  }
  EXPECT_GT(pacer.HoldNs(7), 18 * kMs);
  EXPECT_EQ(pacer.HoldNs(9), 0u);
  EXPECT_EQ(pacer.HoldNs(8), 0u);    // never seen
  pacer.Observe(0, 0, 50 * kMs, true);  // "other": not one kernel
  EXPECT_EQ(pacer.HoldNs(0), 0u);
}

TEST(CollectivePacerTest, KernelsPastTheTableAreNotHeld) {
  CollectivePacer pacer;
  const auto n = static_cast<uint32_t>(CollectivePacer::kMaxPaced);
  for (int i = 0; i < 10; ++i) {
    for (uint32_t k = 1; k <= n + 1; ++k) pacer.Observe(k, 0, i == 0 ? kMs : 30 * kMs, true);
  }
  EXPECT_GT(pacer.HoldNs(n), 0u);
  EXPECT_EQ(pacer.HoldNs(n + 1), 0u);
}

// A collective seen on a second device: the process drives several GPUs
// from one thread, and holds none from then on.
TEST(CollectivePacerTest, AProcessOnSeveralDevicesHoldsNothing) {
  CollectivePacer pacer;
  for (int i = 0; i < 10; ++i) pacer.Observe(7, 0, i == 0 ? kMs : 30 * kMs, true);
  ASSERT_GT(pacer.HoldNs(7), 0u);
  pacer.Observe(8, 1, 2 * kMs, true);
  EXPECT_EQ(pacer.HoldNs(7), 0u);
  for (int i = 0; i < 10; ++i) pacer.Observe(7, 0, 30 * kMs, true);
  EXPECT_EQ(pacer.HoldNs(7), 0u);
}

TEST(CollectivePacerTest, CountsWhatItHeld) {
  CollectivePacer pacer;
  pacer.CountHold(3 * kMs);
  pacer.CountHold(2 * kMs);
  EXPECT_EQ(pacer.held(), 2u);
  EXPECT_EQ(pacer.held_ns(), 5 * kMs);
}

}  // namespace
}  // namespace iashim
