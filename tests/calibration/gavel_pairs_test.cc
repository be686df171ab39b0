// The yardstick itself: Gavel's directed pairs of the bundled profiles, read
// from the bundled data, beside simgpu's. Prints the table and the error
// that issue 18's asymmetric model is to bring down; asserts what the
// harness must get right, and that the current model stays where it is
// (its error recorded, so that a change shows in this test).
#include "tests/calibration/gavel_pairs.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace iashim_test {
namespace {

const DirectedPair* Find(const std::vector<DirectedPair>& pairs, const std::string& victim,
                         const std::string& aggressor) {
  for (const DirectedPair& p : pairs) {
    if (p.victim == victim && p.aggressor == aggressor) return &p;
  }
  return nullptr;
}

TEST(GavelPairs, TheBundledProfilesMeasuredPairsBesideSimgpu) {
  absl::StatusOr<std::vector<DirectedPair>> pairs =
      CompareWithGavel(IASHIM_SOURCE_DIR, simgpu::InterferenceParams{}, 12.0, 2.0);
  ASSERT_TRUE(pairs.ok()) << pairs.status();
  // Five profiles with a Gavel job type: ten pairs, twenty directed values.
  ASSERT_EQ(pairs->size(), 20u);
  std::printf("%-12s %-12s %7s %7s\n", "victim", "aggressor", "gavel", "simgpu");
  for (const DirectedPair& p : *pairs) {
    std::printf("%-12s %-12s %7.2f %7.2f\n", p.victim.c_str(), p.aggressor.c_str(), p.gavel,
                p.simgpu);
    EXPECT_GT(p.simgpu, 0) << p.victim << " next to " << p.aggressor;
    EXPECT_LE(p.simgpu, 1.0 + 1e-9) << p.victim << " next to " << p.aggressor;
  }
  // Gavel's lopsided pairs (simulation_throughputs.json, v100), read right.
  const DirectedPair* t = Find(*pairs, "transformer", "resnet50");
  const DirectedPair* r = Find(*pairs, "resnet50", "transformer");
  ASSERT_NE(t, nullptr);
  ASSERT_NE(r, nullptr);
  EXPECT_NEAR(t->gavel, 0.21, 0.01);
  EXPECT_NEAR(r->gavel, 0.58, 0.01);
  const double mae = MeanAbsError(*pairs);
  std::printf("mean absolute error of the kept fraction: %.3f (issue 18's goal: <= 0.06)\n", mae);
  // Today's symmetric model: about 0.17 per directed value. A model change
  // moves this; the bound is here so the change is seen and this line updated.
  EXPECT_GT(mae, 0.10);
  EXPECT_LT(mae, 0.25);
}

TEST(GavelPairs, MeanAbsErrorIsTheMeanOfTheGaps) {
  const std::vector<DirectedPair> pairs = {{"a", "b", 0.5, 0.7}, {"b", "a", 0.9, 0.8}};
  EXPECT_DOUBLE_EQ(MeanAbsError(pairs), 0.15);
  EXPECT_DOUBLE_EQ(MeanAbsError({}), 0.0);
}

}  // namespace
}  // namespace iashim_test
