#include "simgpu/src/timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "simgpu/src/power_model.h"

namespace simgpu {
namespace {

constexpr int64_t kUtilSamplePeriodNs = 100'000'000;
// Work below this is rounding error left by the floating-point stepping.
constexpr double kEpsilonNs = 1e-3;

// One stream's pending ops as the stepping core sees them, over either the shared
// ring (Advance) or a private copy (projection).
struct QueueCursor {
  Op* ring;
  uint32_t depth;  // ring size; 0 means a linear array
  uint32_t head;
  uint64_t pending;
  int32_t process;
  int stream;
  uint64_t completed;
  // A waiting collective at the head: its arrival was reported, and when its
  // wait ends (infinity while another rank has not arrived).
  bool arrival_reported = false;
  double wake = std::numeric_limits<double>::infinity();

  Op& Head() { return ring[head]; }
  const Op& Head() const { return ring[head]; }
  void Pop() {
    head = depth ? (head + 1) % depth : head + 1;
    --pending;
    ++completed;
    arrival_reported = false;
    wake = std::numeric_limits<double>::infinity();
  }
};

bool IsCollective(OpKind kind) {
  return kind == OpKind::kCollectiveWaiting || kind == OpKind::kCollectiveTransfer;
}

// A waiting collective at the head of `c` at time `t`: reports its arrival
// once, then asks when every rank will have arrived. Once that time has come it
// becomes the transfer (over the fabric if the group spans nodes), less the
// link time since the release if the release is learned late (another rank's
// arrival is recorded when its device is next simulated, which may be after
// this device passed the release).
template <typename Sink>
void ResolveWaitingCollective(QueueCursor& c, double t, Sink& sink) {
  Op& op = c.Head();
  if (!c.arrival_reported) {
    sink.Arrived(c, op, t);
    c.arrival_reported = true;
  }
  const std::optional<int64_t> release = sink.Release(c, op, t);
  if (!release.has_value()) {
    c.wake = std::numeric_limits<double>::infinity();
    return;
  }
  const double r = static_cast<double>(*release);
  if (r > t) {
    c.wake = r;
    return;
  }
  op.kind = OpKind::kCollectiveTransfer;
  if (sink.SpansNodes(c, op)) op.remaining_ns = op.spanning_ns;
  op.remaining_ns = std::max(0.0, op.remaining_ns - (t - r));
}

// Runs the queues from t0 towards t_end, reporting completions and intervals to
// `sink`, until t_end or until sink.Done(). Returns the time reached.
template <typename Sink>
double RunQueues(std::vector<QueueCursor>& queues, double t0, double t_end,
                 const InterferenceParams& params, Sink& sink) {
  // Plain locals, not thread_local: this also runs from an exit handler
  // (SharedDevice::ReleaseSelf), after thread-local objects are destroyed.
  std::vector<RunningItem> items;
  std::vector<double> rates;
  std::vector<size_t> owner;
  auto complete_finished = [&](double now) {
    for (size_t q = 0; q < queues.size(); ++q) {
      QueueCursor& c = queues[q];
      while (c.pending > 0 && c.Head().remaining_ns <= kEpsilonNs) {
        Op done = c.Head();
        c.Pop();
        sink.Complete(c, done, now);
      }
    }
  };
  double t = t0;
  for (;;) {
    complete_finished(t);
    if (sink.Done()) return t;
    // Collectives whose ranks have all arrived become transfers, which may
    // have nothing left to do.
    bool released = false;
    for (QueueCursor& c : queues) {
      if (c.pending == 0 || c.Head().kind != OpKind::kCollectiveWaiting) continue;
      ResolveWaitingCollective(c, t, sink);
      released |= c.Head().kind == OpKind::kCollectiveTransfer;
    }
    if (released) {
      complete_finished(t);
      if (sink.Done()) return t;
    }
    items.clear();
    owner.clear();
    for (size_t q = 0; q < queues.size(); ++q) {
      QueueCursor& c = queues[q];
      if (c.pending == 0) continue;
      const Op& op = c.Head();
      // A collective interferes as the kernel it is (its blocks hold SMs).
      const OpKind kind = IsCollective(op.kind) ? OpKind::kKernel : op.kind;
      items.push_back({kind, op.mem_intensity, op.sm_fill, c.process});
      owner.push_back(q);
    }
    if (items.empty()) return std::max(t, std::isinf(t_end) ? t : t_end);
    rates.resize(items.size());
    ComputeRates(items, rates, params);
    double dt = std::numeric_limits<double>::infinity();
    size_t first_done = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      const QueueCursor& c = queues[owner[i]];
      double finish;
      switch (c.Head().kind) {
        case OpKind::kCollectiveWaiting:  // no progress until every rank is there
          rates[i] = 0;
          finish = c.wake - t;
          break;
        case OpKind::kCollectiveTransfer:  // link time: SM contention does not slow it
          rates[i] = 1;
          finish = c.Head().remaining_ns;
          break;
        default:
          finish = c.Head().remaining_ns / rates[i];
      }
      if (finish < dt) {
        dt = finish;
        first_done = i;
      }
    }
    // Only ranks that have not arrived yet are left: a projection cannot end.
    if (std::isinf(dt) && std::isinf(t_end)) return t_end;
    const bool reaches_end = t + dt > t_end;
    if (reaches_end) dt = t_end - t;
    for (size_t i = 0; i < items.size(); ++i) {
      Op& op = queues[owner[i]].Head();
      if (op.kind == OpKind::kCollectiveWaiting) continue;
      op.remaining_ns -= rates[i] * dt;
      if (!reaches_end && i == first_done) op.remaining_ns = 0;
    }
    sink.Interval(items, rates, dt);
    if (reaches_end) {
      complete_finished(t_end);
      return t_end;
    }
    t += dt;
  }
}

// Applies what happened to the shared state.
class StateSink {
 public:
  StateSink(DeviceState& s, CollectiveBus* bus) : s_(s), bus_(bus) {}

