// Keeps a throttled rank of a data-parallel gang from spinning in its
// collectives on a shared GPU.
//
// A rank launches its all-reduce (NCCL's kernel) when its backward pass
// ends, and the kernel then sits on the GPU, its blocks spinning on a few
// SMs, until the gang's slowest rank arrives. Alone on a GPU that wait costs
// no one; on a shared GPU it costs the co-runners, whose kernels lose those
// SMs and the time the GPU spends switching to the rank's context. A
// throttled gang waits far more than an unthrottled one: its ranks share
// GPUs with different co-runners, so at one share they compute at different
// speeds, and the fastest waits out the difference every iteration. The
// control loop cannot cut that wait: a lower share slows every rank alike
// and leaves the skew (bench/gang/README.md, "Collective pacing").
//
// So a throttled rank arrives late on purpose: it holds each collective's
// launch for about as long as its recent ones waited. Per collective kernel:
//   transfer = the least duration of its last kWindow launches (a rank that
//              arrived last waited for no one: its duration was all transfer),
//   wait     = duration - transfer (after the hold it was launched with),
//   lead     = the least wait of its last kRecent launches (held only if it
//              waited every time: one long wait is not a lead, and a kernel
//              that carries collectives of several sizes leaves the
//              smallest's wait as the bound).
// Each duration moves the hold by half of (lead - margin); a launch that
// waited no more than the margin (the rank arrived last, or nearly: holding
// longer would make the others spin) halves it. margin = kMarginNs plus a
// tenth of the transfer. The hold is at most kMaxHoldNs. The hold applies,
// and is learned, only while the process is throttled: unthrottled, it is
// the job's own GPU time to spend, and the hold is forgotten.
//
// The transfer is only known from a launch the rank came last to. A rank
// early to every collective it has launched (throttled from its first
// launch, beside a lighter co-runner than its peers') never sees one: the
// least of its durations is a wait too, so its waits read as nothing and it
// spins on (an 8-rank LSTM gang on two simulated nodes at share 0.05, the
// rank beside a Transformer 240-375 ms early in a 428 ms iteration: the
// Transformer +8.3-8.8%, bench/gang/cross_node_pacing_bench.sh). So the rank
// probes: kRecent throttled launches after it starts learning, and every
// kProbeEvery after (so the window always holds one), one launch is held for
// the least, over its last kRecent launches, of the hold it was launched with
// plus its duration: when it would have arrived unheld, plus its transfer.
// That makes it last, or nearly, however long its lead, so the probe's
// duration is its transfer (or close) and the window knows it (the
// Transformer +6.0-6.4%). A probe costs the gang at most about a transfer
// once in kProbeEvery launches; its own duration is not read as a wait.
//
// A process that launches collectives on more than one device (one process
// driving several GPUs) holds none: its launches come from one thread, so a
// hold before one device's collective would delay the others' too, the
// slowest's included (measured: an LSTM on two simulated GPUs at share 0.2,
// one beside an unthrottled ResNet-50, 97 ms an iteration unheld, 191 held).
//
// CollectivePace is one kernel's learner (pure, one writer). CollectivePacer
// keeps one per collective kernel: the drainer thread feeds durations (and
// alone decides, from IASHIM_PACE_COLLECTIVES, whether any hold is learned),
// and the launch path reads the hold lock-free (HoldNs).
#ifndef IASHIM_COLLECTIVE_PACER_H_
#define IASHIM_COLLECTIVE_PACER_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

namespace iashim {

// The last N values pushed (fewer until N have been): CollectivePace's
// windows.
template <size_t N>
class RecentValues {
 public:
  void Push(uint64_t v) {
    values_[next_] = v;
    next_ = (next_ + 1) % N;
    size_ = std::min(size_ + 1, N);
  }
  void Clear() { size_ = next_ = 0; }
  size_t size() const { return size_; }
  // The least of them; 0 when there are none.
  uint64_t Least() const {
    return size_ == 0 ? 0 : *std::min_element(values_.begin(), values_.begin() + size_);
  }

 private:
  std::array<uint64_t, N> values_{};
  size_t size_ = 0;
  size_t next_ = 0;
};

class CollectivePace {
 public:
  static constexpr size_t kWindow = 32;
  static constexpr size_t kRecent = 4;
  static constexpr uint64_t kMarginNs = 100'000;         // 100 us
  static constexpr uint64_t kMaxHoldNs = 1'000'000'000;  // 1 s
  // Throttled launches between probes: fewer than kWindow, so the window
  // always holds a probe's duration and the transfer is never forgotten.
  static constexpr size_t kProbeEvery = kWindow / 2;

  // One launch's duration on the GPU (from its start event to its end), and
  // whether the process was throttled when it was measured. Returns the hold
  // for the next launch: hold_ns(), or a probe's longer one.
  uint64_t Observe(uint64_t duration_ns, bool throttled);

  uint64_t hold_ns() const { return hold_ns_; }
  // What Observe last returned: the hold the next launch gets.
  uint64_t next_hold_ns() const { return probing_ ? probe_hold_ns_ : hold_ns_; }
  uint64_t transfer_ns() const;  // 0 before any duration

 private:
  RecentValues<kWindow> durations_;
  RecentValues<kRecent> waits_;   // duration - transfer, of throttled launches
  RecentValues<kRecent> unheld_;  // hold launched with + duration, of throttled launches
  uint64_t hold_ns_ = 0;
  size_t since_probe_ = 0;  // throttled launches since the last probe (or since learning began)
  bool probed_once_ = false;
  bool probing_ = false;  // the hold returned last was a probe's
  uint64_t probe_hold_ns_ = 0;
};

class CollectivePacer {
 public:
  // Collective kernels paced; NCCL has a few per data type and algorithm, and
  // a job uses a handful. Kernels past this many are not held.
  static constexpr size_t kMaxPaced = 32;

  // The drainer: one measured launch of collective `kernel` (its registry id)
  // on device ordinal `device`.
  void Observe(uint32_t kernel, int device, uint64_t duration_ns, bool throttled);

  // The launch path: how long to hold the next launch of `kernel`. Lock-free:
  // a scan of at most kMaxPaced relaxed loads, for collectives only.
  uint64_t HoldNs(uint32_t kernel) const;

  // Counted by the launch path: launches held and the time they were held.
  void CountHold(uint64_t ns) {
    held_.fetch_add(1, std::memory_order_relaxed);
    held_ns_.fetch_add(ns, std::memory_order_relaxed);
  }
  uint64_t held() const { return held_.load(std::memory_order_relaxed); }
  uint64_t held_ns() const { return held_ns_.load(std::memory_order_relaxed); }

 private:
  struct Slot {
    std::atomic<uint32_t> kernel{0};  // 0: free (id 0 is "other", never paced)
    std::atomic<uint64_t> hold_ns{0};
  };
  std::array<Slot, kMaxPaced> slots_;
  int device_ = -1;  // the drainer's only: the device of the first collective seen
  std::atomic<bool> several_devices_{false};
  std::array<CollectivePace, kMaxPaced> paces_;  // the drainer's only
  std::atomic<uint64_t> held_{0};
  std::atomic<uint64_t> held_ns_{0};
};

}  // namespace iashim

#endif  // IASHIM_COLLECTIVE_PACER_H_
