#include "simgpu/src/device_slots.h"

#include <gtest/gtest.h>

#include <memory>

#include "simgpu/src/timeline.h"

namespace simgpu {
namespace {

std::unique_ptr<DeviceState> NewDevice(uint64_t memory) {
  auto s = std::make_unique<DeviceState>();
  DeviceSpec spec{};
  spec.memory_bytes = memory;
  spec.sm_count = 80;
  InitDeviceState(*s, spec, 0);
  return s;
}

TEST(DeviceSlots, MemoryIsSharedAcrossProcesses) {
  auto s = NewDevice(1000);
  const int a = RegisterProcess(*s, 10, 1);
  const int b = RegisterProcess(*s, 11, 1);
  EXPECT_TRUE(ReserveMemory(*s, a, 600));
  EXPECT_FALSE(ReserveMemory(*s, b, 500));
  EXPECT_TRUE(ReserveMemory(*s, b, 400));
  EXPECT_EQ(s->mem_used, 1000u);
  ReturnMemory(*s, a, 600);
  EXPECT_TRUE(ReserveMemory(*s, b, 500));
  EXPECT_FALSE(ReserveMemory(*s, b, UINT64_MAX));
}

TEST(DeviceSlots, RegisteringTwiceReturnsTheSameSlot) {
  auto s = NewDevice(1000);
  EXPECT_EQ(RegisterProcess(*s, 10, 5), RegisterProcess(*s, 10, 5));
  // Same pid, different start time: a reused pid is a different process.
  EXPECT_NE(RegisterProcess(*s, 10, 5), RegisterProcess(*s, 10, 6));
}

TEST(DeviceSlots, ReapingADeadProcessFreesEverything) {
  auto s = NewDevice(1000);
  const int dead = RegisterProcess(*s, 10, 1);
  const int live = RegisterProcess(*s, 11, 1);
  ASSERT_TRUE(ReserveMemory(*s, dead, 700));
  const int st = AllocStream(*s, dead);
  Op op{};
  op.kind = OpKind::kKernel;
  op.remaining_ns = 1e9;
  op.sm_fill = 1;
  ASSERT_TRUE(Enqueue(*s, st, op, nullptr));
  const int ev = AllocEvent(*s, dead);
  EXPECT_EQ(ReapDeadProcesses(*s, [](int32_t pid, uint64_t) { return pid == 11; }), 1);
  EXPECT_EQ(s->mem_used, 0u);
  EXPECT_EQ(s->streams[st].state, SlotState::kFree);
  EXPECT_EQ(s->events[ev].in_use, 0u);
  EXPECT_TRUE(s->procs[live].in_use);
  EXPECT_TRUE(ReserveMemory(*s, live, 1000));
}

TEST(DeviceSlots, ReleasedStreamDrainsBeforeItIsFree) {
  auto s = NewDevice(1000);
  const int p = RegisterProcess(*s, 10, 1);
  const int st = AllocStream(*s, p);
  Op op{};
  op.kind = OpKind::kKernel;
  op.remaining_ns = 1000;
  op.sm_fill = 1;
  ASSERT_TRUE(Enqueue(*s, st, op, nullptr));
  ReleaseStream(*s, st);
  EXPECT_EQ(s->streams[st].state, SlotState::kDraining);
  Advance(*s, 2000, InterferenceParams{});
  EXPECT_EQ(s->streams[st].state, SlotState::kFree);
}

TEST(DeviceSlots, ProcessSlotsRunOut) {
  auto s = NewDevice(1000);
  for (int i = 0; i < kMaxProcesses; ++i) ASSERT_GE(RegisterProcess(*s, 100 + i, 1), 0);
  EXPECT_EQ(RegisterProcess(*s, 5000, 1), -1);
}

}  // namespace
}  // namespace simgpu
