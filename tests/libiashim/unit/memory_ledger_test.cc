#include "libiashim/src/memory_ledger.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

namespace iashim {
namespace {

using Kind = MemoryLedger::Kind;

// Reserve then Record, as the allocation hooks do after a successful call.
bool Allocate(MemoryLedger& ledger, Kind kind, uint64_t key, int device, uint64_t bytes) {
  if (!ledger.Reserve(device, bytes)) return false;
  ledger.Record(kind, key, device, bytes);
  return true;
}

TEST(MemoryLedger, StartsEmpty) {
  MemoryLedger ledger(1000);
  EXPECT_EQ(ledger.limit(), 1000u);
  EXPECT_EQ(ledger.device_count(), 0);
  EXPECT_EQ(ledger.untracked(), 0u);
  for (int d : {0, 1, MemoryLedger::kMaxDevices - 1}) {
    EXPECT_EQ(ledger.used(d), 0u);
    EXPECT_EQ(ledger.peak(d), 0u);
    EXPECT_EQ(ledger.refused(d), 0u);
  }
}

TEST(MemoryLedger, ReservesUpToTheExactLimit) {
  MemoryLedger ledger(1000);
  EXPECT_TRUE(ledger.Reserve(0, 600));
  EXPECT_TRUE(ledger.Reserve(0, 400));  // exactly at the limit is allowed
  EXPECT_EQ(ledger.used(0), 1000u);
  EXPECT_FALSE(ledger.Reserve(0, 1));
  EXPECT_EQ(ledger.used(0), 1000u);  // a refusal takes nothing
  EXPECT_TRUE(ledger.Reserve(0, 0));
}

TEST(MemoryLedger, RefusalsAreCountedPerDevice) {
  MemoryLedger ledger(100);
  EXPECT_FALSE(ledger.Reserve(0, 101));
  EXPECT_FALSE(ledger.Reserve(0, 500));
  EXPECT_TRUE(ledger.Reserve(1, 100));
  EXPECT_FALSE(ledger.Reserve(1, 1));
  EXPECT_EQ(ledger.refused(0), 2u);
  EXPECT_EQ(ledger.refused(1), 1u);
  EXPECT_EQ(ledger.refused(2), 0u);
  // The quota is per device: device 0 is still empty.
  EXPECT_EQ(ledger.used(0), 0u);
  EXPECT_TRUE(ledger.Reserve(0, 100));
}

TEST(MemoryLedger, UnreserveGivesBackAFailedAllocation) {
  MemoryLedger ledger(100);
  ASSERT_TRUE(ledger.Reserve(0, 100));
  ledger.Unreserve(0, 100);
  EXPECT_EQ(ledger.used(0), 0u);
  EXPECT_TRUE(ledger.Reserve(0, 100));
}

TEST(MemoryLedger, RecordAndForgetReturnTheBytes) {
  MemoryLedger ledger(1000);
  ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x7f0000001000, 0, 700));
  EXPECT_FALSE(ledger.Reserve(0, 301));
  EXPECT_TRUE(ledger.Forget(Kind::kPointer, 0x7f0000001000));
  EXPECT_EQ(ledger.used(0), 0u);
  EXPECT_TRUE(ledger.Reserve(0, 1000));
}

TEST(MemoryLedger, ForgetReturnsToTheRecordedDevice) {
  MemoryLedger ledger(0);
  ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x1000, 0, 10));
  ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x2000, 3, 30));
  ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x3000, 63, 63));
  EXPECT_TRUE(ledger.Forget(Kind::kPointer, 0x2000));
  EXPECT_EQ(ledger.used(0), 10u);
  EXPECT_EQ(ledger.used(3), 0u);
  EXPECT_EQ(ledger.used(63), 63u);
  EXPECT_TRUE(ledger.Forget(Kind::kPointer, 0x3000));
  EXPECT_EQ(ledger.used(63), 0u);
}

// The free hooks' order (allocation_path.h, Deallocate): out of the table
// before the real free, so the address the driver hands out again at once,
// here to another device's allocation, is that allocation's alone.
TEST(MemoryLedger, AnAddressReusedDuringAFreeIsChargedToItsNewDevice) {
  MemoryLedger ledger(0);
  ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x1000, 0, 8));
  const std::optional<MemoryLedger::Allocation> taken = ledger.Detach(Kind::kPointer, 0x1000);
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->device, 0);
  EXPECT_EQ(taken->bytes, 8u);
  EXPECT_EQ(ledger.used(0), 8u);  // still counted until the free succeeded
  // The driver freed 0x1000 and another thread got it, on device 1.
  ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x1000, 1, 8));
  ledger.Return(*taken);
  EXPECT_EQ(ledger.used(0), 0u);
  EXPECT_EQ(ledger.used(1), 8u);
  EXPECT_TRUE(ledger.Forget(Kind::kPointer, 0x1000));  // the other thread's free
  EXPECT_EQ(ledger.used(1), 0u);
  EXPECT_FALSE(ledger.Detach(Kind::kPointer, 0x1000));
}

