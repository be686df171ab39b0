#include "coordinator/top/ui_state.h"

#include "gtest/gtest.h"

namespace iashim::top {
namespace {

TEST(Apply, SortCyclesThroughTheFiveColumns) {
  UiState s;
  EXPECT_EQ(s.sort.key, SortKey::kJob);
  const SortKey expected[] = {SortKey::kShare, SortKey::kKernels, SortKey::kSlowdown,
                              SortKey::kMemory, SortKey::kJob};
  for (SortKey want : expected) {
    Apply(Command::kNextSort, 10, 0, &s);
    EXPECT_EQ(s.sort.key, want);
  }
}

TEST(Apply, ReverseAndPauseToggle) {
  UiState s;
  Apply(Command::kReverse, 10, 0, &s);
  EXPECT_TRUE(s.sort.reversed);
  Apply(Command::kNextSort, 10, 0, &s);
  EXPECT_TRUE(s.sort.reversed);  // the order survives a change of column
  Apply(Command::kReverse, 10, 0, &s);
  EXPECT_FALSE(s.sort.reversed);
  Apply(Command::kTogglePause, 10, 0, &s);
  EXPECT_TRUE(s.paused);
  Apply(Command::kTogglePause, 10, 0, &s);
  EXPECT_FALSE(s.paused);
  EXPECT_FALSE(s.quit);
  Apply(Command::kQuit, 10, 0, &s);
  EXPECT_TRUE(s.quit);
}

TEST(Apply, ScrollStaysWithinTheBody) {
  UiState s;
  Apply(Command::kScrollUp, 10, 25, &s);
  EXPECT_EQ(s.scroll, 0);
  Apply(Command::kScrollDown, 10, 25, &s);
  EXPECT_EQ(s.scroll, 1);
  Apply(Command::kPageDown, 10, 25, &s);
  EXPECT_EQ(s.scroll, 11);
  Apply(Command::kPageDown, 10, 25, &s);
  Apply(Command::kPageDown, 10, 25, &s);
  EXPECT_EQ(s.scroll, 25);
  Apply(Command::kPageUp, 10, 25, &s);
  EXPECT_EQ(s.scroll, 15);
  Apply(Command::kHome, 10, 25, &s);
  EXPECT_EQ(s.scroll, 0);
  Apply(Command::kEnd, 10, 25, &s);
  EXPECT_EQ(s.scroll, 25);
  // The body shrank (fewer jobs, or a taller terminal): scroll follows.
  Apply(Command::kRedraw, 10, 3, &s);
  EXPECT_EQ(s.scroll, 3);
  Apply(Command::kScrollDown, 10, 0, &s);
  EXPECT_EQ(s.scroll, 0);
}

TEST(Apply, LegendTogglesAndStartsAtTheTop) {
  UiState s;
  s.scroll = 5;
  Apply(Command::kToggleLegend, 10, 25, &s);
  EXPECT_TRUE(s.legend);
  EXPECT_EQ(s.scroll, 0);
  Apply(Command::kToggleLegend, 10, 25, &s);
  EXPECT_FALSE(s.legend);
}

}  // namespace
}  // namespace iashim::top
