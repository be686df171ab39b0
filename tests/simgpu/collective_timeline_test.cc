// Collectives on the device timeline: a rank's all-reduce waits for the other
// ranks' arrivals, then transfers; it completes at the last arrival plus the
// transfer, on every rank, whichever device is simulated first; a projection
// cannot end while a rank is missing; waiting holds SMs but does no work; a
// group whose ranks span nodes transfers for its spanning time.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "simgpu/src/device_slots.h"
#include "simgpu/src/timeline.h"

namespace simgpu {
namespace {

// The rendezvous in plain memory: group 0 of `nranks` ranks, on one node
// unless `spans_nodes`.
class FakeBus : public CollectiveBus {
 public:
  explicit FakeBus(uint32_t nranks, bool spans_nodes = false)
      : nranks_(nranks), spans_nodes_(spans_nodes) {}
  void Arrive(int32_t, uint32_t rank, uint64_t seq, int64_t t_ns) override {
    arrivals_.emplace(std::make_pair(rank, seq), t_ns);  // the first report counts
  }
  std::optional<int64_t> Release(int32_t, uint32_t rank, uint64_t seq, int64_t self_ns) override {
    int64_t last = 0;
    for (uint32_t r = 0; r < nranks_; ++r) {
      auto it = arrivals_.find({r, seq});
      if (it != arrivals_.end()) {
        last = std::max(last, it->second);
      } else if (r == rank) {
        last = std::max(last, self_ns);
      } else {
        return std::nullopt;
      }
    }
    return last;
  }
  bool SpansNodes(int32_t) override { return spans_nodes_; }
  std::optional<int64_t> ArrivalOf(uint32_t rank, uint64_t seq) const {
    auto it = arrivals_.find({rank, seq});
    if (it == arrivals_.end()) return std::nullopt;
    return it->second;
  }