TEST(MemoryLedger, AFailedFreePutsTheRecordBack) {
  MemoryLedger ledger(100);
  ASSERT_TRUE(Allocate(ledger, Kind::kArray, 0x2000, 2, 60));
  const std::optional<MemoryLedger::Allocation> taken = ledger.Detach(Kind::kArray, 0x2000);
  ASSERT_TRUE(taken);
  EXPECT_FALSE(ledger.Reserve(2, 60));  // the bytes stay taken meanwhile
  ledger.Reattach(*taken);
  EXPECT_EQ(ledger.used(2), 60u);
  EXPECT_TRUE(ledger.Forget(Kind::kArray, 0x2000));
  EXPECT_EQ(ledger.used(2), 0u);
}

TEST(MemoryLedger, ForgetOfUnknownKeyChangesNothing) {
  MemoryLedger ledger(1000);
  ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x1000, 0, 100));
  EXPECT_FALSE(ledger.Forget(Kind::kPointer, 0x2000));
  EXPECT_FALSE(ledger.Forget(Kind::kPointer, 0));            // the empty-slot marker
  EXPECT_FALSE(ledger.Forget(Kind::kPointer, ~uint64_t(0)));  // the tombstone marker
  EXPECT_FALSE(ledger.Forget(Kind::kVmmHandle, 0x1000));     // other table
  EXPECT_EQ(ledger.used(0), 100u);
  // A second free of the same pointer is unknown too.
  EXPECT_TRUE(ledger.Forget(Kind::kPointer, 0x1000));
  EXPECT_FALSE(ledger.Forget(Kind::kPointer, 0x1000));
  EXPECT_EQ(ledger.used(0), 0u);
}

TEST(MemoryLedger, NoLimitIsAccountingOnly) {
  MemoryLedger ledger(0);
  EXPECT_TRUE(ledger.Reserve(0, 1ULL << 50));
  EXPECT_TRUE(ledger.Reserve(0, 1ULL << 50));
  EXPECT_EQ(ledger.used(0), 2ULL << 50);
  EXPECT_EQ(ledger.refused(0), 0u);
  // Only a sum that would wrap around is refused.
  EXPECT_FALSE(ledger.Reserve(0, ~uint64_t(0)));
  EXPECT_EQ(ledger.used(0), 2ULL << 50);
}

TEST(MemoryLedger, PeakIsTheHighWaterMark) {
  MemoryLedger ledger(0);
  ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x1000, 0, 100));
  ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x2000, 0, 50));
  EXPECT_EQ(ledger.peak(0), 150u);
  ASSERT_TRUE(ledger.Forget(Kind::kPointer, 0x1000));
  ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x3000, 0, 20));
  EXPECT_EQ(ledger.used(0), 70u);
  EXPECT_EQ(ledger.peak(0), 150u);
  EXPECT_EQ(ledger.peak(1), 0u);
}

TEST(MemoryLedger, RefusedReservationDoesNotRaisePeak) {
  MemoryLedger ledger(100);
  EXPECT_FALSE(ledger.Reserve(0, 200));
  EXPECT_EQ(ledger.peak(0), 0u);
}

TEST(MemoryLedger, DeviceCountIsHighestDeviceUsedPlusOne) {
  MemoryLedger ledger(100);
  EXPECT_TRUE(ledger.Reserve(2, 10));
  EXPECT_EQ(ledger.device_count(), 3);
  EXPECT_TRUE(ledger.Reserve(0, 10));
  EXPECT_EQ(ledger.device_count(), 3);
  EXPECT_FALSE(ledger.Reserve(9, 1000));  // refused: device 9 never held memory
  EXPECT_EQ(ledger.device_count(), 3);
  ledger.Unreserve(2, 10);
  EXPECT_EQ(ledger.device_count(), 3);  // "ever held", not "holds now"
}

