// The coordinator's event log (event_log.h): lines come out once, oldest
// first, and a burst past its capacity drops the oldest, counted.
#include "coordinator/daemon/event_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace iashim::daemon {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(EventLog, LinesComeOutOnceOldestFirst) {
  EventLog log;
  log.Add("placed a");
  log.Add("placed b");
  EXPECT_THAT(log.Take(), ElementsAre("placed a", "placed b"));
  EXPECT_THAT(log.Take(), IsEmpty());
  EXPECT_EQ(log.dropped(), 0u);
}

TEST(EventLog, ABurstPastItsCapacityDropsTheOldestAndCountsThem) {
  EventLog log(2);
  for (const char* line : {"1", "2", "3", "4"}) log.Add(line);
  EXPECT_THAT(log.Take(), ElementsAre("3", "4"));
  EXPECT_EQ(log.dropped(), 2u);
  log.Add("5");
  EXPECT_THAT(log.Take(), ElementsAre("5"));
  EXPECT_EQ(log.dropped(), 2u);
}

}  // namespace
}  // namespace iashim::daemon