 private:
  uint32_t nranks_;
  bool spans_nodes_;
  std::map<std::pair<uint32_t, uint64_t>, int64_t> arrivals_;
};

// One simulated device with one process and one stream.
struct Device {
  Device() : state(std::make_unique<DeviceState>()) {
    DeviceSpec spec{};
    spec.memory_bytes = 1ULL << 30;
    spec.sm_count = 80;
    spec.idle_watts = 40;
    spec.max_watts = 300;
    InitDeviceState(*state, spec, 0);
    proc = RegisterProcess(*state, 1, 0);
    stream = AllocStream(*state, proc);
  }
  std::unique_ptr<DeviceState> state;
  int proc = -1;
  int stream = -1;
};

Op Kernel(double ms) {
  Op op{};
  op.kind = OpKind::kKernel;
  op.remaining_ns = ms * 1e6;
  op.mem_intensity = 0.5f;
  op.sm_fill = 1.0f;
  op.event_slot = -1;
  return op;
}

// Its transfer takes `transfer_ms`, or `spanning_ms` if the group spans nodes.
Op AllReduce(uint32_t rank, uint64_t seq, double transfer_ms, double spanning_ms = -1) {
  Op op{};
  op.kind = OpKind::kCollectiveWaiting;
  op.remaining_ns = transfer_ms * 1e6;
  op.spanning_ns = (spanning_ms < 0 ? transfer_ms : spanning_ms) * 1e6;
  op.mem_intensity = 0.1f;
  op.sm_fill = 0.05f;
  op.event_slot = 0;
  op.event_generation = rank;
  op.collective_seq = seq;
  return op;
}

constexpr int64_t kMs = 1'000'000;

TEST(CollectiveTimelineTest, EveryRankCompletesAtTheLastArrivalPlusTheTransfer) {
  FakeBus bus(2);
  InterferenceParams params;
  Device a, b;
  // Rank 0 computes 10 ms, rank 1 30 ms; the all-reduce then moves 5 ms.
  ASSERT_TRUE(Enqueue(*a.state, a.stream, Kernel(10), nullptr));
  ASSERT_TRUE(Enqueue(*a.state, a.stream, AllReduce(0, 1, 5), nullptr));
  ASSERT_TRUE(Enqueue(*b.state, b.stream, Kernel(30), nullptr));
  ASSERT_TRUE(Enqueue(*b.state, b.stream, AllReduce(1, 1, 5), nullptr));

  Advance(*a.state, 20 * kMs, params, &bus);
  EXPECT_EQ(bus.ArrivalOf(0, 1), 10 * kMs);
  EXPECT_EQ(a.state->streams[a.stream].completed, 1u);  // waiting for rank 1

  Advance(*b.state, 34 * kMs, params, &bus);
  EXPECT_EQ(bus.ArrivalOf(1, 1), 30 * kMs);
  EXPECT_EQ(b.state->streams[b.stream].completed, 1u);  // transferring until 35 ms
  Advance(*b.state, 35 * kMs, params, &bus);
  EXPECT_EQ(b.state->streams[b.stream].completed, 2u);

  // Rank 0's device learns of the release only now, but was last simulated
  // before it: it waits until 30 ms and transfers until 35 ms, as rank 1 did.
  Advance(*a.state, 34 * kMs, params, &bus);
  EXPECT_EQ(a.state->streams[a.stream].completed, 1u);
  Advance(*a.state, 35 * kMs, params, &bus);
  EXPECT_EQ(a.state->streams[a.stream].completed, 2u);
}

TEST(CollectiveTimelineTest, AReleaseLearnedLateIsCreditedTheTransferSinceIt) {
  FakeBus bus(2);
  InterferenceParams params;
  Device a, b;
  ASSERT_TRUE(Enqueue(*a.state, a.stream, AllReduce(0, 1, 8), nullptr));
  ASSERT_TRUE(Enqueue(*b.state, b.stream, Kernel(10), nullptr));
  ASSERT_TRUE(Enqueue(*b.state, b.stream, AllReduce(1, 1, 8), nullptr));
  Advance(*a.state, 12 * kMs, params, &bus);  // rank 1 not yet known to have arrived
  Advance(*b.state, 12 * kMs, params, &bus);  // arrives at 10 ms
  // Rank 0 passed 10 ms waiting; the 2 ms since the release count as transfer.
  Advance(*a.state, 17 * kMs + 999'000, params, &bus);
  EXPECT_EQ(a.state->streams[a.stream].completed, 0u);
  Advance(*a.state, 18 * kMs, params, &bus);
  EXPECT_EQ(a.state->streams[a.stream].completed, 1u);
}

TEST(CollectiveTimelineTest, AProjectionEndsOnlyOnceEveryOtherRankHasArrived) {
  FakeBus bus(2);
  InterferenceParams params;
  Device a, b;
  ASSERT_TRUE(Enqueue(*a.state, a.stream, Kernel(10), nullptr));
  uint64_t seq = 0;
  ASSERT_TRUE(Enqueue(*a.state, a.stream, AllReduce(0, 1, 5), &seq));
  PendingWork work;
  SnapshotPendingWork(*a.state, work);
  EXPECT_EQ(ProjectCompletion(work, a.stream, seq, params, &bus), kNeverNs);

  // Rank 1 arrives at 20 ms: rank 0, projected to arrive at 10 ms, ends at 25 ms.
  ASSERT_TRUE(Enqueue(*b.state, b.stream, Kernel(20), nullptr));
  ASSERT_TRUE(Enqueue(*b.state, b.stream, AllReduce(1, 1, 5), nullptr));
  Advance(*b.state, 21 * kMs, params, &bus);
  SnapshotPendingWork(*a.state, work);
  EXPECT_EQ(ProjectCompletion(work, a.stream, seq, params, &bus), 25 * kMs);
  // A projection reports no arrival of its own.
  EXPECT_FALSE(bus.ArrivalOf(0, 1).has_value());
}

TEST(CollectiveTimelineTest, WaitingHoldsItsSmsButDoesNoWork) {
  FakeBus bus(2);
  InterferenceParams params;
  Device a;
  ASSERT_TRUE(Enqueue(*a.state, a.stream, AllReduce(0, 1, 5), nullptr));
  Advance(*a.state, 50 * kMs, params, &bus);
  EXPECT_EQ(a.state->streams[a.stream].completed, 0u);
  EXPECT_DOUBLE_EQ(a.state->busy_ns, 50.0 * kMs);  // NCCL's kernels spin: the GPU is busy
  EXPECT_DOUBLE_EQ(a.state->procs[a.proc].work_ns, 0.0);
  EXPECT_EQ(a.state->procs[a.proc].kernels_launched, 1u);
}

TEST(CollectiveTimelineTest, OneRankCompletesAtOnce) {
  FakeBus bus(1);
  InterferenceParams params;
  Device a;
  ASSERT_TRUE(Enqueue(*a.state, a.stream, AllReduce(0, 1, 0), nullptr));
  Advance(*a.state, 1, params, &bus);
  EXPECT_EQ(a.state->streams[a.stream].completed, 1u);
  EXPECT_EQ(a.state->procs[a.proc].kernels_completed, 1u);
}

// The same two ranks, within a node and across nodes: the transfer after the
// last arrival (10 ms) is the link's 5 ms or the fabric's 40 ms, on both ranks.
TEST(CollectiveTimelineTest, AGroupSpanningNodesTransfersForItsSpanningTime) {
  for (const bool spans : {false, true}) {
    FakeBus bus(2, spans);
    InterferenceParams params;
    Device a, b;
    uint64_t seq = 0;
    ASSERT_TRUE(Enqueue(*a.state, a.stream, AllReduce(0, 1, 5, 40), &seq));
    ASSERT_TRUE(Enqueue(*b.state, b.stream, Kernel(10), nullptr));
    ASSERT_TRUE(Enqueue(*b.state, b.stream, AllReduce(1, 1, 5, 40), nullptr));
    const int64_t end = (spans ? 50 : 15) * kMs;
    Advance(*a.state, 1 * kMs, params, &bus);
    Advance(*b.state, end - 1, params, &bus);
    EXPECT_EQ(b.state->streams[b.stream].completed, 1u) << "spans " << spans;
    Advance(*b.state, end, params, &bus);
    EXPECT_EQ(b.state->streams[b.stream].completed, 2u) << "spans " << spans;
    // Rank 0 learns of the release late: projected and simulated, it ends
    // with rank 1.
    PendingWork work;
    SnapshotPendingWork(*a.state, work);
    EXPECT_EQ(ProjectCompletion(work, a.stream, seq, params, &bus), end) << "spans " << spans;
    Advance(*a.state, end - 1, params, &bus);
    EXPECT_EQ(a.state->streams[a.stream].completed, 0u) << "spans " << spans;
    Advance(*a.state, end, params, &bus);
    EXPECT_EQ(a.state->streams[a.stream].completed, 1u) << "spans " << spans;
  }
}

TEST(CollectiveTimelineTest, WithoutABusACollectiveWaitsForEver) {
  InterferenceParams params;
  Device a;
  ASSERT_TRUE(Enqueue(*a.state, a.stream, AllReduce(0, 1, 1), nullptr));
  Advance(*a.state, 1000 * kMs, params);
  EXPECT_EQ(a.state->streams[a.stream].completed, 0u);
}

}  // namespace
}  // namespace simgpu