  void Arrived(const QueueCursor&, const Op& op, double t) {
    if (bus_ != nullptr) {
      bus_->Arrive(op.event_slot, op.event_generation, op.collective_seq, std::llround(t));
    }
  }
  std::optional<int64_t> Release(const QueueCursor&, const Op& op, double t) {
    if (bus_ == nullptr) return std::nullopt;
    return bus_->Release(op.event_slot, op.event_generation, op.collective_seq, std::llround(t));
  }
  bool SpansNodes(const QueueCursor&, const Op& op) {
    return bus_ != nullptr && bus_->SpansNodes(op.event_slot);
  }

  void Complete(QueueCursor& c, const Op& op, double t) {
    StreamSlot& slot = s_.streams[c.stream];
    slot.head = c.head;
    slot.completed = c.completed;
    if ((op.kind == OpKind::kKernel || IsCollective(op.kind)) && c.process >= 0)
      s_.procs[c.process].kernels_completed++;
    if (op.kind == OpKind::kEventRecord && op.event_slot >= 0 && op.event_slot < kMaxEvents) {
      EventSlot& e = s_.events[op.event_slot];
      if (e.in_use && e.generation == op.event_generation) {
        e.done = 1;
        e.time_ns = static_cast<int64_t>(std::llround(t));
      }
    }
  }

  void Interval(const std::vector<RunningItem>& items, const std::vector<double>& rates,
                double dt) {
    int kernels = 0;
    for (const RunningItem& it : items) kernels += it.kind == OpKind::kKernel;
    if (kernels == 0 || dt <= 0) return;
    s_.busy_ns += dt;
    double bandwidth = 0;
    double occupancy = 0;
    for (const RunningItem& it : items) {
      if (it.kind != OpKind::kKernel) continue;
      bandwidth += double(it.mem_intensity) * it.sm_fill;
      occupancy += it.sm_fill;
    }
    s_.mem_busy_ns += dt * std::min(1.0, bandwidth);
    // Idle power is added for every interval by Advance; here, what running
    // kernels draw above it.
    s_.energy_j += (BoardPowerWatts(s_.spec, occupancy) - s_.spec.idle_watts) * dt * 1e-9;
    bool counted[kMaxProcesses] = {};
    for (size_t i = 0; i < items.size(); ++i) {
      const RunningItem& it = items[i];
      if (it.kind != OpKind::kKernel || it.process < 0 || it.process >= kMaxProcesses) continue;
      ProcessSlot& p = s_.procs[it.process];
      p.gpu_time_ns += dt / kernels;
      p.work_ns += rates[i] * dt;
      if (!counted[it.process]) {
        counted[it.process] = true;
        p.active_ns += dt;
        // What the interval is worth to the process: wall time at the mean
        // progress rate of its kernels (few items: a scan is cheapest).
        double rate_sum = 0;
        int running = 0;
        for (size_t j = i; j < items.size(); ++j) {
          if (items[j].kind != OpKind::kKernel || items[j].process != it.process) continue;
          rate_sum += rates[j];
          ++running;
        }
        p.solo_time_ns += dt * rate_sum / running;
      }
    }
  }

  bool Done() const { return false; }

 private:
  DeviceState& s_;
  CollectiveBus* bus_;
};

// Stops once a given queue has completed a given count; records nothing.
// A waiting collective is released at the last rank's arrival, this rank's
// counted as at the projected time if it has not really arrived yet.
class ProjectionSink {
 public:
  ProjectionSink(const QueueCursor* target, uint64_t seq, CollectiveBus* bus)
      : target_(target), seq_(seq), bus_(bus) {}
  void Arrived(const QueueCursor&, const Op&, double) {}
  std::optional<int64_t> Release(const QueueCursor&, const Op& op, double t) {
    std::optional<int64_t> release;
    if (bus_ != nullptr)
      release = bus_->Release(op.event_slot, op.event_generation, op.collective_seq, std::llround(t));
    if (!release.has_value()) blocked = {op.event_slot, op.collective_seq};
    return release;
  }
  bool SpansNodes(const QueueCursor&, const Op& op) {
    return bus_ != nullptr && bus_->SpansNodes(op.event_slot);
  }
  void Complete(QueueCursor&, const Op&, double) {}
  void Interval(const std::vector<RunningItem>&, const std::vector<double>&, double) {}
  bool Done() const { return target_ == nullptr || target_->completed >= seq_; }

