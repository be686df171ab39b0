// What the coordinator knows about one training process, folded from its
// telemetry windows: how busy it keeps the GPU, how fast it launches and
// iterates, how much memory it holds, what kind of kernels it runs, which
// model it is, and how much slower it runs now than when it was alone.
//
// Everything is estimated from the shim's telemetry alone:
//  - GPU busy fraction: each kernel's mean sampled duration times its
//    launches in the window, summed over kernels, over the window's length,
//    capped at 1 (overlapping streams can exceed it); a time-based EWMA
//    (TimeEwma, tau_s) across windows. Kernels not yet sampled count with the
//    job's mean sampled duration, so sampling 1 in N launches does not make
//    rarely-launched kernels invisible.
//  - Launch rate (kernels/s) and iteration time: time-based EWMAs of the
//    windows' values; the iteration EWMA only moves on windows that
//    completed an iteration.
//  - Memory: the latest window's use and limit, and the peak seen.
//  - Kernel mix: the fraction of estimated GPU time (cumulative over the
//    job's life: it describes the model, not the moment) spent in compute-,
//    memory-bound and other kernels (ClassifyKernel). Names arrive separately
//    (AddKernelName), possibly after the kernels' windows, so classes are
//    applied when the mix is read.
//  - Model fingerprint: KernelSetFingerprint of the kernels launched.
//  - Solo baseline and slowdown: see slowdown().
//  - Host CPU wait: the fraction of the window its threads spent runnable
//    but waiting for a CPU (the longest-waiting one), a time-based
//    EWMA. A solo window's speed enters the baseline with that wait taken
//    out (max_cpu_wait_correction), and one above max_solo_cpu_wait is kept
//    out of the baseline while there are enough below it (SoloBaseline).
//  - Time in collectives (a rank of a gang): the fraction of wall time its
//    collective kernels (IsCollectiveKernel: NCCL's) took, which is mostly
//    waiting for the gang's slowest rank; a time-based EWMA, and another over
//    the solo windows only. Each window's own samples are used when it has
//    any (the shim times every collective launch).
//
// Bad input never crashes the profile or produces NaN: a window that fails
// CheckWindow, or starts before the previous accepted window ended (out of
// order, duplicated), is ignored and counted in counts().
#ifndef IASHIM_POLICY_JOB_PROFILE_H_
#define IASHIM_POLICY_JOB_PROFILE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "coordinator/policy/ewma.h"
#include "coordinator/policy/kernel_class.h"
#include "coordinator/policy/kernel_set_fingerprint.h"
#include "coordinator/policy/solo_baseline.h"
#include "coordinator/policy/telemetry_window.h"

namespace iashim::policy {

struct JobProfileOptions {
  double tau_s = 3.0;         // EWMA time constant (busy, launch rate, iteration)
  size_t warmup_windows = 1;  // first accepted windows never count for the baseline
  // The first windows that complete an iteration are left out of the
  // iteration time (and so of the slowdown): the first iteration holds the
  // job's start-up (allocations, a compiler's first pass, a gang's ranks
  // meeting for the first time), seconds long where the rest take
  // milliseconds, and the EWMA would carry it for several time constants.
  size_t warmup_iteration_windows = 1;
  SoloBaselineOptions baseline;
  WindowLimits limits;
  size_t max_kernels = size_t{1} << 16;  // distinct kernels remembered
  double kernel_half_life_samples = 32;  // per-kernel duration average forgets this fast
  double fingerprint_stable_s = 30;      // no new kernel for this long = stable
  double max_slowdown = 100;             // slowdown() is clamped to [-1, max_slowdown]
  // A solo window in which one of its threads waited for a CPU more than this
  // fraction of it measured the host's load as well as the job. Set from
  // first principles, not fitted: a launching thread's wait lengthens the
  // step by up to as much (an LSTM fakejob's launching thread waited 6.0% and
  // its steps ran 6.5% slower beside eight busy loops), and 3 points
  // of error in the baseline is as much as the controller's settling band
  // below the target (issue 18): more would move where it settles.
  double max_solo_cpu_wait = 0.03;
  // A solo window's iteration time is shortened (and its launch rate raised)
  // by the fraction of it a thread waited for a CPU, up to this much: the
  // job's speed alone on an idle host, which is what its co-runners are
  // held against. First principles, not fitted: a waiting thread on the
  // step's path lengthens it by its wait, as measured where both were known
  // (the LSTM fakejob: 6.0% wait, 6.5% slower; on the live rig, j90's first
  // windows of an LSTM job: waits of 4-51% with iterations 5-55% slow). A
  // window the host slowed by more than half says too little to correct.
  double max_cpu_wait_correction = 0.5;
};

// Fractions of the job's estimated GPU time; they sum to 1 once any kernel
// time has been estimated, and are all 0 before.
struct KernelMix {
  double compute = 0;
  double memory = 0;
  double other = 0;    // named, but no rule matched
  double unnamed = 0;  // no name received (yet)
};

struct WindowCounts {
  uint64_t accepted = 0;
  uint64_t out_of_order = 0;  // started before the previous accepted window ended
  uint64_t defective = 0;     // failed CheckWindow
  WindowDefect last_defect = WindowDefect::kNone;
};

enum class SlowdownSource {
  kUnknown,     // no baseline, or nothing measured yet
  kIterations,  // iteration time against the solo iteration time
  kKernelRate,  // solo kernels/s against kernels/s now (iterations not detected)
};

class JobProfile {
 public:
  explicit JobProfile(JobProfileOptions options = {});

  // Folds in the next window of this process. `alone_on_gpu`: no other
  // process ran on the job's GPU during the window (the caller knows the
  // placement; the profile cannot), or, with `origin` kProbe, none was let
  // run (solo_probe.h). Returns false when the window was ignored.
  bool AddWindow(const TelemetryWindow& window, bool alone_on_gpu,
                 BaselineSource origin = BaselineSource::kAlone);

