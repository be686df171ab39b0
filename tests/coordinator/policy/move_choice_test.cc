#include "coordinator/policy/move_choice.h"

#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace iashim::policy {
namespace {

TEST(SlowestToMove, TheJobKeepingLeastOfItsSpeedMoves) {
  const std::vector<MoveCandidate> jobs = {{"shares", 0.62}, {"throttled", 0.12}, {"other", 0.5}};
  EXPECT_EQ(SlowestToMove(jobs), 1u);
}

TEST(SlowestToMove, NoneWhenNoJobIsSlowedOrNoneIsThere) {
  EXPECT_EQ(SlowestToMove({}), std::nullopt);
  const std::vector<MoveCandidate> unslowed = {{"a", 1.0}, {"b", 1.2}};
  EXPECT_EQ(SlowestToMove(unslowed), std::nullopt);
  // A reading that is no number is no evidence of slowness.
  const std::vector<MoveCandidate> unknown = {{"a", std::numeric_limits<double>::quiet_NaN()},
                                              {"b", 0.9}};
  EXPECT_EQ(SlowestToMove(unknown), 1u);
}

TEST(SlowestToMove, TiesGoToTheFirst) {
  const std::vector<MoveCandidate> jobs = {{"a", 0.3}, {"b", 0.3}};
  EXPECT_EQ(SlowestToMove(jobs), 0u);
}

}  // namespace
}  // namespace iashim::policy
