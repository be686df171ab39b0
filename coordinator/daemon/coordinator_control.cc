// The coordinator's timers: heartbeats, the control loop and what it learns.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/wire_convert.h"

namespace iashim::daemon {
namespace {

constexpr int64_t kObservationEveryNs = 10 * kSecond;

}  // namespace

void Coordinator::OnTick(int64_t now_ns, int64_t unix_ns, std::vector<Outgoing>* out) {
  std::vector<std::string> forget;
  std::set<std::string> silent_hosts;
  for (auto& [id, job] : jobs_) {
    const bool was_connected = job.connected;
    if (job.is_gang()) DisconnectSilentRanks(job, now_ns);
    if (job.connected && now_ns - job.last_seen_ns > Ns(options_.heartbeat_timeout_s)) {
      Disconnect(job);
    }
    if (was_connected && !job.connected) {
      job.created_ns = now_ns;  // the forget timer runs from here
      job.lost = true;          // silence, not a Goodbye
      silent_hosts.insert(job.host);
      events_.Add({id}, absl::StrFormat("%s lost: not heard from on %s for %.0f s, and no Goodbye",
                                        id, job.host, options_.heartbeat_timeout_s));
    }
    if (!job.connected && now_ns - std::max(job.created_ns, job.last_seen_ns) >
                              Ns(options_.forget_after_s)) {
      forget.push_back(id);
    }
  }
  for (const std::string& id : forget) {
    events_.Add({id}, absl::StrFormat("forgot %s: no process of it heard for %.0f s", id,
                                      options_.forget_after_s));
    Remove(id);
  }
  // A node whose every connected job fell silent is lost (node_health.h).
  for (const std::string& host : silent_hosts) {
    const bool others = std::any_of(jobs_.begin(), jobs_.end(), [&](const auto& j) {
      return j.second.connected && j.second.host == host;
    });
    if (nodes_.JobWentSilent(host, others)) {
      events_.Add({}, absl::StrFormat("node %s lost: every job on it fell silent", host));
    }
  }
  reservations_.Expire(now_ns);
  std::erase_if(released_ns_, [&](const auto& r) { return now_ns - r.second >= kReleasedHoldNs; });
  for (auto it = hello_asked_ns_.begin(); it != hello_asked_ns_.end();) {
    it = now_ns - it->second > 60 * kSecond ? hello_asked_ns_.erase(it) : std::next(it);
  }
  const bool control_tick = now_ns >= next_control_ns_;
  if (control_tick) {
    next_control_ns_ = now_ns + Ns(options_.control_period_s);
    LearnBaselines();
    RememberKindTraits();
    AttributeEnergy(now_ns);
  }
  // Probes first: a GPU whose co-runners a probe holds is not the control loop's.
  if (options_.control && options_.probe) RunProbes(now_ns, unix_ns, control_tick, out);
  if (control_tick && options_.control) RunControl(now_ns, unix_ns, out);
  if (control_tick && !options_.move_command.empty()) PlanMoves(now_ns);
  if (now_ns >= next_observation_ns_) {
    next_observation_ns_ = now_ns + kObservationEveryNs;
    RecordObservations(unix_ns);
    LearnBudgets(now_ns);
  }
}

void Coordinator::AttributeEnergy(int64_t now_ns) {
  std::map<policy::GpuId, std::vector<EnergyLedger::GpuTime>> by_gpu;
  for (const auto& [id, job] : jobs_) {
    if (!job.connected || !job.gpu) continue;
    if (!job.is_gang()) {
      by_gpu[*job.gpu].push_back({id, job.profile.busy().value_or(0)});
      continue;
    }
    // A gang on each GPU a rank of it runs on, by that rank's GPU time.
    for (const auto& [rank, r] : job.ranks) {
      const std::optional<policy::GpuId> gpu = RankGpu(job, rank);
      if (r.connected && gpu) by_gpu[*gpu].push_back({id, r.profile.busy().value_or(0)});
    }
  }
  energy_.Attribute(by_gpu, double(now_ns) / 1e9);
}

std::map<policy::GpuId, std::vector<Job*>> Coordinator::ConnectedJobsByGpu() {
  std::map<policy::GpuId, std::vector<Job*>> by_gpu;
  for (auto& [id, job] : jobs_) {
    if (!job.connected) continue;
    for (const policy::GpuId& gpu : GpusOf(job)) by_gpu[gpu].push_back(&job);
  }
  return by_gpu;
}

std::map<policy::GpuId, std::vector<Job*>> Coordinator::ControlledJobsByGpu() {
  // Between a guaranteed job's placement and its shim's Hello (its process
  // starting: a second or more on a loaded Slurm node) the job is on its GPUs
  // already, and a loop that saw no guaranteed job there would take back the
  // cut its placement made (CapCoRunnersOfPlaced): an 8-s job on the live rig
  // spent its first 3 s beside a co-runner at full speed. Until it connects
  // its slowdown is unknown, so the loop holds the shares; one that never
  // does is forgotten after forget_after_s. Lost jobs are not waited for. A
  // job restored from the state store after a restart counts the same until
  // its shim says Hello again: its co-runners keep the shares they hold.
  std::map<policy::GpuId, std::vector<Job*>> by_gpu = ConnectedJobsByGpu();
  for (auto& [id, job] : jobs_) {
    const bool pending = !job.connected && !job.lost && job.last_seen_ns == 0;
    if (!pending || job.priority != policy::Priority::kGuaranteed) continue;
    for (const policy::GpuId& gpu : GpusOf(job)) by_gpu[gpu].push_back(&job);
  }
  return by_gpu;
}

void Coordinator::RunControl(int64_t now_ns, int64_t unix_ns, std::vector<Outgoing>* out) {
  // A gang is on each of its GPUs: a guaranteed gang is protected on every
  // one, each GPU held to what its rank costs the gang (gang_slowdown.h), and
  // an opportunistic gang runs at the least share any of them gives it (one
  // budget for the whole job: a rank given more would only wait for the rest).
  // Each opportunistic job's least share over its GPUs' loops, and the loop
  // that gave it, in the order first stepped.
  struct LoopShare {
    Job* job;
    double share;
    Job::ShareSource source;
  };
  std::vector<LoopShare> shares;
  loop_decisions_.clear();
  std::set<policy::GpuId> at_floor;
  for (auto& [gpu, jobs] : ControlledJobsByGpu()) {
    if (ProbeHolds(jobs)) {
      loop_decisions_[gpu] = {.action = "probe holds the co-runners (measuring the solo speed)"};
      if (co_runners_at_floor_.contains(gpu)) at_floor.insert(gpu);
      continue;
    }
    std::vector<policy::GuaranteedJob> guaranteed;
    std::vector<policy::OpportunisticJob> opportunistic;
    std::vector<Job*> opp_jobs;
    for (Job* job : jobs) {
      const bool is_guaranteed = job->priority == policy::Priority::kGuaranteed;
      // Made guaranteed while throttled (iashim priority): lift its budget,
      // and forget the slowdown its own budget caused, which no co-runner's
      // cut can repair (once: the budget sent is then 1).
      if (is_guaranteed && job->sent_share < 1.0 - 1e-4) {
        SendBudget(*job, 1.0, now_ns, unix_ns, out);
        ForgetSpeed(*job);
      }
      // A guaranteed job's run, its time beside a guaranteed job included:
      // its user waits through that too, and the loop repays it
      // (policy/run_slowdown.h). Once per tick (a gang's later GPUs add
      // nothing at the same time).
      if (is_guaranteed) {
        job->run.Observe(now_ns, Slowdown(*job));
        guaranteed.push_back({.job = job->id,
                              .slowdown = SlowdownOnGpu(*job, gpu, gang_budgets_),
                              .slowdown_target = LoopTargetOf(*job),
                              .own_target = TargetOf(*job)});
      } else {
        opportunistic.push_back({job->id, CapForNewGuaranteed(*job, jobs)});
        opp_jobs.push_back(job);
      }
    }
    if (opportunistic.empty()) continue;
    auto [it, inserted] = controllers_.try_emplace(gpu);
    const policy::ShareStep step = it->second.Step(now_ns, guaranteed, opportunistic);
    const policy::ShareController::Band band = it->second.CurrentBand();
    loop_decisions_[gpu] = {.action = std::string(policy::ShareActionName(step.action)),
                            .worst_ratio = step.worst_ratio,
                            .calm_below = band.calm,
                            .aim = band.headroom};
    if (step.at_floor) at_floor.insert(gpu);
    Job::ShareSource source{.gpu = gpu, .defends = {}};
    for (const policy::GuaranteedJob& g : guaranteed) source.defends.push_back(g.job);
    for (size_t i = 0; i < opp_jobs.size() && i < step.shares.size(); ++i) {
      const double share = step.shares[i].share;
      const auto seen = std::find_if(shares.begin(), shares.end(),
                                     [&](const LoopShare& s) { return s.job == opp_jobs[i]; });
      if (seen == shares.end()) {
        shares.push_back({opp_jobs[i], share, source});
      } else if (share < seen->share) {
        seen->share = share;
        seen->source = source;
      }
    }
  }
  co_runners_at_floor_ = std::move(at_floor);
  for (auto& [id, job] : jobs_) job.share_set_by.reset();
  for (auto& [job, share, source] : shares) {
    if (share < 1.0 - 1e-4) job->share_set_by = std::move(source);
    // Refresh well before the budget's TTL runs out; send at once on a change.
    const bool changed = std::abs(share - job->sent_share) > 1e-4;
    const bool due = job->budget_sent_ns == 0 ||
                     now_ns - job->budget_sent_ns >= Ns(options_.budget_ttl_s / 3);
    if (changed || (due && (share < 1.0 || job->share < 1.0))) {
      SendBudget(*job, share, now_ns, unix_ns, out);
    }
  }
}

double Coordinator::CapForNewGuaranteed(Job& opportunistic, const std::vector<Job*>& on_gpu) {
  // A guaranteed job that arrives next to a running one (or comes back from a
  // probe's hold) would otherwise meet it at the share it held alone, and the
  // loop's cuts, at most halving once per decrease_hold_s, take seconds to
  // reach the budget: the model's estimate gets there at once.
  double share = opportunistic.sent_share;
  std::vector<const Job*> co_runners;
  for (const Job* g : on_gpu) {
    if (g->priority != policy::Priority::kGuaranteed) continue;
    if (!opportunistic.capped_for.insert(g->id).second) continue;
    if (co_runners.empty()) {
      for (const Job* o : on_gpu) {
        if (o->priority == policy::Priority::kOpportunistic) co_runners.push_back(o);
      }
    }
    share = std::min(share, ProtectiveShare(*g, co_runners));
  }
  return share;
}

void Coordinator::CapCoRunnersOfPlaced(Job& guaranteed, int64_t now_ns, int64_t unix_ns,
                                       std::vector<Outgoing>* out) {
  // A short guaranteed job would otherwise spend its first second next to a
  // co-runner at full speed: the tick after its Hello is up to a control
  // period away. A GPU a probe holds is left to the probe: its co-runners
  // are capped when they come back (RunControl).
  if (!options_.control) return;
  const std::map<policy::GpuId, std::vector<Job*>> by_gpu = ConnectedJobsByGpu();
  std::set<Job*> capped;
  for (const policy::GpuId& gpu : GpusOf(guaranteed)) {
    const auto on = by_gpu.find(gpu);
    if (on == by_gpu.end() || ProbeHolds(on->second)) continue;
    // The GPU's jobs with the placed one, which has not connected yet.
    std::vector<Job*> with_placed = on->second;
    if (std::find(with_placed.begin(), with_placed.end(), &guaranteed) == with_placed.end()) {
      with_placed.push_back(&guaranteed);
    }
    for (Job* job : on->second) {
      if (job->priority != policy::Priority::kOpportunistic || !capped.insert(job).second) {
        continue;
      }
      const double share = CapForNewGuaranteed(*job, with_placed);
      if (share < job->sent_share - 1e-4) SendBudget(*job, share, now_ns, unix_ns, out);
    }
  }
}

void Coordinator::SendBudget(Job& job, double share, int64_t now_ns, int64_t unix_ns,
                             std::vector<Outgoing>* out, double ttl_s) {
  // Sequence numbers must keep increasing across restarts: take the wall
  // clock in microseconds unless the stored sequence is already past it.
  budget_seq_ = std::max<uint64_t>(budget_seq_ + 1, uint64_t(unix_ns / 1000));
  if (store_ != nullptr) Check(store_->SetBudgetSeq(budget_seq_));
  flatbuffers::FlatBufferBuilder fbb(128);
  const auto b = wire::CreateBudget(fbb, budget_seq_, share, 0, ToWire(job.priority),
                                    uint32_t((ttl_s > 0 ? ttl_s : options_.budget_ttl_s) * 1000),
                                    uint64_t(unix_ns));
  const std::string bytes = EnvelopeBytes(fbb, wire::Payload::Budget, b.Union());
  if (job.is_gang()) {
    // Once per process: one driving several GPUs holds several ranks.
    std::set<std::string> sent;
    for (const auto& [rank, r] : job.ranks) {
      if (r.connected && sent.insert(r.identity).second) out->push_back({r.identity, bytes});
    }
  } else {
    out->push_back({job.identity, bytes});
  }
  ++counters_.budgets_sent;
  const bool changed = std::abs(share - job.sent_share) > 1e-4;
  job.sent_share = share;
  job.budget_sent_ns = now_ns;
  if (changed) job.share_changed_ns = now_ns;
  if (changed && !job.held) Persist(job);
}

void Coordinator::LearnBaselines() {
  if (store_ == nullptr) return;
  for (auto& [id, job] : jobs_) {
    if (!job.connected || !job.profile.fingerprint_stable()) continue;
    const uint64_t fp = job.profile.fingerprint();
    const auto& baselines = store_->state().baselines;
    if (!job.baseline_seeded) {
      job.baseline_seeded = true;
      Persist(job);  // now with its fingerprint
      if (auto b = baselines.find(fp); b != baselines.end() && !job.profile.baseline_iteration_ns()) {
        job.profile.SeedBaseline(uint64_t(b->second.iteration_ns), b->second.kernels_per_s);
      }
    }
    // A baseline the job measured itself (alone, or with its co-runners held
    // by a probe) is worth keeping for the next run of the same model; a seed
    // is what was saved already, and one measured while the host kept the job
    // waiting for a CPU would read the next run slow too.
    const std::optional<double> own = job.profile.baseline_iteration_ns();
    const policy::BaselineSource source = job.profile.baseline_source();
    if (!own ||
        (source != policy::BaselineSource::kAlone && source != policy::BaselineSource::kProbe) ||
        job.profile.baseline_contended()) {
      continue;
    }
    if (job.baseline_saved_ns > 0 && std::abs(*own - job.baseline_saved_ns) < 0.02 * *own) continue;
    state::BaselineRecord r;
    r.fingerprint = fp;
    r.iteration_ns = *own;
    r.kernels_per_s = job.profile.baseline_kernels_per_s().value_or(0);
    r.busy = job.profile.busy().value_or(0);
    r.samples = job.telemetry_batches;
    Check(store_->PutBaseline(r));
    job.baseline_saved_ns = *own;
  }
}

void Coordinator::LearnBudgets(int64_t now_ns) {
  // A share in force this long has been measured at: the budget reaches the
  // shim within a tick, and the slowdown's EWMA has absorbed 86% of a step
  // after two of its 3 s time constants.
  const int64_t settled_ns = Ns(2 * policy::ShareControllerOptions{}.decrease_hold_s);
  for (auto& [gpu, on] : ConnectedJobsByGpu()) {
    std::erase_if(on, [](const Job* j) { return j->is_gang(); });  // one-GPU jobs only
    if (on.size() != 2) continue;
    const bool first_guaranteed = on[0]->priority == policy::Priority::kGuaranteed;
    const Job& g = first_guaranteed ? *on[0] : *on[1];
    const Job& o = first_guaranteed ? *on[1] : *on[0];
    if (g.priority != policy::Priority::kGuaranteed ||
        o.priority != policy::Priority::kOpportunistic || g.held || o.held ||
        o.sent_share >= 0.999 || now_ns - o.share_changed_ns < settled_ns) {
      continue;
    }
    const std::optional<double> slowdown = g.profile.slowdown();
    const policy::JobTraits victim = Traits(g);
    const policy::JobTraits aggressor = Traits(o);
    if (!slowdown || victim.kind == kUnknownKind || aggressor.kind == kUnknownKind) continue;
    // Recorded as the pace the budget left it (ProtectiveShare's units).
    const double pace = o.sent_share / FullPaceGpuTime(o, aggressor, victim);
    budget_memory_.Observe(victim.kind, aggressor.kind, pace, 1 / (1 + *slowdown),
                           interference_.Predict(victim, aggressor).throughput);
  }
}

void Coordinator::RecordObservations(int64_t unix_ns) {
  if (store_ == nullptr) return;
  // What shares each GPU: one-GPU jobs, and gangs' ranks, each on its GPU
  // with its own slowdown there (time outside collectives: the per-GPU
  // effect; a gang's speed is its slowest rank's, which placement predicts).
  struct OnGpu {
    uint64_t fingerprint = 0;
    std::optional<double> slowdown;
    double share = 1;
    std::string kind;
  };
  std::map<policy::GpuId, std::vector<OnGpu>> by_gpu;
  for (const auto& [id, job] : jobs_) {
    if (!job.connected) continue;
    if (!job.is_gang()) {
      if (job.gpu && job.profile.fingerprint_stable()) {
        by_gpu[*job.gpu].push_back(
            {job.profile.fingerprint(), job.profile.slowdown(), job.share, Traits(job).kind});
      }
      continue;
    }
    const std::string kind = Traits(job).kind;
    for (const auto& [rank, r] : job.ranks) {
      const std::optional<policy::GpuId> gpu = RankGpu(job, rank);
      if (!r.connected || !gpu || !r.profile.fingerprint_stable()) continue;
      by_gpu[*gpu].push_back({r.profile.fingerprint(), OwnSlowdown(r), job.share, kind});
    }
  }
  for (const auto& [gpu, on] : by_gpu) {
    // Pairs only: what the interference model learns from (issue 6).
    if (on.size() != 2) continue;
    const OnGpu& a = on[0];
    const OnGpu& b = on[1];
    if (!a.slowdown && !b.slowdown) continue;
    std::string type;
    for (const policy::GpuInfo& g : cluster_.gpus) {
      if (g.id == gpu) type = g.type;
    }
    state::ObservationRecord r;
    r.gpu_type = type.empty() ? "unknown" : type;
    r.fingerprint_a = a.fingerprint;
    r.fingerprint_b = b.fingerprint;
    r.slowdown_a = a.slowdown.value_or(-1);
    r.slowdown_b = b.slowdown.value_or(-1);
    r.share_a = a.share;
    r.share_b = b.share;
    r.unix_ns = unix_ns;
    r.kind_a = a.kind;
    r.kind_b = b.kind;
    LearnInterference(r);
    Check(store_->AddObservation(r));
  }
}

}  // namespace iashim::daemon