  // The name behind a kernel id, from the shim's KernelNames messages.
  void AddKernelName(uint64_t kernel, std::string_view name);
  // What `other` learnt from names (kernel classes, which are collectives):
  // for a profile that starts after the names came, such as a further GPU of
  // a process that drives several.
  void AdoptKernelNames(const JobProfile& other);

  // Forgets the speed measured so far, the iteration time and the launch
  // rate, and so the slowdown, for a job whose own budget slowed it until now
  // (a job made guaranteed while throttled), which was no co-runner's
  // harm. The next window (which may straddle the budget's change) is left
  // out of both, and, as at the job's start, the next that completes an
  // iteration out of the iteration time.
  void ForgetSpeed();

  // Seeds the solo baseline, e.g. from the persisted profile of an earlier
  // job with the same fingerprint. 0 = not known. The job's own solo windows
  // replace the seed once there are enough of them (SoloBaseline).
  void SeedBaseline(uint64_t iteration_ns, double kernels_per_s = 0);

  // nullopt until a window has been accepted.
  std::optional<double> busy() const { return busy_.value(); }
  // The busy fraction over its solo windows only (alone and unthrottled):
  // the GPU time it takes when nothing holds it back; nullopt before one.
  std::optional<double> solo_busy() const { return solo_busy_.value(); }
  std::optional<double> kernels_per_s() const { return rate_.value(); }
  // nullopt until a window completed an iteration.
  std::optional<double> iteration_ns() const { return iteration_.value(); }

  uint64_t mem_used_bytes() const { return mem_used_bytes_; }
  uint64_t mem_peak_bytes() const { return mem_peak_bytes_; }
  uint64_t mem_limit_bytes() const { return mem_limit_bytes_; }

  KernelMix kernel_mix() const;

  uint64_t fingerprint() const { return fingerprint_.value(); }
  size_t kernel_count() const { return fingerprint_.size(); }
  // True once kernels have been seen and no new one for fingerprint_stable_s
  // of window time: only then should the fingerprint be stored or looked up.
  bool fingerprint_stable() const;

  // Fraction of wall time in collective kernels, now and when alone (the
  // solo windows'). nullopt before a window (a solo window) was accepted; 0
  // for a job that runs no collectives.
  std::optional<double> collective_fraction() const { return collective_.value(); }
  std::optional<double> solo_collective_fraction() const { return solo_collective_.value(); }

  std::optional<double> baseline_iteration_ns() const { return baseline_.iteration_ns(); }
  std::optional<double> baseline_kernels_per_s() const { return baseline_.kernels_per_s(); }
  BaselineSource baseline_source() const { return baseline_.source(); }
  // The baseline in use includes windows contended for a CPU (SoloBaseline).
  bool baseline_contended() const { return baseline_.contended(); }
  // Fraction of wall time its longest-waiting thread waited for a CPU; nullopt
  // before a window was accepted.
  std::optional<double> cpu_wait() const { return cpu_wait_.value(); }

  // How much slower the job runs now than alone: 0.25 = 25% slower; negative
  // when faster; nullopt when unknown. Preferably iteration time / solo
  // iteration time - 1. When that cannot be computed (the shim does not
  // detect this job's iterations, or no solo iteration time is known), solo
  // kernels/s / kernels/s now - 1: launches are issued in step with the
  // job's progress, so their rate falls as the job is slowed. It is the
  // weaker signal (a job that also waits on input or the host loses launches
  // for reasons other than the GPU), hence only the fallback.
  //
  // The iteration time used here is at least the time since the last window
  // that completed an iteration: a job slowed so much that no iteration
  // completes would otherwise keep reporting its last, healthy, value.
  std::optional<double> slowdown() const;
  SlowdownSource slowdown_source() const;

  const WindowCounts& counts() const { return counts_; }

 private:
  struct KernelRecord {
    double ns_sum = 0;      // decayed sum of sampled GPU time
    double samples = 0;     // decayed count of samples
    double est_gpu_ns = 0;  // estimated GPU time over the job's life
    std::optional<KernelClass> kernel_class;
    bool collective = false;  // by its name, once known
  };

  KernelRecord* Record(uint64_t kernel);  // nullptr when the table is full
  void LearnDurations(const TelemetryWindow& w);
  double EstimateGpuNs(const TelemetryWindow& w);
  double CollectiveNs(const TelemetryWindow& w) const;
  std::optional<double> CurrentIterationNs() const;
  std::pair<std::optional<double>, SlowdownSource> ComputeSlowdown() const;

  JobProfileOptions options_;
  TimeEwma busy_;
  TimeEwma rate_;
  TimeEwma iteration_;
  TimeEwma collective_;
  TimeEwma solo_collective_;
  TimeEwma solo_busy_;
  TimeEwma cpu_wait_;
  SoloBaseline baseline_;
  KernelSetFingerprint fingerprint_;
  absl::flat_hash_map<uint64_t, KernelRecord> kernels_;
  double all_ns_sum_ = 0;  // decayed, over all kernels: the fallback duration
  double all_samples_ = 0;
  std::optional<uint64_t> last_end_ns_;
  std::optional<uint64_t> last_iteration_end_ns_;
  size_t iteration_windows_ = 0;  // windows that completed an iteration so far
  bool skip_next_rate_window_ = false;  // ForgetSpeed: the next window straddles the change
  std::optional<uint64_t> fingerprint_changed_ns_;
  uint64_t mem_used_bytes_ = 0;
  uint64_t mem_peak_bytes_ = 0;
  uint64_t mem_limit_bytes_ = 0;
  WindowCounts counts_;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_JOB_PROFILE_H_
