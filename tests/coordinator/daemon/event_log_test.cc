// The coordinator's event log (event_log.h): lines come out once, oldest
// first, and a burst past its capacity drops the oldest, counted; the last
// ones written stay for status, with their time, all or one job's.
#include "coordinator/daemon/event_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace iashim::daemon {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> Texts(const std::vector<const Event*>& events) {
  std::vector<std::string> texts;
  for (const Event* e : events) texts.push_back(e->text);
  return texts;
}

TEST(EventLog, LinesComeOutOnceOldestFirst) {
  EventLog log;
  log.Add({"a"}, "placed a");
  log.Add({"b"}, "placed b");
  EXPECT_THAT(log.Take(1), ElementsAre("placed a", "placed b"));
  EXPECT_THAT(log.Take(2), IsEmpty());
  EXPECT_EQ(log.dropped(), 0u);
}

TEST(EventLog, ABurstPastItsCapacityDropsTheOldestAndCountsThem) {
  EventLog log(2);
  for (const char* line : {"1", "2", "3", "4"}) log.Add({}, line);
  EXPECT_THAT(log.Take(1), ElementsAre("3", "4"));
  EXPECT_EQ(log.dropped(), 2u);
  log.Add({}, "5");
  EXPECT_THAT(log.Take(2), ElementsAre("5"));
  EXPECT_EQ(log.dropped(), 2u);
}

TEST(EventLog, WrittenEventsStayForStatusWithTheirTime) {
  EventLog log;
  log.Add({"a"}, "placed a");
  EXPECT_THAT(Texts(log.Recent()), IsEmpty());  // not yet written to the log
  log.Take(1'000);
  log.Add({"b", "a"}, "placed b beside a");
  log.Add({}, "node n1 lost: every job on it fell silent");
  log.Take(2'000);
  const std::vector<const Event*> all = log.Recent();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0]->unix_ns, 1'000);
  EXPECT_EQ(all[1]->unix_ns, 2'000);
  EXPECT_THAT(all[1]->jobs, ElementsAre("b", "a"));
  // One job's: those about it and those that concern it (a job placed beside it).
  EXPECT_THAT(Texts(log.Recent("a")), ElementsAre("placed a", "placed b beside a"));
  EXPECT_THAT(Texts(log.Recent("b")), ElementsAre("placed b beside a"));
  EXPECT_THAT(Texts(log.Recent("c")), IsEmpty());
}

TEST(EventLog, OnlyTheLastWrittenAreKept) {
  EventLog log(/*capacity=*/16, /*recent_capacity=*/2);
  for (const char* line : {"1", "2", "3"}) log.Add({}, line);
  log.Take(1);
  log.Add({}, "4");
  log.Take(2);
  EXPECT_THAT(Texts(log.Recent()), ElementsAre("3", "4"));
}

}  // namespace
}  // namespace iashim::daemon
