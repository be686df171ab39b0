#include "coordinator/top/ended_jobs.h"

#include "gtest/gtest.h"
#include "tests/coordinator/top/snapshot_encoder.h"

namespace iashim::top {
namespace {

using test_support::SampleCluster;

std::vector<std::string> Names(const GpuView& g) {
  std::vector<std::string> names;
  for (const JobView& j : g.jobs) names.push_back(j.job);
  return names;
}

TEST(EndedJobs, ADisconnectedJobLeavesAfterAWhile) {
  ClusterView view = SampleCluster();  // resnet50, bert-large, gpt2-opp
  view.gpus[0].jobs[1].connected = false;
  EndedJobs ended;
  ended.Observe(view, 100);
  ClusterView shown = ended.Visible(view, 100 + kShowEndedSeconds);
  EXPECT_EQ(shown.gpus[0].jobs.size(), 3u);  // still shown, dim
  EXPECT_EQ(shown.gpus[0].hidden_ended, 0);
  ended.Observe(view, 105);  // later snapshots keep the first time seen
  shown = ended.Visible(view, 100 + kShowEndedSeconds + 0.1);
  EXPECT_EQ(Names(shown.gpus[0]), (std::vector<std::string>{"resnet50", "gpt2-opp"}));
  EXPECT_EQ(shown.gpus[0].hidden_ended, 1);
}

// A lost job (silent without a goodbye) leaves the table the same way; its
// node, if lost, stays on the GPU line.
TEST(EndedJobs, ALostJobLeavesAfterAWhileToo) {
  ClusterView view = SampleCluster();
  view.gpus[0].jobs[1].connected = false;
  view.gpus[0].jobs[1].lost = true;
  EndedJobs ended;
  ended.Observe(view, 100);
  EXPECT_EQ(ended.Visible(view, 100 + kShowEndedSeconds).gpus[0].jobs.size(), 3u);
  EXPECT_EQ(ended.Visible(view, 100 + kShowEndedSeconds + 0.1).gpus[0].hidden_ended, 1);
}

TEST(EndedJobs, AJobThatReconnectsIsShownAgainAndItsClockRestarts) {
  ClusterView view = SampleCluster();
  view.gpus[0].jobs[0].connected = false;
  EndedJobs ended;
  ended.Observe(view, 0);
  EXPECT_EQ(ended.Visible(view, 60).gpus[0].jobs.size(), 2u);
  view.gpus[0].jobs[0].connected = true;
  ended.Observe(view, 61);
  EXPECT_EQ(ended.Visible(view, 61).gpus[0].jobs.size(), 3u);
  view.gpus[0].jobs[0].connected = false;
  ended.Observe(view, 62);
  EXPECT_EQ(ended.Visible(view, 70).gpus[0].jobs.size(), 3u);
}

TEST(EndedJobs, PlacedJobsAndUnobservedJobsStay) {
  ClusterView view = SampleCluster();
  view.gpus[0].jobs[0].connected = false;
  view.gpus[0].jobs[0].pid = 0;  // placed, never started: not ended
  EndedJobs ended;
  ended.Observe(view, 0);
  EXPECT_EQ(ended.Visible(view, 1000).gpus[0].jobs.size(), 3u);
  // A job disconnected in a snapshot not yet observed has no time: shown.
  view.gpus[0].jobs[1].connected = false;
  EXPECT_EQ(ended.Visible(view, 1000).gpus[0].jobs.size(), 3u);
}

TEST(EndedJobs, ANewProcessUnderTheSameJobIdIsANewJob) {
  ClusterView view = SampleCluster();
  view.gpus[0].jobs[0].connected = false;
  EndedJobs ended;
  ended.Observe(view, 0);
  view.gpus[0].jobs[0].pid = 999;  // restarted, and already lost again
  ended.Observe(view, 50);
  EXPECT_EQ(ended.Visible(view, 55).gpus[0].jobs.size(), 3u);
}

}  // namespace
}  // namespace iashim::top
