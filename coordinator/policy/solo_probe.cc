#include "coordinator/policy/solo_probe.h"

#include <algorithm>
#include <cmath>

namespace iashim::policy {
namespace {

int64_t Ns(double seconds) { return static_cast<int64_t>(seconds * 1e9); }

}  // namespace

std::string_view SoloProbePhaseName(SoloProbePhase phase) {
  switch (phase) {
    case SoloProbePhase::kIdle:
      return "idle";
    case SoloProbePhase::kApplying:
      return "applying";
    case SoloProbePhase::kSettling:
      return "settling";
    case SoloProbePhase::kMeasuring:
      return "measuring";
    case SoloProbePhase::kDone:
      return "done";
    case SoloProbePhase::kGaveUp:
      return "gave-up";
  }
  return "?";
}

SoloProbe::SoloProbe(SoloProbeOptions options, SoloProbeState state)
    : options_(options), state_(state) {}

double SoloProbe::SettleSeconds(const SoloProbeInput& in) const {
  const double iteration = in.iteration_s && std::isfinite(*in.iteration_s) ? *in.iteration_s : 0;
  // Never longer than half the hold: a huge iteration period must not eat it.
  return std::min(in.window_s + std::max(iteration, 0.0) + options_.settle_margin_s,
                  options_.max_hold_s / 2);
}

double SoloProbe::MeasureSeconds(const SoloProbeInput& in) const {
  const double iteration = in.iteration_s && std::isfinite(*in.iteration_s) ? *in.iteration_s : 0;
  const double wanted = std::max(options_.windows * in.window_s, options_.iterations * iteration);
  return std::clamp(wanted, options_.min_measure_s, options_.max_measure_s);
}

bool SoloProbe::active() const {
  return state_.phase == SoloProbePhase::kApplying || state_.phase == SoloProbePhase::kSettling ||
         state_.phase == SoloProbePhase::kMeasuring;
}

bool SoloProbe::Solo(int64_t now_ns) const {
  return state_.phase == SoloProbePhase::kMeasuring ||
         (state_.phase == SoloProbePhase::kSettling && now_ns >= state_.measure_from_ns);
}

SoloProbeStep SoloProbe::Release(SoloProbeEvent event, int64_t now_ns) {
  switch (event) {
    case SoloProbeEvent::kMeasured:
      state_.phase = SoloProbePhase::kDone;
      break;
    case SoloProbeEvent::kAborted:
      // Not the job's fault, and alone it measures itself: not an attempt.
      state_.phase = SoloProbePhase::kIdle;
      state_.attempts = std::max(0, state_.attempts - 1);
      state_.retry_at_ns = now_ns;
      break;
    default: {
      state_.phase = SoloProbePhase::kIdle;
      const double wait_s = options_.retry_after_s * std::exp2(std::max(0, state_.attempts - 1));
      state_.retry_at_ns = now_ns + Ns(wait_s);
      break;
    }
  }
  return {event, false, false};
}

SoloProbeStep SoloProbe::Step(int64_t now_ns, const SoloProbeInput& in) {
  switch (state_.phase) {
    case SoloProbePhase::kDone:
    case SoloProbePhase::kGaveUp:
      return {};
    case SoloProbePhase::kIdle: {
      if ((in.has_baseline && !in.baseline_contended) || !in.shared ||
          in.telemetry_s < options_.warmup_s || !(in.window_s > 0)) {
        return {};
      }
      if (state_.attempts > 0 && now_ns < state_.retry_at_ns) return {};
      if (state_.attempts >= options_.max_attempts) {
        state_.phase = SoloProbePhase::kGaveUp;
        return {};
      }
      ++state_.attempts;
      state_.phase = SoloProbePhase::kApplying;
      state_.started_ns = now_ns;
      return {SoloProbeEvent::kStarted, true, false};
    }
    default:
      break;
  }
  if (!in.shared) return Release(SoloProbeEvent::kAborted, now_ns);
  if (now_ns - state_.started_ns >= Ns(options_.max_hold_s)) {
    return Release(!in.has_baseline        ? SoloProbeEvent::kTimedOut
                   : in.baseline_contended ? SoloProbeEvent::kContended
                                           : SoloProbeEvent::kMeasured,
                   now_ns);
  }
  if (state_.phase == SoloProbePhase::kApplying && in.corunners_held) {
    state_.phase = SoloProbePhase::kSettling;
    state_.measure_from_ns = now_ns + Ns(SettleSeconds(in));
    state_.measure_until_ns = state_.measure_from_ns + Ns(MeasureSeconds(in));
  }
  if (state_.phase == SoloProbePhase::kSettling && now_ns >= state_.measure_from_ns) {
    state_.phase = SoloProbePhase::kMeasuring;
  }
  if (state_.phase == SoloProbePhase::kMeasuring && now_ns >= state_.measure_until_ns &&
      in.has_baseline) {
    return Release(in.baseline_contended ? SoloProbeEvent::kContended : SoloProbeEvent::kMeasured,
                   now_ns);
  }
  return {SoloProbeEvent::kNone, true, Solo(now_ns)};
}

}  // namespace iashim::policy
