// Moving a slowed job to a GPU that emptied (--move-command,
// coordinator_move.cc), driven through Coordinator::OnMessage and OnTick.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "coordinator/daemon/coordinator.h"
#include "coordinator/policy/simple_placement.h"
#include "tests/coordinator/daemon/daemon_messages.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
using testing::Bytes;
using testing::Hello;
using testing::kSecond;
using testing::kUnix;
using testing::LastPlaceReply;
using testing::Place;
using testing::PlaceResult;
using testing::PlaceSpec;
using testing::TwoNodes;

constexpr w::Priority kOpportunistic = w::Priority::Opportunistic;

class CoordinatorMoveTest : public ::testing::Test {
 protected:
  // Jobs' heartbeats are not the point here: a long timeout keeps them
  // connected through the ticks.
  static DaemonOptions Options(bool moving) {
    DaemonOptions o;
    if (moving) o.move_command = "/usr/local/bin/iashim-move-job";  // only the server runs it
    o.move_after_empty_s = 3;
    o.heartbeat_timeout_s = 600;
    return o;
  }
  static std::unique_ptr<Coordinator> Make(bool moving = true) {
    return std::make_unique<Coordinator>(Options(moving), TwoNodes(), nullptr,
                                         std::make_unique<policy::SimplePlacement>(), 0);
  }
  // Places `spec` and connects its process.
  void Run(Coordinator& c, PlaceSpec spec, int pid) {
    out_.clear();
    c.OnMessage("slurm", Bytes(Place(spec)), kSecond, kUnix, &out_);
    const PlaceResult r = LastPlaceReply(out_);
    ASSERT_TRUE(r.ok) << r.error;
    c.OnMessage("shim-" + spec.job,
                Bytes(Hello({.pid = pid,
                             .host = spec.host,
                             .job = spec.job,
                             .priority = spec.priority,
                             .token = r.token})),
                kSecond, kUnix, &out_);
    ASSERT_TRUE(c.jobs().at(spec.job).connected);
  }
  // Ticks every control period from `from_s` to `to_s`: the moves decided
  // (the log's lines in events_).
  std::vector<JobMove> TickUntil(Coordinator& c, double from_s, double to_s) {
    std::vector<JobMove> moves;
    for (double t = from_s; t <= to_s + 1e-9; t += 1) {
      out_.clear();
      c.OnTick(static_cast<int64_t>(t * kSecond), kUnix, &out_);
      for (JobMove& m : c.TakeMoves()) moves.push_back(std::move(m));
      for (std::string& line : c.TakeEvents(kUnix)) events_.push_back(std::move(line));
    }
    return moves;
  }
  static BatchIds Batch(const std::string& id, const std::string& step = "batch") {
    return {"slurm", id, step, 0};
  }

  std::vector<Outgoing> out_;
  std::vector<std::string> events_;
};

TEST_F(CoordinatorMoveTest, ASharingBatchJobMovesToAGpuEmptyLongEnough) {
  auto c = Make();
  // node1's GPU 0: a guaranteed job and an opportunistic batch job beside
  // it; its GPU 1: one alone; node2's GPU: empty.
  Run(*c, {.job = "g", .gpu = 0}, 100);
  Run(*c, {.job = "o", .priority = kOpportunistic, .gpu = 0, .batch = Batch("41"), .movable = true},
      101);
  Run(*c,
      {.job = "alone", .priority = kOpportunistic, .gpu = 1, .batch = Batch("42"), .movable = true},
      102);
  // Not before the GPU has been empty for 3 s.
  EXPECT_TRUE(TickUntil(*c, 1.5, 3.5).empty());
  const std::vector<JobMove> moves = TickUntil(*c, 4.5, 6.5);
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].job, "o");
  EXPECT_EQ(moves[0].batch.job, "41");
  EXPECT_EQ(moves[0].from, (policy::GpuId{"node1", 0}));
  EXPECT_EQ(moves[0].to, (policy::GpuId{"node2", 0}));
  // Not measured alone yet: it keeps at most the share its placement beside
  // the guaranteed job capped it at.
  const std::string said =
      "moving o (at 0.19 of its solo speed beside another job on node1:0) to "
      "node2:0, empty for 3 s: asked Slurm to requeue job 41 there";
  EXPECT_NE(std::find(events_.begin(), events_.end(), said), events_.end())
      << ::testing::PrintToString(events_);
  // Asked once: the GPU is held for it, and it is not asked again while
  // Slurm requeues it.
  EXPECT_TRUE(TickUntil(*c, 7.5, 20.5).empty());
}

