// The yardstick itself: Gavel's directed pairs of the bundled profiles, read
// from the bundled data, beside simgpu's. Prints the table and the error
// that issue 18's asymmetric model is to bring down; asserts what the
// harness must get right, and that the current model stays where it is
// (its error recorded, so that a change shows in this test).
#include "tests/calibration/gavel_pairs.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "absl/strings/str_format.h"

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

// Leave-one-model-out on the current model, its three global parameters
// chosen from a grid around the defaults without the held-out model's pairs.
// Prints the table issue 18 asks for; asserts the folds are all there and
// records where the current model stands.
TEST(GavelPairs, LeaveOneModelOutOfTheCurrentModel) {
  std::vector<simgpu::InterferenceParams> grid;
  for (double compute : {0.6, 0.9, 1.2}) {
    for (double memory : {0.6, 0.9, 1.2}) {
      for (double context_switch : {0.0, 0.1, 0.3}) {
        simgpu::InterferenceParams p;
        p.compute = compute;
        p.memory = memory;
        p.context_switch = context_switch;
        grid.push_back(p);
      }
    }
  }
  std::vector<std::vector<DirectedPair>> evaluated;
  for (const simgpu::InterferenceParams& p : grid) {
    absl::StatusOr<std::vector<DirectedPair>> pairs = CompareWithGavel(IASHIM_SOURCE_DIR, p, 6.0, 1.0);
    ASSERT_TRUE(pairs.ok()) << pairs.status();
    evaluated.push_back(*std::move(pairs));
  }
  const std::vector<HeldOutModel> folds = LeaveOneModelOut(evaluated);
  ASSERT_EQ(folds.size(), 5u);
  std::printf("%-12s %28s %8s %9s\n", "held out", "fitted (compute/memory/ctx)", "fit MAE",
              "held-out");
  for (const HeldOutModel& f : folds) {
    const simgpu::InterferenceParams& p = grid[f.params_index];
    std::printf("%-12s %28s %8.3f %9.3f\n", f.model.c_str(),
                absl::StrFormat("%.1f/%.1f/%.1f", p.compute, p.memory, p.context_switch).c_str(),
                f.fit_mae, f.held_out_mae);
    EXPECT_LE(f.fit_mae, 1.0);
  }
  const double loo = LeaveOneOutError(folds);
  std::printf("leave-one-model-out error: %.3f (issue 18's goal: <= 0.10)\n", loo);
  // The symmetric model cannot tell a lopsided pair from its reverse: about
  // 0.19 held out. A model change moves this; update the bound with it.
  EXPECT_GT(loo, 0.10);
  EXPECT_LT(loo, 0.30);
}

// The fit never sees the held-out model's pairs: a candidate perfect on them
// but poor elsewhere is not chosen.
TEST(GavelPairs, LeaveOneModelOutFitsWithoutTheHeldOutPairs) {
  // Candidate 0 is exact on every pair involving "c", off by 0.2 elsewhere;
  // candidate 1 is off by 0.1 everywhere.
  const std::vector<std::vector<DirectedPair>> evaluated = {
      {{"a", "b", 0.5, 0.7}, {"b", "a", 0.5, 0.7}, {"a", "c", 0.5, 0.5}, {"c", "a", 0.5, 0.5}},
      {{"a", "b", 0.5, 0.6}, {"b", "a", 0.5, 0.6}, {"a", "c", 0.5, 0.6}, {"c", "a", 0.5, 0.6}}};
  const std::vector<HeldOutModel> folds = LeaveOneModelOut(evaluated);
  ASSERT_EQ(folds.size(), 3u);
  EXPECT_EQ(folds[2].model, "c");
  EXPECT_EQ(folds[2].params_index, 1u);  // chosen on a<->b only
  EXPECT_NEAR(folds[2].held_out_mae, 0.1, 1e-12);
  EXPECT_NEAR(folds[1].held_out_mae, 0.2, 1e-12);  // b held out: fitted on a<->c, candidate 0
  EXPECT_EQ(folds[1].params_index, 0u);
  EXPECT_NEAR(LeaveOneOutError(folds), (folds[0].held_out_mae + 0.2 + 0.1) / 3, 1e-12);
}

TEST(GavelPairs, MeanAbsErrorIsTheMeanOfTheGaps) {
  const std::vector<DirectedPair> pairs = {{"a", "b", 0.5, 0.7}, {"b", "a", 0.9, 0.8}};
  EXPECT_DOUBLE_EQ(MeanAbsError(pairs), 0.15);
  EXPECT_DOUBLE_EQ(MeanAbsError({}), 0.0);
}

}  // namespace
}  // namespace iashim_test
