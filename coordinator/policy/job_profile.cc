#include "coordinator/policy/job_profile.h"

#include <algorithm>
#include <cmath>

#include "common/wire/collective_kernel.h"

namespace iashim::policy {
namespace {

constexpr double kNsPerS = 1e9;

// Weight kept by an average after `samples` new samples, for a half-life in
// samples: recent durations matter more, because a kernel's duration changes
// with what else runs on the GPU.
double Decay(double samples, double half_life) {
  if (!(half_life > 0)) return 0;
  return std::exp2(-samples / half_life);
}

}  // namespace

JobProfile::JobProfile(JobProfileOptions options)
    : options_(options),
      busy_(options.tau_s),
      rate_(options.tau_s),
      iteration_(options.tau_s),
      collective_(options.tau_s),
      solo_collective_(options.tau_s),
      solo_busy_(options.tau_s),
      cpu_wait_(options.tau_s),
      baseline_(options.baseline),
      fingerprint_(options.max_kernels) {}

JobProfile::KernelRecord* JobProfile::Record(uint64_t kernel) {
  auto it = kernels_.find(kernel);
  if (it != kernels_.end()) return &it->second;
  if (kernels_.size() >= options_.max_kernels) return nullptr;
  return &kernels_[kernel];
}

void JobProfile::AddKernelName(uint64_t kernel, std::string_view name) {
  if (KernelRecord* r = Record(kernel)) {
    r->kernel_class = ClassifyKernel(name);
    r->collective = IsCollectiveKernel(name);
  }
}

void JobProfile::AdoptKernelNames(const JobProfile& other) {
  for (const auto& [kernel, theirs] : other.kernels_) {
    if (!theirs.kernel_class && !theirs.collective) continue;  // its name never came
    if (KernelRecord* r = Record(kernel)) {
      r->kernel_class = theirs.kernel_class;
      r->collective = theirs.collective;
    }
  }
}

void JobProfile::SeedBaseline(uint64_t iteration_ns, double kernels_per_s) {
  baseline_.Seed(static_cast<double>(iteration_ns), kernels_per_s);
}

bool JobProfile::AddWindow(const TelemetryWindow& w, bool alone_on_gpu,
                           BaselineSource origin) {
  const WindowDefect defect = CheckWindow(w, options_.limits);
  if (defect != WindowDefect::kNone) {
    ++counts_.defective;
    counts_.last_defect = defect;
    return false;
  }
  if (last_end_ns_.has_value() && w.window_start_ns < *last_end_ns_) {
    ++counts_.out_of_order;
    return false;
  }
  last_end_ns_ = w.window_end_ns;
  ++counts_.accepted;

  const double length_s = static_cast<double>(w.window_end_ns - w.window_start_ns) / kNsPerS;

  for (const KernelWindow& k : w.kernels) {
    if (k.launches > 0 && fingerprint_.Add(k.kernel)) fingerprint_changed_ns_ = w.window_end_ns;
  }
  // Durations first, so that a kernel sampled for the first time in this
  // window is estimated with its own samples rather than the job's mean.
  LearnDurations(w);
  const double gpu_ns = EstimateGpuNs(w);
  const double busy = std::min(1.0, gpu_ns / (length_s * kNsPerS));
  busy_.Add(busy, length_s);
  const double collective = std::min(1.0, CollectiveNs(w) / (length_s * kNsPerS));
  collective_.Add(collective, length_s);
  const double cpu_wait = std::min(1.0, static_cast<double>(w.cpu_wait_ns) / (length_s * kNsPerS));
  cpu_wait_.Add(cpu_wait, length_s);

  const double kernels_per_s = static_cast<double>(w.launches) / length_s;
  if (!skip_next_rate_window_) rate_.Add(kernels_per_s, length_s);
  skip_next_rate_window_ = false;

  const bool completed = w.iterations > 0 && w.iteration_ns > 0;
  if (completed) {
    // Weighted by the time since the previous window that completed one (the
    // time these iterations cover), not by this window's length: a job whose
    // iteration spans several windows would otherwise move the average by a
    // fraction of tau_s per tau_s of wall time (resnet50's 228 ms iterations
    // in 100 ms windows: a 3 s EWMA that took 8 s to follow a change).
    const double covered_s =
        last_iteration_end_ns_.has_value()
            ? static_cast<double>(w.window_end_ns - *last_iteration_end_ns_) / kNsPerS
            : length_s;
    if (++iteration_windows_ > options_.warmup_iteration_windows) {
      iteration_.Add(static_cast<double>(w.iteration_ns), covered_s);
    }
    last_iteration_end_ns_ = w.window_end_ns;
  }

  mem_used_bytes_ = w.mem_used_bytes;
  mem_limit_bytes_ = w.mem_limit_bytes;
  mem_peak_bytes_ = std::max(mem_peak_bytes_, w.mem_used_bytes);

  // Solo means alone AND unthrottled: a job below a full share is slowed by
  // its own budget, which is not its solo speed.
  if (alone_on_gpu && w.budget_share >= 1.0 && counts_.accepted > options_.warmup_windows) {
    // Its speed on an idle host: the time a thread waited for a CPU is the
    // host's, not the job's. Only the baseline is corrected: the running
    // speed keeps it, since the user waits through it too and a throttled
    // co-runner, blocked in its gate, frees the CPUs it took.
    const double host_free = 1.0 - std::min(cpu_wait, options_.max_cpu_wait_correction);
    baseline_.AddSoloWindow(completed ? static_cast<double>(w.iteration_ns) * host_free : 0.0,
                            kernels_per_s / host_free, origin,
                            cpu_wait > options_.max_solo_cpu_wait);
    solo_collective_.Add(collective, length_s);
    solo_busy_.Add(busy, length_s);
  }
  return true;
}

void JobProfile::ForgetSpeed() {
  iteration_.Reset();
  iteration_windows_ = 0;
  rate_.Reset();
  skip_next_rate_window_ = true;
}

void JobProfile::LearnDurations(const TelemetryWindow& w) {
  for (const KernelWindow& k : w.kernels) {
    if (k.sampled == 0) continue;
    const double ns = static_cast<double>(k.gpu_ns_sum);
    const double n = static_cast<double>(k.sampled);
    const double keep = Decay(n, options_.kernel_half_life_samples);
    if (KernelRecord* r = Record(k.kernel)) {
      r->ns_sum = r->ns_sum * keep + ns;
      r->samples = r->samples * keep + n;
    }
    all_ns_sum_ = all_ns_sum_ * keep + ns;
    all_samples_ = all_samples_ * keep + n;
  }
}

double JobProfile::EstimateGpuNs(const TelemetryWindow& w) {
  const double fallback_ns = all_samples_ > 0 ? all_ns_sum_ / all_samples_ : 0.0;
  double total = 0;
  for (const KernelWindow& k : w.kernels) {
    KernelRecord* r = Record(k.kernel);
    const double mean_ns = (r != nullptr && r->samples > 0) ? r->ns_sum / r->samples : fallback_ns;
    const double est = mean_ns * static_cast<double>(k.launches);
    if (r != nullptr) r->est_gpu_ns += est;
    total += est;
  }
  return total;
}

double JobProfile::CollectiveNs(const TelemetryWindow& w) const {
  double total = 0;
  for (const KernelWindow& k : w.kernels) {
    const auto it = kernels_.find(k.kernel);
    if (it == kernels_.end() || !it->second.collective || k.launches == 0) continue;
    const KernelRecord& r = it->second;
    // This window's own mean when it timed any launch: a collective's time
    // follows the other ranks from one iteration to the next, which a
    // long-lived average would smooth away.
    const double mean_ns = k.sampled > 0 ? static_cast<double>(k.gpu_ns_sum) / k.sampled
                           : r.samples > 0 ? r.ns_sum / r.samples
                                           : 0.0;
    total += mean_ns * static_cast<double>(k.launches);
  }
  return total;
}

KernelMix JobProfile::kernel_mix() const {
  KernelMix mix;
  double total = 0;
  for (const auto& [kernel, r] : kernels_) {
    total += r.est_gpu_ns;
    if (!r.kernel_class.has_value()) {
      mix.unnamed += r.est_gpu_ns;
      continue;
    }
    switch (*r.kernel_class) {
      case KernelClass::kCompute:
        mix.compute += r.est_gpu_ns;
        break;
      case KernelClass::kMemory:
        mix.memory += r.est_gpu_ns;
        break;
      case KernelClass::kOther:
        mix.other += r.est_gpu_ns;
        break;
    }
  }
  if (!(total > 0)) return KernelMix{};
  mix.compute /= total;
  mix.memory /= total;
  mix.other /= total;
  mix.unnamed /= total;
  return mix;
}

bool JobProfile::fingerprint_stable() const {
  if (!fingerprint_changed_ns_.has_value() || !last_end_ns_.has_value()) return false;
  const double quiet_s = static_cast<double>(*last_end_ns_ - *fingerprint_changed_ns_) / kNsPerS;
  return quiet_s >= options_.fingerprint_stable_s;
}

std::optional<double> JobProfile::CurrentIterationNs() const {
  const std::optional<double> ewma = iteration_.value();
  if (!ewma.has_value()) return std::nullopt;
  // Both are set together with the EWMA, and windows are accepted in order.
  const double open_ns = static_cast<double>(*last_end_ns_ - *last_iteration_end_ns_);
  return std::max(*ewma, open_ns);
}

std::pair<std::optional<double>, SlowdownSource> JobProfile::ComputeSlowdown() const {
  const auto clamp = [this](double s) { return std::clamp(s, -1.0, options_.max_slowdown); };
  const std::optional<double> now_ns = CurrentIterationNs();
  const std::optional<double> solo_ns = baseline_.iteration_ns();
  if (now_ns.has_value() && solo_ns.has_value()) {
    return {clamp(*now_ns / *solo_ns - 1.0), SlowdownSource::kIterations};
  }
  const std::optional<double> now_rate = rate_.value();
  const std::optional<double> solo_rate = baseline_.kernels_per_s();
  if (now_rate.has_value() && solo_rate.has_value()) {
    // A job that launches nothing at all is as slow as can be reported.
    if (!(*now_rate > 0)) return {options_.max_slowdown, SlowdownSource::kKernelRate};
    return {clamp(*solo_rate / *now_rate - 1.0), SlowdownSource::kKernelRate};
  }
  return {std::nullopt, SlowdownSource::kUnknown};
}

std::optional<double> JobProfile::slowdown() const { return ComputeSlowdown().first; }

SlowdownSource JobProfile::slowdown_source() const { return ComputeSlowdown().second; }

}  // namespace iashim::policy
