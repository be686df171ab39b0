#include "coordinator/policy/pair_cross_validation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace iashim::policy {
namespace {

// Structured data: 4 families of 4 kinds; a kind's throughput next to
// another is a family victim effect plus a family aggressor effect plus a
// rank-1 family interaction, plus a small per-kind term. Every unordered pair
// is measured once.
std::vector<PairMeasurement> Structured() {
  const double victim[4] = {0.15, -0.1, 0.0, -0.2};
  const double aggressor[4] = {-0.05, 0.1, -0.15, 0.05};
  const double u[4] = {0.3, -0.2, 0.1, -0.3};
  const double w[4] = {0.2, 0.3, -0.3, 0.1};
  auto name = [](int k) { return "F" + std::to_string(k / 4) + " (batch size " +
                                 std::to_string(8 << (k % 4)) + ")"; };
  auto truth = [&](int v, int a) {
    const int f = v / 4, g = a / 4;
    return 0.6 + victim[f] + aggressor[g] + u[f] * w[g] + 0.01 * (v % 4) - 0.01 * (a % 3);
  };
  std::vector<PairMeasurement> out;
  for (int i = 0; i < 16; ++i) {
    for (int j = i; j < 16; ++j) {
      out.push_back(PairMeasurement{JobTraits{.kind = name(i)}, JobTraits{.kind = name(j)},
                                    truth(i, j), truth(j, i)});
    }
  }
  return out;
}

TEST(PairCrossValidationTest, ModelBeatsTheBaselinesOnStructuredData) {
  const std::vector<PairMeasurement> pairs = Structured();
  const CrossValidationResult r = CrossValidatePairs(pairs, 5, 1, InterferenceModel::Options{});
  EXPECT_EQ(r.folds, 5);
  EXPECT_EQ(r.pairs, 136);
  EXPECT_EQ(r.predictions, 272);
  EXPECT_GT(r.median.mean_abs_error, 0.1);
  EXPECT_LT(r.model.mean_abs_error, 0.5 * r.median.mean_abs_error);
  EXPECT_LT(r.model.mean_abs_error, 0.5 * r.table.mean_abs_error);
  EXPECT_GE(r.model.p90_abs_error, r.model.mean_abs_error);
  EXPECT_LT(r.model.p90_abs_error, r.median.p90_abs_error);
}

TEST(PairCrossValidationTest, BothDirectionsStayInOneFold) {
  // Every pair listed twice, once per direction. Were the two split across
  // folds, the table would have learned each held-out value exactly.
  std::vector<PairMeasurement> pairs;
  for (const PairMeasurement& m : Structured()) {
    pairs.push_back(m);
    pairs.push_back(PairMeasurement{m.b, m.a, m.b_norm, m.a_norm});
  }
  const CrossValidationResult r = CrossValidatePairs(pairs, 4, 3, InterferenceModel::Options{});
  EXPECT_EQ(r.pairs, 136);
  EXPECT_EQ(r.predictions, 4 * 136);
  EXPECT_GT(r.table.mean_abs_error, 0.1);
  EXPECT_NEAR(r.table.mean_abs_error, r.median.mean_abs_error, 0.05);
}

TEST(PairCrossValidationTest, DeterministicForASeed) {
  const std::vector<PairMeasurement> pairs = Structured();
  const CrossValidationResult a = CrossValidatePairs(pairs, 4, 9, InterferenceModel::Options{});
  const CrossValidationResult b = CrossValidatePairs(pairs, 4, 9, InterferenceModel::Options{});
  EXPECT_EQ(a.model.mean_abs_error, b.model.mean_abs_error);
  EXPECT_EQ(a.median.mean_abs_error, b.median.mean_abs_error);
  EXPECT_EQ(a.table.mean_abs_error, b.table.mean_abs_error);
  const CrossValidationResult c = CrossValidatePairs(pairs, 4, 10, InterferenceModel::Options{});
  EXPECT_NE(a.model.mean_abs_error, c.model.mean_abs_error);
}

TEST(PairCrossValidationTest, RejectsImpossibleFoldCounts) {
  const std::vector<PairMeasurement> pairs = Structured();
  EXPECT_EQ(CrossValidatePairs(pairs, 1, 1, InterferenceModel::Options{}).folds, 0);
  EXPECT_EQ(CrossValidatePairs(pairs, 137, 1, InterferenceModel::Options{}).folds, 0);
  EXPECT_EQ(CrossValidatePairs({}, 2, 1, InterferenceModel::Options{}).folds, 0);
  // Leave-one-out is the most folds there can be.
  const std::vector<PairMeasurement> few(pairs.begin(), pairs.begin() + 6);
  const CrossValidationResult r = CrossValidatePairs(few, 6, 1, InterferenceModel::Options{});
  EXPECT_EQ(r.folds, 6);
  EXPECT_EQ(r.predictions, 12);
}

TEST(PairCrossValidationTest, UnusableValuesAreNotScored) {
  std::vector<PairMeasurement> pairs = Structured();
  pairs[0].b_norm = std::nan("");
  pairs[1].a_norm = 7.0;
  const CrossValidationResult r = CrossValidatePairs(pairs, 5, 1, InterferenceModel::Options{});
  EXPECT_EQ(r.predictions, 270);
}

}  // namespace
}  // namespace iashim::policy
