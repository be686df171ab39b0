#include "libiashim/src/context_slots.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace iashim {
namespace {

CUcontext Ctx(uintptr_t n) { return reinterpret_cast<CUcontext>(n * 64); }

TEST(ContextSlots, EachContextKeepsOneNumberUntilDropped) {
  ContextSlots slots;
  EXPECT_EQ(slots.SlotOf(nullptr), MemoryLedger::kNoContext);
  const uint8_t a = slots.SlotOf(Ctx(1));
  const uint8_t b = slots.SlotOf(Ctx(2));
  EXPECT_NE(a, MemoryLedger::kNoContext);
  EXPECT_NE(b, MemoryLedger::kNoContext);
  EXPECT_NE(a, b);
  EXPECT_EQ(slots.SlotOf(Ctx(1)), a);
  EXPECT_EQ(slots.Find(Ctx(2)), b);
  EXPECT_EQ(slots.Find(Ctx(3)), MemoryLedger::kNoContext);  // Find gives none out
  slots.Drop(Ctx(1));
  EXPECT_EQ(slots.Find(Ctx(1)), MemoryLedger::kNoContext);
  EXPECT_EQ(slots.SlotOf(Ctx(3)), a);  // the number is used again
}

TEST(ContextSlots, PastTwoHundredFiftyFiveContextsTheRestHaveNone) {
  ContextSlots slots;
  for (uintptr_t i = 1; i < ContextSlots::kSlots; ++i) {
    EXPECT_NE(slots.SlotOf(Ctx(i)), MemoryLedger::kNoContext) << i;
  }
  EXPECT_EQ(slots.SlotOf(Ctx(1000)), MemoryLedger::kNoContext);
  slots.Drop(Ctx(7));
  EXPECT_NE(slots.SlotOf(Ctx(1000)), MemoryLedger::kNoContext);
}

TEST(ContextSlots, ThreadsAskingAtOnceGetOneNumberPerContext) {
  ContextSlots slots;
  std::vector<uint8_t> seen(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] { seen[size_t(t)] = slots.SlotOf(Ctx(42)); });
  }
  for (std::thread& th : threads) th.join();
  for (uint8_t s : seen) EXPECT_EQ(s, seen[0]);
}

TEST(ContextSlots, PrimaryContextsByDevice) {
  ContextSlots slots;
  EXPECT_EQ(slots.Primary(0), nullptr);
  slots.NotePrimary(1, Ctx(5));
  EXPECT_EQ(slots.Primary(1), Ctx(5));
  slots.NotePrimary(-1, Ctx(6));  // out of range: ignored
  slots.NotePrimary(MemoryLedger::kMaxDevices, Ctx(6));
  EXPECT_EQ(slots.Primary(-1), nullptr);
  EXPECT_EQ(slots.Primary(MemoryLedger::kMaxDevices), nullptr);
}

}  // namespace
}  // namespace iashim
