// A short solo probe: how a guaranteed job that never ran alone gets the
// baseline its protection needs, without asking the user.
//
// Two jobs started together never give the guaranteed one a solo window, so
// its slowdown is unknown and the share controller holds (kHoldUnknown): no
// protection at all. The probe measures instead: the daemon holds the job's
// co-runners on that GPU at hold_share (through their budgets) for a second
// or two, counts the job's windows as solo (BaselineSource::kProbe) while they
// are held, then releases them and lets the control loop run.
//
// One probe, per guaranteed job, goes through these phases:
//   idle -> applying: the job has had warmup_s of telemetry, shares its GPU
//            and has no baseline, or only one measured while the host's CPUs
//            kept its threads waiting (SoloBaseline::contended: it reads the
//            job slow, and every slowdown too low); the daemon sends the hold
//            budgets (which also quiet the co-runners' host threads).
//   applying -> settling: every co-runner reports the hold share in force.
//   settling -> measuring after settle_s = one window + one iteration +
//            settle_margin_s: by then every window received, and every
//            iteration completed in it, began after the hold took effect.
//   measuring -> done once measure_s has passed and the job has a baseline;
//            one still contended for a CPU ends the attempt (kContended) and
//            is retried as one that measured nothing.
//   measure_s = clamp(max(windows x window, iterations x iteration period),
//                     min_measure_s, max_measure_s).
// Fail-open: whatever happens, the co-runners are released max_hold_s after
// the probe began (the daemon also gives the hold budgets that TTL, so a
// coordinator that dies mid-probe cannot leave them held). A probe that ends
// without a baseline is retried after retry_after_s, doubled each time, at
// most max_attempts times; a job that then still has no baseline is left to
// the control loop's unknown-slowdown hold, as before.
//
// Pure: time is an argument; the state is a plain value in the job.
#ifndef IASHIM_POLICY_SOLO_PROBE_H_
#define IASHIM_POLICY_SOLO_PROBE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace iashim::policy {

struct SoloProbeOptions {
  // Co-runners keep a trickle (the shim never stops a process), which the
  // probe measures into the baseline: at 0.01 the demo's probed ResNet-50 read
  // 0.8% slower than alone (two co-runners), so the user's measure of its
  // slowdown read 0.9-1.4 points above the coordinator's, which the loop holds
  // under the target; at 0.001 (the shim's least share) 0.1%.
  double hold_share = 0.001;
  double warmup_s = 2.0;        // the job's own start-up is not its speed
  double settle_margin_s = 0.2; // telemetry delivery and the co-runners' last kernels
  int windows = 5;              // measure at least this many telemetry windows...
  int iterations = 4;           // ...and this many iteration periods,
  double min_measure_s = 1.0;   // but no less than this
  double max_measure_s = 4.0;   // and no more
  double max_hold_s = 8.0;      // co-runners are released by then, whatever happened
  double retry_after_s = 60;    // after a probe that measured nothing; doubled each time
  int max_attempts = 3;
};

enum class SoloProbePhase { kIdle, kApplying, kSettling, kMeasuring, kDone, kGaveUp };

std::string_view SoloProbePhaseName(SoloProbePhase phase);

// What the daemon knows about the job at this step.
struct SoloProbeInput {
  bool shared = false;         // connected co-runners on its GPU (opportunistic)
  bool has_baseline = false;   // JobProfile has a baseline (any source)
  bool baseline_contended = false;  // ...taken over windows contended for a CPU
  double telemetry_s = 0;      // seconds of accepted telemetry since it connected
  double window_s = 0;         // its telemetry window length; 0 = not known yet
  std::optional<double> iteration_s;  // its iteration period now (shared: an upper bound)
  bool corunners_held = false;  // every connected co-runner reports hold_share in force
};

struct SoloProbeState {
  SoloProbePhase phase = SoloProbePhase::kIdle;
  int attempts = 0;
  int64_t started_ns = 0;        // the current attempt's hold began
  int64_t measure_from_ns = 0;   // settling ends (valid from kSettling)
  int64_t measure_until_ns = 0;  // measuring may end (valid from kSettling)
  int64_t retry_at_ns = 0;       // an idle job with attempts > 0 waits until then

  friend bool operator==(const SoloProbeState&, const SoloProbeState&) = default;
};

enum class SoloProbeEvent {
  kNone,
  kStarted,    // hold the co-runners
  kMeasured,   // release them: the job has a probe baseline
  kTimedOut,   // release them: max_hold_s passed without a baseline (retried later)
  kAborted,    // release them: the job no longer shares its GPU
  kContended,  // release them: measured, but its threads waited for a CPU (retried later)
};

struct SoloProbeStep {
  SoloProbeEvent event = SoloProbeEvent::kNone;
  bool hold = false;  // co-runners must be held at hold_share now
  bool solo = false;  // the job's windows received now count as solo (kProbe)
};

class SoloProbe {
 public:
  explicit SoloProbe(SoloProbeOptions options = {}, SoloProbeState state = {});

  SoloProbeStep Step(int64_t now_ns, const SoloProbeInput& in);

  // Applying, settling or measuring: the co-runners are to be held.
  bool active() const;

  // Whether windows received at now_ns count as solo, between Steps.
  bool Solo(int64_t now_ns) const;

  const SoloProbeState& state() const { return state_; }
  const SoloProbeOptions& options() const { return options_; }

  // settle_s and measure_s for a job with these window and iteration lengths.
  double SettleSeconds(const SoloProbeInput& in) const;
  double MeasureSeconds(const SoloProbeInput& in) const;

 private:
  SoloProbeStep Release(SoloProbeEvent event, int64_t now_ns);

  SoloProbeOptions options_;
  SoloProbeState state_;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_SOLO_PROBE_H_
