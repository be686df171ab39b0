#include "simgpu/src/interference_model.h"

#include <gtest/gtest.h>

#include <vector>

namespace simgpu {
namespace {

RunningItem K(float mem, float fill, int proc) { return {OpKind::kKernel, mem, fill, proc}; }

TEST(InterferenceModel, AloneRunsAtFullSpeed) {
  std::vector<RunningItem> items = {K(0.5f, 1.0f, 0)};
  std::vector<double> rates(1);
  ComputeRates(items, rates, InterferenceParams{});
  EXPECT_DOUBLE_EQ(rates[0], 1.0);
}

TEST(InterferenceModel, LikeKernelsContendMoreThanUnlike) {
  InterferenceParams p;
  const double like = PairPenalty(K(0, 1, 0), K(0, 1, 1), p);
  const double unlike = PairPenalty(K(0, 1, 0), K(1, 1, 1), p);
  EXPECT_GT(like, unlike);
  EXPECT_DOUBLE_EQ(unlike, p.context_switch);
}

TEST(InterferenceModel, SmallKernelsContendLess) {
  InterferenceParams p;
  EXPECT_LT(PairPenalty(K(0, 0.1f, 0), K(0, 1, 1), p), PairPenalty(K(0, 1, 0), K(0, 1, 1), p));
}

TEST(InterferenceModel, SameProcessPaysNoContextSwitch) {
  InterferenceParams p;
  EXPECT_DOUBLE_EQ(PairPenalty(K(0, 1, 0), K(1, 1, 0), p), 0.0);
}

TEST(InterferenceModel, CopiesOnlyContendWithCopies) {
  InterferenceParams p;
  RunningItem copy{OpKind::kCopy, 0, 0, 0};
  EXPECT_DOUBLE_EQ(PairPenalty(copy, K(1, 1, 1), p), 0.0);
  EXPECT_DOUBLE_EQ(PairPenalty(copy, RunningItem{OpKind::kCopy, 0, 0, 1}, p), p.copy);
}

TEST(InterferenceModel, RatesAreSymmetricForIdenticalItems) {
  std::vector<RunningItem> items = {K(0.3f, 1, 0), K(0.3f, 1, 1), K(0.3f, 1, 2)};
  std::vector<double> rates(3);
  ComputeRates(items, rates, InterferenceParams{});
  EXPECT_DOUBLE_EQ(rates[0], rates[1]);
  EXPECT_DOUBLE_EQ(rates[1], rates[2]);
  EXPECT_LT(rates[0], 0.5);
}

}  // namespace
}  // namespace simgpu
