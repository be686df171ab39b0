// Solo probes: a guaranteed job that never ran alone gets a baseline by
// holding its co-runners for a second or two (policy/solo_probe.h decides;
// this applies it with budgets).
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/daemon/coordinator.h"

namespace iashim::daemon {
namespace {

// Co-runners are held at the policy's default share.
constexpr policy::SoloProbeOptions kProbe{};

bool Taken(const Job& corunner) { return corunner.share <= kProbe.hold_share + 1e-4; }

// What the probe of guaranteed job `g` needs to know, from the daemon's view.
policy::SoloProbeInput ProbeInput(const Job& g, const std::vector<Job*>& corunners) {
  policy::SoloProbeInput in;
  in.shared = !corunners.empty();
  in.has_baseline = g.profile.baseline_source() != policy::BaselineSource::kNone;
  in.baseline_contended = g.profile.baseline_contended();
  in.telemetry_s = g.telemetry_s;
  in.window_s = g.window_s;
  if (const auto ns = g.profile.iteration_ns()) in.iteration_s = *ns / 1e9;
  in.corunners_held = std::all_of(corunners.begin(), corunners.end(),
                                  [](const Job* c) { return c->held && Taken(*c); });
  return in;
}

}  // namespace

double Coordinator::ReleaseFactor(const Job& probed) const {
  // A gang's pace before the hold is its slowest rank's (IterationNs), read
  // against its ranks' baselines as the loop reads it: one rank's co-runner
  // that slowed the gang slowed all of it.
  const std::optional<double> slowdown = SlowdownBeforeProbe(probed);
  if (!slowdown) return 1.0;
  const double before = *slowdown;
  const double target = LoopTargetOf(probed);
  if (!(before > target)) return 1.0;
  // Harm in proportion to the share, as the loop's own cuts and raises
  // reckon it: the co-runners' shares times this land at its headroom. The
  // time before the hold holds the job's own start-up too (warmup_s is its
  // first telemetry): erring low, a co-runner waits for the loop's raises.
  return policy::ShareControllerOptions{}.headroom * target / before;
}

void Coordinator::LogProbeEvent(const Job& probed, policy::SoloProbeEvent event, size_t corunners,
                                double release_factor) {
  const std::string& id = probed.id;
  // What the probe found and where the co-runners go: its solo step, the
  // job's slowdown beside them before the hold, and the release.
  const auto found = [&] {
    std::string text;
    if (const std::optional<double> ns = probed.profile.baseline_iteration_ns()) {
      absl::StrAppendFormat(&text, ", %.1f ms an iteration", *ns / 1e6);
    }
    if (const std::optional<double> before = SlowdownBeforeProbe(probed)) {
      absl::StrAppendFormat(&text, "; %.3f slow beside them before", *before);
    }
    if (release_factor < 1.0) {
      absl::StrAppendFormat(&text,
                            ", over its loop's target %.3f: co-runners go back at %.2f of their "
                            "shares",
                            LoopTargetOf(probed), release_factor);
    } else {
      absl::StrAppend(&text, ": co-runners go back to their shares");
    }
    return text;
  };
  switch (event) {
    case policy::SoloProbeEvent::kStarted:
      return events_.Add(
          {id},
          absl::StrFormat(
              "probe of %s: holding its %d co-runner(s) to measure it alone (it never ran alone)",
              id, corunners));
    case policy::SoloProbeEvent::kMeasured:
      return events_.Add({id}, absl::StrCat("probe of ", id, ": measured alone", found()));
    case policy::SoloProbeEvent::kContended:
      return events_.Add({id}, absl::StrCat("probe of ", id,
                                            ": measured alone while its threads waited for a CPU "
                                            "(retried later; meanwhile, with the wait taken out)",
                                            found()));
    case policy::SoloProbeEvent::kTimedOut:
      return events_.Add(
          {id}, absl::StrFormat(
                    "probe of %s: no baseline within %.0f s; co-runners released, retried later",
                    id, kProbe.max_hold_s));
    case policy::SoloProbeEvent::kAborted:
      return events_.Add(
          {id}, absl::StrFormat("probe of %s: ended, the job no longer shares its GPU", id));
    case policy::SoloProbeEvent::kNone:
      return;
  }
}

bool Coordinator::ProbeHolds(const std::vector<Job*>& connected_on_gpu) {
  for (const Job* job : connected_on_gpu) {
    if (job->held || job->probe.active()) return true;
  }
  return false;
}

void Coordinator::CountProbeEvent(policy::SoloProbeEvent event) {
  switch (event) {
    case policy::SoloProbeEvent::kStarted:
      ++counters_.probes_started;
      break;
    case policy::SoloProbeEvent::kMeasured:
      ++counters_.probes_measured;
      break;
    case policy::SoloProbeEvent::kTimedOut:
      ++counters_.probes_timed_out;
      break;
    case policy::SoloProbeEvent::kAborted:
      ++counters_.probes_aborted;
      break;
    case policy::SoloProbeEvent::kContended:
      ++counters_.probes_cpu_contended;
      break;
    case policy::SoloProbeEvent::kNone:
      break;
  }
}

void Coordinator::HoldCoRunners(const std::vector<Job*>& corunners, double ttl_s, int64_t now_ns,
                                int64_t unix_ns, std::vector<Outgoing>* out) {
  for (Job* c : corunners) {
    if (!c->held) {
      c->share_before_hold = c->sent_share;
      c->held = true;
    }
    // Sent once, and again only if the shim has not taken it within a second
    // (a lost message); its TTL ends the hold anyway.
    if (c->sent_share > kProbe.hold_share + 1e-4 ||
        (!Taken(*c) && now_ns - c->budget_sent_ns > 1'000'000'000)) {
      SendBudget(*c, kProbe.hold_share, now_ns, unix_ns, out, ttl_s);
    }
  }
}

void Coordinator::RunProbes(int64_t now_ns, int64_t unix_ns, bool may_start,
                            std::vector<Outgoing>* out) {
  std::map<policy::GpuId, std::vector<Job*>> by_gpu = ConnectedJobsByGpu();
  // A guaranteed job probes with the opportunistic jobs of every GPU it runs
  // on held: a gang runs at its slowest rank's speed, so a co-runner left on
  // one of its GPUs would be measured into its "solo" speed.
  std::set<const Job*> still_held;
  for (auto& [id, g] : jobs_) {
    if (!g.connected || g.priority != policy::Priority::kGuaranteed) continue;
    if (!g.probe.active() && !may_start) continue;
    std::vector<Job*> corunners;
    for (const policy::GpuId& gpu : GpusOf(g)) {
      for (Job* j : by_gpu[gpu]) {
        if (j->priority == policy::Priority::kOpportunistic &&
            std::find(corunners.begin(), corunners.end(), j) == corunners.end()) {
          corunners.push_back(j);
        }
      }
    }
    const policy::SoloProbeStep step = g.probe.Step(now_ns, ProbeInput(g, corunners));
    CountProbeEvent(step.event);
    if (step.event == policy::SoloProbeEvent::kStarted)
      g.iteration_before_probe_ns = IterationNs(g);
    double factor = 1.0;
    if (step.event == policy::SoloProbeEvent::kMeasured ||
        step.event == policy::SoloProbeEvent::kContended) {
      // Released not to shares the job was measured too slow beside: a
      // co-runner the model thought harmless goes back to a full share,
      // and the loop's cuts, one per decrease_hold_s, would take seconds.
      // A contended probe's baseline (its wait taken out) stands in until
      // the retry, so the loop reads the job against it: so does this.
      factor = ReleaseFactor(g);
      for (Job* c : corunners) c->release_factor = std::min(c->release_factor, factor);
    }
    LogProbeEvent(g, step.event, corunners.size(), factor);
    if (!step.hold) continue;
    // The hold budget lapses at the probe's deadline by itself: even a
    // coordinator that dies mid-probe leaves no co-runner held.
    const double left_s =
        g.probe.options().max_hold_s - double(now_ns - g.probe.state().started_ns) / 1e9;
    HoldCoRunners(corunners, std::max(left_s, 1.0), now_ns, unix_ns, out);
    still_held.insert(corunners.begin(), corunners.end());
  }
  // Every held job no probe holds now (measured, timed out, the probed job
  // left, or the held one reconnected): given its share back.
  for (auto& [id, job] : jobs_) {
    if (!job.held || (job.connected && still_held.contains(&job))) continue;
    job.held = false;
    const double share = std::max(policy::ShareControllerOptions{}.min_share,
                                  job.share_before_hold * job.release_factor);
    job.release_factor = 1.0;
    if (job.connected)
      SendBudget(job, std::min(share, job.share_before_hold), now_ns, unix_ns, out);
  }
}

}  // namespace iashim::daemon
