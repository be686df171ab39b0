// The GPU-time budget of one process: a token bucket holding nanoseconds of
// GPU time, refilled at `share` ns per wall-clock ns and capped at a burst
// capacity. The launch gate admits a launch while the bucket is not in debt
// (tokens >= 0) and then charges the kernel's estimated GPU time, so tokens may
// go negative: a kernel longer than the whole capacity still runs, and its debt
// holds back the launches after it. Over a long run the GPU time admitted tends
// to share * elapsed (plus at most one capacity and one kernel).
//
// Pure and single-threaded (the gate serialises access): time is passed in as
// CLOCK_MONOTONIC nanoseconds, never read here.
//
// Capacity rule: max(kMinCapacityNs, share * kBurstWindowNs), i.e. 1 ms or 20
// ms of the share, whichever is more. 20 ms lets a job release an iteration's
// worth of small kernels back to back (keeping the GPU queue fed) while bounding
// how far it can run ahead of its share after idling; the 1 ms floor keeps
// small shares from degrading into one kernel at a time. SetCapacityNs
// overrides the rule.
#ifndef IASHIM_TOKEN_BUCKET_H_
#define IASHIM_TOKEN_BUCKET_H_

#include <cstdint>

namespace iashim {

class TokenBucket {
 public:
  // Shares are clamped to [kMinShare, 1]: a share of 0 would stop the process,
  // and the shim never stops a program. NaN fails open (no limit).
  static constexpr double kMinShare = 0.001;
  static constexpr uint64_t kMinCapacityNs = 1'000'000;   // 1 ms
  static constexpr uint64_t kBurstWindowNs = 20'000'000;  // 20 ms
  // Debt is floored here so that a wild cost estimate (or a hung kernel's
  // sample) cannot hold a process back for ever: 10 s of GPU time, i.e. at most
  // 10 s / share of waiting.
  static constexpr uint64_t kMaxDebtNs = 10'000'000'000;

  // Starts full at `now_ns`: a new process may launch at once.
  explicit TokenBucket(double share, uint64_t now_ns);

  // Refills at the old rate up to `now_ns`, then uses `share` from that instant.
  // Share 1 means no limit: WaitNs is always 0 and charges are not kept, and
  // the bucket stays full for when a limit comes back.
  void SetShare(double share, uint64_t now_ns);

  // Overrides the capacity rule (clamped to at least 1 ns); 0 restores it.
  // Tokens above the new capacity are dropped.
  void SetCapacityNs(uint64_t capacity_ns);

  // 0 if a launch may go at `now_ns`, else how long until the debt is repaid.
  // Waiting exactly that long and asking again gives 0. A `now_ns` older than
  // one already seen counts from the newest time seen.
  uint64_t WaitNs(uint64_t now_ns);

  // Takes `cost_ns` of GPU time for a launch admitted at `now_ns`.
  void Charge(uint64_t cost_ns, uint64_t now_ns);

  double share() const { return share_; }
  bool unlimited() const { return share_ >= 1.0; }
  uint64_t capacity_ns() const { return capacity_ns_; }
  // Tokens as of the last call (negative while in debt), rounded down.
  int64_t tokens_ns() const;

  // The capacity rule for `share` (after clamping).
  static uint64_t CapacityFor(double share);
  // `share` clamped as SetShare does.
  static double ClampShare(double share);

 private:
  // Adds the tokens earned since the last call. Earlier times are ignored, so
  // a clock going backwards neither refills nor moves the reference point.
  void Refill(uint64_t now_ns);
  void UpdateCapacity();

  double share_;
  uint64_t capacity_override_ns_ = 0;  // 0: the rule
  uint64_t capacity_ns_ = 0;
  // Double, so fractional refills of short intervals are not lost (exact to
  // well under 1 ns over the range tokens can take: [-kMaxDebtNs, capacity]).
  double tokens_ = 0;
  uint64_t last_ns_;
};

}  // namespace iashim

#endif  // IASHIM_TOKEN_BUCKET_H_
