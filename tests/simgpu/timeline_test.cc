#include "simgpu/src/timeline.h"

#include <gtest/gtest.h>

#include <memory>

#include "simgpu/src/device_slots.h"

namespace simgpu {
namespace {

class TimelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state_ = std::make_unique<DeviceState>();
    DeviceSpec spec{};
    spec.memory_bytes = 1ULL << 30;
    spec.sm_count = 80;
    spec.idle_watts = 40;
    spec.max_watts = 300;
    InitDeviceState(*state_, spec, 0);
    proc_a_ = RegisterProcess(*state_, 1, 0);
    proc_b_ = RegisterProcess(*state_, 2, 0);
  }

  static Op Kernel(double us, float mem = 0.0f, float fill = 1.0f) {
    Op op{};
    op.kind = OpKind::kKernel;
    op.remaining_ns = us * 1000;
    op.mem_intensity = mem;
    op.sm_fill = fill;
    op.event_slot = -1;
    return op;
  }

  DeviceState& s() { return *state_; }
  std::unique_ptr<DeviceState> state_;
  InterferenceParams params_;
  int proc_a_ = -1, proc_b_ = -1;
};

TEST_F(TimelineTest, LoneKernelTakesItsDuration) {
  const int st = AllocStream(s(), proc_a_);
  uint64_t seq;
  ASSERT_TRUE(Enqueue(s(), st, Kernel(100), &seq));
  Advance(s(), 99'000, params_);
  EXPECT_EQ(s().streams[st].completed, 0u);
  Advance(s(), 100'000, params_);
  EXPECT_EQ(s().streams[st].completed, 1u);
  EXPECT_DOUBLE_EQ(s().busy_ns, 100'000);
  EXPECT_DOUBLE_EQ(s().procs[proc_a_].work_ns, 100'000);
}

TEST_F(TimelineTest, StreamRunsInOrder) {
  const int st = AllocStream(s(), proc_a_);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Enqueue(s(), st, Kernel(10), nullptr));
  Advance(s(), 25'000, params_);
  EXPECT_EQ(s().streams[st].completed, 2u);
  Advance(s(), 30'000, params_);
  EXPECT_EQ(s().streams[st].completed, 3u);
}

TEST_F(TimelineTest, ComputeBoundKernelsOfTwoProcessesShareTheSms) {
  const int a = AllocStream(s(), proc_a_);
  const int b = AllocStream(s(), proc_b_);
  ASSERT_TRUE(Enqueue(s(), a, Kernel(100, 0.0f), nullptr));
  ASSERT_TRUE(Enqueue(s(), b, Kernel(100, 0.0f), nullptr));
  PendingWork work;
  SnapshotPendingWork(s(), work);
  const double slowdown = 1 + params_.compute + params_.context_switch;
  const int64_t expect = static_cast<int64_t>(100'000 * slowdown);
  EXPECT_NEAR(ProjectCompletion(work, a, 1, params_), expect, 2);
  Advance(s(), expect + 1, params_);
  EXPECT_EQ(s().streams[a].completed, 1u);
  EXPECT_EQ(s().streams[b].completed, 1u);
  // The busy time is split evenly between the two processes.
  EXPECT_NEAR(s().procs[proc_a_].gpu_time_ns, s().busy_ns / 2, 1);
  EXPECT_NEAR(s().procs[proc_a_].gpu_time_ns + s().procs[proc_b_].gpu_time_ns, s().busy_ns, 1);
  // Each got 100 us of its work done: the time it would have taken alone.
  EXPECT_NEAR(s().procs[proc_a_].solo_time_ns, 100'000, 1);
  EXPECT_NEAR(s().procs[proc_b_].solo_time_ns, 100'000, 1);
}

// Kernels that overlap well (a compute-bound and a memory-bound one) get more
// done together than one GPU's time: each process is accounted the solo time
// of its work, not half of the wall time.
TEST_F(TimelineTest, EachProcessIsAccountedTheSoloTimeOfItsWork) {
  const int a = AllocStream(s(), proc_a_);
  const int b = AllocStream(s(), proc_b_);
  ASSERT_TRUE(Enqueue(s(), a, Kernel(100, 0.0f), nullptr));
  ASSERT_TRUE(Enqueue(s(), b, Kernel(300, 1.0f), nullptr));
  Advance(s(), 1'000'000, params_);
  ASSERT_EQ(s().streams[a].completed, 1u);
  ASSERT_EQ(s().streams[b].completed, 1u);
  EXPECT_NEAR(s().procs[proc_a_].solo_time_ns, 100'000, 1);
  EXPECT_NEAR(s().procs[proc_b_].solo_time_ns, 300'000, 1);
  EXPECT_LT(s().procs[proc_a_].gpu_time_ns, 100'000);  // half of an overlap
}

TEST_F(TimelineTest, ComputeAndMemoryBoundKernelsOverlap) {
  const int a = AllocStream(s(), proc_a_);
  const int b = AllocStream(s(), proc_b_);
  ASSERT_TRUE(Enqueue(s(), a, Kernel(100, 0.0f), nullptr));
  ASSERT_TRUE(Enqueue(s(), b, Kernel(100, 1.0f), nullptr));
  PendingWork work;
  SnapshotPendingWork(s(), work);
  const int64_t done = ProjectCompletion(work, a, 1, params_);
  EXPECT_NEAR(done, 100'000 * (1 + params_.context_switch), 2);
}

TEST_F(TimelineTest, ProjectionMatchesAdvance) {
  const int a = AllocStream(s(), proc_a_);
  const int b = AllocStream(s(), proc_b_);
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(Enqueue(s(), a, Kernel(10 + i, 0.1f * (i % 10), 0.5f + 0.01f * i), nullptr));
    ASSERT_TRUE(Enqueue(s(), b, Kernel(30, 0.5f), nullptr));
  }
  PendingWork work;
  SnapshotPendingWork(s(), work);
  const int64_t done = ProjectCompletion(work, a, 50, params_);
  Advance(s(), done - 10, params_);
  EXPECT_LT(s().streams[a].completed, 50u);
  Advance(s(), done, params_);
  EXPECT_EQ(s().streams[a].completed, 50u);
}

TEST_F(TimelineTest, EventRecordCompletesWithPrecedingWork) {
  const int st = AllocStream(s(), proc_a_);
  const int ev = AllocEvent(s(), proc_a_);
  ASSERT_TRUE(Enqueue(s(), st, Kernel(40), nullptr));
  Op marker{};
  marker.kind = OpKind::kEventRecord;
  marker.event_slot = ev;
  marker.event_generation = s().events[ev].generation;
  ASSERT_TRUE(Enqueue(s(), st, marker, nullptr));
  Advance(s(), 1'000'000, params_);
  EXPECT_EQ(s().events[ev].done, 1u);
  EXPECT_EQ(s().events[ev].time_ns, 40'000);
}

TEST_F(TimelineTest, FullQueueRefusesEnqueue) {
  const int st = AllocStream(s(), proc_a_);
  for (int i = 0; i < kStreamQueueDepth; ++i) ASSERT_TRUE(Enqueue(s(), st, Kernel(1), nullptr));
  EXPECT_FALSE(Enqueue(s(), st, Kernel(1), nullptr));
  Advance(s(), 1'000, params_);
  EXPECT_TRUE(Enqueue(s(), st, Kernel(1), nullptr));
}

TEST_F(TimelineTest, IdleDeviceAccountsNothing) {
  Advance(s(), 5'000'000, params_);
  EXPECT_EQ(s().busy_ns, 0);
  EXPECT_EQ(s().clock_ns, 5'000'000);
}

// Energy: idle power all along, plus the rest of the board power in
// proportion to the SMs running kernels occupy (power_model.h).
TEST_F(TimelineTest, EnergyIsIdlePowerPlusOccupancyScaledBusyPower) {
  const int st = AllocStream(s(), proc_a_);
  ASSERT_TRUE(Enqueue(s(), st, Kernel(1'000'000), nullptr));  // 1 s filling every SM
  Advance(s(), 2'000'000'000, params_);                        // then 1 s idle
  EXPECT_NEAR(s().energy_j, 40.0 * 2 + 260.0 * 1, 1e-6);
  // A kernel that fills a quarter of the SMs draws a quarter of the busy power.
  ASSERT_TRUE(Enqueue(s(), st, Kernel(1'000'000, 0.0f, 0.25f), nullptr));
  Advance(s(), 3'000'000'000, params_);
  EXPECT_NEAR(s().energy_j, 340.0 + 40.0 + 65.0, 1e-6);
}

TEST_F(TimelineTest, KernelsOfSeveralProcessesDrawAtMostFullPower) {
  const int a = AllocStream(s(), proc_a_);
  const int b = AllocStream(s(), proc_b_);
  ASSERT_TRUE(Enqueue(s(), a, Kernel(1'000), nullptr));
  ASSERT_TRUE(Enqueue(s(), b, Kernel(1'000), nullptr));
  Advance(s(), 10'000'000, params_);
  // Both ran the whole 10 ms or less, never above 300 W.
  EXPECT_LE(s().energy_j, 300.0 * 0.010 + 1e-9);
  EXPECT_GT(s().energy_j, 40.0 * 0.010);
}

}  // namespace
}  // namespace simgpu