TEST(MemoryLedger, DevicesOutOfRangeAreNotLimited) {
  MemoryLedger ledger(100);
  EXPECT_TRUE(ledger.Reserve(-1, 1000));
  EXPECT_TRUE(ledger.Reserve(MemoryLedger::kMaxDevices, 1000));
  EXPECT_EQ(ledger.used(-1), 0u);
  EXPECT_EQ(ledger.used(MemoryLedger::kMaxDevices), 0u);
  EXPECT_EQ(ledger.refused(-1), 0u);
  EXPECT_EQ(ledger.device_count(), 0);
  // Recording one is a no-op, so its free is unknown.
  ledger.Record(Kind::kPointer, 0x1000, -1, 1000);
  EXPECT_FALSE(ledger.Forget(Kind::kPointer, 0x1000));
  EXPECT_EQ(ledger.untracked(), 0u);
}

// A pointer and a VMM handle can have the same numeric value; they live in
// separate tables so freeing one never returns the other's bytes.
TEST(MemoryLedger, PointersAndVmmHandlesAreSeparate) {
  MemoryLedger ledger(0);
  ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x42, 0, 100));
  ASSERT_TRUE(Allocate(ledger, Kind::kVmmHandle, 0x42, 1, 7));
  EXPECT_TRUE(ledger.Forget(Kind::kVmmHandle, 0x42));
  EXPECT_EQ(ledger.used(0), 100u);
  EXPECT_EQ(ledger.used(1), 0u);
  EXPECT_FALSE(ledger.Forget(Kind::kVmmHandle, 0x42));
  EXPECT_TRUE(ledger.Forget(Kind::kPointer, 0x42));
  EXPECT_EQ(ledger.used(0), 0u);
}

// Keys the table cannot hold and sizes it cannot encode fail open: untracked,
// and the reservation is returned so the quota does not leak.
TEST(MemoryLedger, UnrecordableAllocationsAreUntracked) {
  MemoryLedger ledger(0);
  ASSERT_TRUE(ledger.Reserve(0, 10));
  ledger.Record(Kind::kPointer, 0, 0, 10);
  EXPECT_EQ(ledger.untracked(), 1u);
  EXPECT_EQ(ledger.used(0), 0u);

  ASSERT_TRUE(ledger.Reserve(0, 10));
  ledger.Record(Kind::kPointer, ~uint64_t(0), 0, 10);
  EXPECT_EQ(ledger.untracked(), 2u);
  EXPECT_EQ(ledger.used(0), 0u);

  const uint64_t huge = uint64_t(1) << 48;  // 256 TiB: past what a record holds
  ASSERT_TRUE(ledger.Reserve(0, huge));
  ledger.Record(Kind::kPointer, 0x1000, 0, huge);
  EXPECT_EQ(ledger.untracked(), 3u);
  EXPECT_EQ(ledger.used(0), 0u);
  EXPECT_FALSE(ledger.Forget(Kind::kPointer, 0x1000));
}

TEST(MemoryLedger, LargestEncodableSizeIsTracked) {
  MemoryLedger ledger(0);
  const uint64_t bytes = (uint64_t(1) << 48) - 1;
  ASSERT_TRUE(Allocate(ledger, Kind::kVmmHandle, 0x1000, 5, bytes));
  EXPECT_EQ(ledger.untracked(), 0u);
  EXPECT_EQ(ledger.used(5), bytes);
  EXPECT_TRUE(ledger.Forget(Kind::kVmmHandle, 0x1000));
  EXPECT_EQ(ledger.used(5), 0u);
}

// The driver frees a context's memory with the context: ReleaseContext gives
// back every pointer and array of that context, whatever its device, and
// nothing of another context, of no context, or a VMM handle (which outlives
// contexts).
TEST(MemoryLedger, ReleaseContextGivesBackWhatThatContextHeld) {
  MemoryLedger ledger(0);
  auto record = [&](Kind kind, uint64_t key, int device, uint64_t bytes, uint8_t context) {
    ASSERT_TRUE(ledger.Reserve(device, bytes));
    ledger.Record(kind, key, device, bytes, context);
  };
  record(Kind::kPointer, 0x1000, 0, 100, 1);
  record(Kind::kPointer, 0x2000, 1, 200, 1);  // a graph's node on another device
  record(Kind::kArray, 0x3000, 0, 300, 1);
  record(Kind::kVmmHandle, 0x4000, 0, 400, 1);
  record(Kind::kPointer, 0x5000, 0, 500, 2);
  record(Kind::kPointer, 0x6000, 0, 600, MemoryLedger::kNoContext);
  EXPECT_EQ(ledger.used(0), 1900u);

  EXPECT_EQ(ledger.ReleaseContext(1), 3u);
  EXPECT_EQ(ledger.used(0), 1500u);
  EXPECT_EQ(ledger.used(1), 0u);
  EXPECT_FALSE(ledger.Forget(Kind::kPointer, 0x1000));  // already given back
  EXPECT_EQ(ledger.ReleaseContext(MemoryLedger::kNoContext), 0u);
  EXPECT_EQ(ledger.ReleaseContext(1), 0u);
  // What stays is freed as before, and a detached record keeps its context.
  const auto a = ledger.Detach(Kind::kPointer, 0x5000);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->context, 2);
  ledger.Reattach(*a);
  EXPECT_EQ(ledger.ReleaseContext(2), 1u);
  EXPECT_TRUE(ledger.Forget(Kind::kVmmHandle, 0x4000));
  EXPECT_TRUE(ledger.Forget(Kind::kPointer, 0x6000));
  EXPECT_EQ(ledger.used(0), 0u);
}