  CollectiveWait blocked;  // the last collective found waiting for a rank

 private:
  const QueueCursor* target_;
  uint64_t seq_;
  CollectiveBus* bus_;
};

void SampleUtilization(DeviceState& s, int64_t now_ns) {
  const UtilSample& last = s.util[(s.util_next + kUtilSamples - 1) % kUtilSamples];
  if (last.t_ns != 0 && now_ns - last.t_ns < kUtilSamplePeriodNs) return;
  s.util[s.util_next % kUtilSamples] = {now_ns, s.busy_ns, s.mem_busy_ns, s.energy_j};
  s.util_next = (s.util_next + 1) % kUtilSamples;
}

}  // namespace

void Advance(DeviceState& s, int64_t now_ns, const InterferenceParams& p, CollectiveBus* bus) {
  if (now_ns <= s.clock_ns) return;
  std::vector<QueueCursor> queues;
  queues.reserve(16);
  for (int i = 0; i < kMaxStreams; ++i) {
    StreamSlot& slot = s.streams[i];
    if (slot.state == SlotState::kFree) continue;
    const uint64_t pending = slot.enqueued - slot.completed;
    if (pending == 0) {
      if (slot.state == SlotState::kDraining) slot.state = SlotState::kFree;
      continue;
    }
    queues.push_back({slot.ring, kStreamQueueDepth, slot.head, pending, slot.process, i,
                      slot.completed});
  }
  s.energy_j += double(s.spec.idle_watts) * double(now_ns - s.clock_ns) * 1e-9;
  StateSink sink(s, bus);
  RunQueues(queues, static_cast<double>(s.clock_ns), static_cast<double>(now_ns), p, sink);
  for (const QueueCursor& c : queues) {
    StreamSlot& slot = s.streams[c.stream];
    if (slot.state == SlotState::kDraining && c.pending == 0) slot.state = SlotState::kFree;
  }
  s.clock_ns = now_ns;
  SampleUtilization(s, now_ns);
}

void SnapshotPendingWork(const DeviceState& s, PendingWork& out) {
  out.clock_ns = s.clock_ns;
  out.queues.clear();
  out.ops.clear();
  for (int i = 0; i < kMaxStreams; ++i) {
    const StreamSlot& slot = s.streams[i];
    if (slot.state == SlotState::kFree) continue;
    const uint64_t pending = slot.enqueued - slot.completed;
    const size_t first = out.ops.size();
    for (uint64_t k = 0; k < pending; ++k) {
      out.ops.push_back(slot.ring[(slot.head + k) % kStreamQueueDepth]);
    }
    out.queues.push_back({i, slot.process, slot.completed, first, pending});
  }
}

int64_t ProjectCompletion(PendingWork& work, int stream, uint64_t seq,
                          const InterferenceParams& p, CollectiveBus* bus,
                          CollectiveWait* blocked) {
  std::vector<QueueCursor> queues;
  queues.reserve(work.queues.size());
  for (const PendingWork::Queue& q : work.queues) {
    queues.push_back({work.ops.data() + q.first, 0, 0, q.count, q.process, q.stream,
                      q.completed});
  }
  const QueueCursor* target = nullptr;
  for (const QueueCursor& c : queues) {
    if (c.stream == stream) target = &c;
  }
  if (target == nullptr || target->completed >= seq) return work.clock_ns;
  ProjectionSink sink(target, seq, bus);
  const double t = RunQueues(queues, static_cast<double>(work.clock_ns),
                             std::numeric_limits<double>::infinity(), p, sink);
  if (std::isinf(t)) {
    if (blocked != nullptr) *blocked = sink.blocked;
    return kNeverNs;
  }
  return static_cast<int64_t>(std::ceil(t));
}

bool Enqueue(DeviceState& s, int stream, const Op& op, uint64_t* seq) {
  StreamSlot& slot = s.streams[stream];
  const uint64_t pending = slot.enqueued - slot.completed;
  if (pending >= kStreamQueueDepth) return false;
  slot.ring[(slot.head + pending) % kStreamQueueDepth] = op;
  slot.enqueued++;
  if (slot.process >= 0 && (op.kind == OpKind::kKernel || IsCollective(op.kind)))
    s.procs[slot.process].kernels_launched++;
  if (seq != nullptr) *seq = slot.enqueued;
  return true;
}

}  // namespace simgpu