TEST_F(CoordinatorMoveTest, OfTwoJobsSharingAtFullShareOneMoves) {
  auto c = Make();
  // Neither measured alone: each keeps at most its turn, a half; the first
  // of equals moves, and then neither shares.
  Run(*c, {.job = "a", .priority = kOpportunistic, .gpu = 0, .batch = Batch("41"), .movable = true},
      100);
  Run(*c, {.job = "b", .priority = kOpportunistic, .gpu = 0, .batch = Batch("42"), .movable = true},
      101);
  Run(*c, {.job = "c", .priority = kOpportunistic, .gpu = 1, .batch = Batch("43"), .movable = true},
      102);
  const std::vector<JobMove> moves = TickUntil(*c, 1.5, 10.5);
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].job, "a");
  EXPECT_EQ(moves[0].to, (policy::GpuId{"node2", 0}));
}

TEST_F(CoordinatorMoveTest, OnlyAnOpportunisticBatchScriptThatSharesMoves) {
  auto c = Make();
  // A guaranteed job is never moved; an srun step is not its whole batch
  // script (requeuing would restart all of it); a job alone gains nothing.
  // (All of them say they resume from a checkpoint.)
  Run(*c, {.job = "g", .gpu = 0, .batch = Batch("40")}, 100);
  Run(*c,
      {.job = "step",
       .priority = kOpportunistic,
       .gpu = 0,
       .batch = Batch("41", "0"),
       .movable = true},
      101);
  Run(*c,
      {.job = "alone", .priority = kOpportunistic, .gpu = 1, .batch = Batch("42"), .movable = true},
      102);
  EXPECT_TRUE(TickUntil(*c, 1.5, 10.5).empty());
}

TEST_F(CoordinatorMoveTest, NeverToAGpuOfItsOwnNode) {
  // Slurm would start it there again only once its credential expired.
  auto c = Make();
  Run(*c, {.job = "g", .gpu = 0}, 100);
  Run(*c, {.job = "o", .priority = kOpportunistic, .gpu = 0, .batch = Batch("41"), .movable = true},
      101);
  Run(*c, {.job = "x", .priority = kOpportunistic, .host = "node2", .batch = Batch("43")}, 102);
  // node1's GPU 1 is empty, node2's taken.
  EXPECT_TRUE(TickUntil(*c, 1.5, 10.5).empty());
}

TEST_F(CoordinatorMoveTest, AJobThatDidNotSayItResumesIsNeverMoved) {
  auto c = Make();
  // Requeued, it would start again from its first step.
  Run(*c, {.job = "g", .gpu = 0}, 100);
  Run(*c, {.job = "o", .priority = kOpportunistic, .gpu = 0, .batch = Batch("41")}, 101);
  EXPECT_TRUE(TickUntil(*c, 1.5, 10.5).empty());
}

TEST_F(CoordinatorMoveTest, NoMoveWithoutACommand) {
  auto c = Make(/*moving=*/false);
  Run(*c, {.job = "g", .gpu = 0}, 100);
  Run(*c, {.job = "o", .priority = kOpportunistic, .gpu = 0, .batch = Batch("41"), .movable = true},
      101);
  EXPECT_TRUE(TickUntil(*c, 1.5, 40.5).empty());
}

}  // namespace
}  // namespace iashim::daemon