// Keys that all hash to the table's slot 0. The table hashes with a Fibonacci
// multiply (key * 0x9E3779B97F4A7C15, top 17 bits), so key_i = i * inverse
// gives key_i * multiplier = i, whose top bits are 0. White-box on purpose:
// it is the only way to reach "table full" without 131072 inserts.
std::vector<uint64_t> CollidingKeys(int n) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  uint64_t inverse = kMul;  // Newton's iteration for the inverse mod 2^64
  for (int i = 0; i < 6; ++i) inverse *= 2 - kMul * inverse;
  EXPECT_EQ(kMul * inverse, 1u);
  std::vector<uint64_t> keys;
  for (uint64_t i = 1; keys.size() < size_t(n); ++i) {
    const uint64_t key = i * inverse;
    if (key < ~uint64_t(0) - 1) keys.push_back(key);  // never the reserved markers
  }
  return keys;
}

constexpr int kMaxProbes = 256;  // MemoryLedger's probe limit

TEST(MemoryLedger, FullProbeRangeLeavesAllocationUntracked) {
  MemoryLedger ledger(0);
  const std::vector<uint64_t> keys = CollidingKeys(kMaxProbes + 1);
  for (int i = 0; i < kMaxProbes; ++i) {
    ASSERT_TRUE(Allocate(ledger, Kind::kPointer, keys[i], 0, 1));
  }
  EXPECT_EQ(ledger.untracked(), 0u);
  EXPECT_EQ(ledger.used(0), uint64_t(kMaxProbes));
  // The next colliding key finds no free slot within the probe limit.
  ASSERT_TRUE(ledger.Reserve(0, 1000));
  ledger.Record(Kind::kPointer, keys[kMaxProbes], 0, 1000);
  EXPECT_EQ(ledger.untracked(), 1u);
  EXPECT_EQ(ledger.used(0), uint64_t(kMaxProbes));  // its reservation was returned
  EXPECT_FALSE(ledger.Forget(Kind::kPointer, keys[kMaxProbes]));
  // The other table is unaffected.
  EXPECT_TRUE(Allocate(ledger, Kind::kVmmHandle, keys[kMaxProbes], 1, 5));
  EXPECT_TRUE(ledger.Forget(Kind::kVmmHandle, keys[kMaxProbes]));
}

// A freed slot becomes a tombstone that later inserts reuse; keys beyond it in
// the same probe run stay findable.
TEST(MemoryLedger, FreedSlotsAreReused) {
  MemoryLedger ledger(0);
  const std::vector<uint64_t> keys = CollidingKeys(kMaxProbes + 1);
  for (int i = 0; i < kMaxProbes; ++i) {
    ASSERT_TRUE(Allocate(ledger, Kind::kPointer, keys[i], 0, i + 1));
  }
  ASSERT_TRUE(ledger.Forget(Kind::kPointer, keys[10]));
  ASSERT_TRUE(Allocate(ledger, Kind::kPointer, keys[kMaxProbes], 0, 1000));
  EXPECT_EQ(ledger.untracked(), 0u);
  // Every key, including those probed past the reused slot, frees its own bytes.
  uint64_t expected = ledger.used(0);
  for (int i = 0; i < kMaxProbes; ++i) {
    if (i == 10) continue;
    ASSERT_TRUE(ledger.Forget(Kind::kPointer, keys[i])) << i;
    expected -= uint64_t(i + 1);
    EXPECT_EQ(ledger.used(0), expected);
  }
  ASSERT_TRUE(ledger.Forget(Kind::kPointer, keys[kMaxProbes]));
  EXPECT_EQ(ledger.used(0), 0u);
}

// Many allocate/free cycles through the same slots never exhaust the table.
TEST(MemoryLedger, ChurnDoesNotFillTheTable) {
  MemoryLedger ledger(1 << 20);
  for (uint64_t round = 0; round < 20000; ++round) {
    const uint64_t key = 0x7f0000000000 + (round % 64) * 4096;
    ASSERT_TRUE(Allocate(ledger, Kind::kPointer, key, 0, 4096));
    ASSERT_TRUE(ledger.Forget(Kind::kPointer, key));
  }
  EXPECT_EQ(ledger.untracked(), 0u);
  EXPECT_EQ(ledger.used(0), 0u);
}

TEST(MemoryLedger, ManyAllocationsOfDistinctPointers) {
  MemoryLedger ledger(0);
  constexpr int kCount = 50000;
  for (int i = 0; i < kCount; ++i) {
    ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x7f0000000000 + uint64_t(i) * 512, i % 4, 512));
  }
  EXPECT_EQ(ledger.untracked(), 0u);
  for (int d = 0; d < 4; ++d) EXPECT_EQ(ledger.used(d), uint64_t(kCount / 4) * 512);
  for (int i = 0; i < kCount; ++i) {
    ASSERT_TRUE(ledger.Forget(Kind::kPointer, 0x7f0000000000 + uint64_t(i) * 512));
  }
  for (int d = 0; d < 4; ++d) EXPECT_EQ(ledger.used(d), 0u);
}

// Threads allocate and free their own pointers concurrently; the totals come
// out exact. Small enough to run under TSan.
TEST(MemoryLedger, ConcurrentAllocateAndFreeEndExact) {
  MemoryLedger ledger(0);
  constexpr int kThreads = 8;
  constexpr int kPerThread = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&ledger, t] {
      const int device = t % 2;
      for (int i = 0; i < kPerThread; ++i) {
        const uint64_t key = (uint64_t(t + 1) << 32) | (uint64_t(i + 1) << 4);
        ASSERT_TRUE(Allocate(ledger, Kind::kPointer, key, device, 100 + i));
        // Free every other one straight away; the rest stay allocated.
        if (i % 2 == 0) {
          ASSERT_TRUE(ledger.Forget(Kind::kPointer, key));
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  uint64_t remaining_per_thread = 0;
  for (int i = 1; i < kPerThread; i += 2) remaining_per_thread += 100 + i;
  EXPECT_EQ(ledger.used(0), remaining_per_thread * (kThreads / 2));
  EXPECT_EQ(ledger.used(1), remaining_per_thread * (kThreads / 2));
  EXPECT_EQ(ledger.untracked(), 0u);
  EXPECT_EQ(ledger.device_count(), 2);
}

// With a quota, concurrent reservations never overshoot it together, and
// every attempt is either granted or counted as refused.
TEST(MemoryLedger, ConcurrentReservationsRespectTheLimit) {
  constexpr uint64_t kLimit = 10'000;
  MemoryLedger ledger(kLimit);
  constexpr int kThreads = 8;
  constexpr int kPerThread = 400;
  std::atomic<uint64_t> granted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const uint64_t key = (uint64_t(t + 1) << 32) | (uint64_t(i + 1) << 4);
        if (!Allocate(ledger, Kind::kVmmHandle, key, 0, 700)) continue;
        granted.fetch_add(1);
        EXPECT_LE(ledger.used(0), kLimit);
        ASSERT_TRUE(ledger.Forget(Kind::kVmmHandle, key));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(granted.load() + ledger.refused(0), uint64_t(kThreads * kPerThread));
  EXPECT_LE(ledger.peak(0), kLimit);
  EXPECT_EQ(ledger.used(0), 0u);
}

// Two threads freeing the same pointers race: each one is returned once.
TEST(MemoryLedger, ConcurrentDoubleFreeReturnsBytesOnce) {
  MemoryLedger ledger(0);
  constexpr int kKeys = 1000;
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(Allocate(ledger, Kind::kPointer, 0x10000 + uint64_t(i) * 16, 0, 3));
  }
  std::atomic<int> forgotten{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kKeys; ++i) {
        if (ledger.Forget(Kind::kPointer, 0x10000 + uint64_t(i) * 16)) forgotten.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(forgotten.load(), kKeys);
  EXPECT_EQ(ledger.used(0), 0u);
}

}  // namespace
}  // namespace iashim
