#include "coordinator/daemon/coordinator.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/text/names.h"
#include "coordinator/daemon/job_token.h"
#include "coordinator/daemon/wire_convert.h"
#include "coordinator/policy/interference_placement.h"
#include "coordinator/policy/protective_share.h"

namespace iashim::daemon {
namespace {

constexpr int64_t kHelloAdviceEveryNs = kSecond / 2;

SnapshotExtras AskedExtras(const wire::StatusRequest& request) {
  return {.pairs = request.pairs(),
          .events = request.events(),
          .events_of = Clean(request.events_of(), 128)};
}

}  // namespace

Coordinator::Coordinator(DaemonOptions options, policy::Cluster cluster, state::StateStore* store,
                         std::unique_ptr<policy::PlacementPolicy> placement, int64_t now_ns)
    : options_(std::move(options)),
      gang_budgets_(ParseGangBudgets(options_.gang_budgets).value_or(GangBudgets::kStragglerAware)),
      cluster_(std::move(cluster)),
      store_(store),
      placement_(std::move(placement)),
      reservations_(Ns(options_.reservation_ttl_s)),
      started_ns_(now_ns) {
  if (placement_ == nullptr) {
    policy::InterferenceAwarePlacement::Options o;
    o.min_gain = options_.min_gain;
    o.max_jobs_per_gpu = 0;  // memory decides; measured pairs are not the daemon's limit
    placement_ = std::make_unique<policy::InterferenceAwarePlacement>(
        &interference_, nullptr, o, options_.packing ? &request_mix_ : nullptr);
  }
  Restore(now_ns);
}

void Coordinator::Restore(int64_t now_ns) {
  if (store_ == nullptr) return;
  const state::State& s = store_->state();
  budget_seq_ = s.budget_seq;
  for (const auto& [id, r] : s.jobs) {
    // The forget timer starts again (now_ns): its shim may reconnect.
    Job job = NewJob(id, r.token,
                     r.priority,
                     now_ns, r.registered_unix_ns);
    job.mem_bytes = r.mem_bytes;
    if (r.gpu_index >= 0) job.gpu = policy::GpuId{r.gpu_host, r.gpu_index};
    if (job.gpu && r.gang_gpus.size() > 1) {
      for (const int32_t index : r.gang_gpus) job.gang_gpus.push_back({r.gpu_host, index});
    }
    job.slowdown_target = r.slowdown_target > 0 ? r.slowdown_target : options_.slowdown_target;
    job.share = job.sent_share = r.share;
    job.pid = r.pid;
    job.host = r.host;
    job.command = r.command;
    job.kind = r.kind;
    job.batch = {r.batch_system, r.batch_job, r.batch_step, r.batch_task};
    jobs_.emplace(id, std::move(job));
  }
  for (const state::ObservationRecord& o : s.observations) LearnInterference(o);
  RestoreDrained();
}

void Coordinator::Check(const absl::Status& status) {
  if (!status.ok()) ++counters_.state_errors;
}

void Coordinator::Persist(const Job& job) {
  if (store_ == nullptr) return;
  state::JobRecord r;
  r.job = job.id;
  r.pid = job.pid;
  r.host = job.host;
  r.command = job.command;
  r.priority = job.priority;
  r.mem_bytes = job.mem_bytes;
  if (job.gpu) {
    r.gpu_host = job.gpu->host;
    r.gpu_index = job.gpu->index;
    for (const policy::GpuId& g : job.gang_gpus) r.gang_gpus.push_back(g.index);
  }
  r.slowdown_target = job.slowdown_target;
  // A probe's hold is never persisted: a restart must not leave a job held.
  r.share = job.held ? job.share_before_hold : job.sent_share;
  r.fingerprint = job.profile.fingerprint_stable() ? job.profile.fingerprint() : 0;
  r.registered_unix_ns = job.registered_unix_ns;
  r.kind = job.kind;
  r.token = job.token;
  r.batch_system = job.batch.system;
  r.batch_job = job.batch.job;
  r.batch_step = job.batch.step;
  r.batch_task = job.batch.task;
  Check(store_->PutJob(r));
}

void Coordinator::OnMessage(const Sender& from, std::span<const uint8_t> bytes, int64_t now_ns,
                            int64_t unix_ns, std::vector<Outgoing>* out) {
  const std::string_view identity = from.identity;
  ++counters_.messages;
  std::vector<uint64_t> aligned;
  const wire::OpenedEnvelope in = wire::OpenEnvelope(bytes.data(), bytes.size(), &aligned);
  switch (in.error) {
    case wire::EnvelopeError::kNone: break;
    case wire::EnvelopeError::kWrongVersion: ++counters_.wrong_version; return;
    case wire::EnvelopeError::kInvalid: ++counters_.invalid; return;
  }
  const wire::Envelope* e = in.envelope;
  auto reply = [&](std::string message) {
    out->push_back({std::string(identity), std::move(message)});
  };
  switch (e->payload_type()) {
    case wire::Payload::Hello:
      OnHello(identity, *e->payload_as_Hello(), now_ns, unix_ns, out);
      break;
    case wire::Payload::TelemetryBatch:
      OnTelemetry(identity, *e->payload_as_TelemetryBatch(), now_ns, out);
      break;
    case wire::Payload::KernelNames:
      OnKernelNames(identity, *e->payload_as_KernelNames());
      break;
    case wire::Payload::Goodbye:
      OnGoodbye(identity);
      break;
    case wire::Payload::PlaceRequest:
      OnPlace(identity, *e->payload_as_PlaceRequest(), now_ns, unix_ns, out);
      break;
    case wire::Payload::StatusRequest:
      reply(EncodeSnapshot(now_ns, unix_ns, AskedExtras(*e->payload_as_StatusRequest())));
      break;
    case wire::Payload::AdminRequest:
      OnAdmin(from, *e->payload_as_AdminRequest(), out);
      break;
    case wire::Payload::ReleaseRequest:
      OnRelease(identity, *e->payload_as_ReleaseRequest(), now_ns, out);
      break;
    case wire::Payload::NONE:
      ++counters_.invalid;
      break;
    default:
      // Budgets, replies, snapshots: what a coordinator sends, not takes.
      ++counters_.unexpected;
      reply(EncodeError("the coordinator does not take this message"));
      break;
  }
}

Job* Coordinator::BoundJob(std::string_view identity) {
  auto it = identity_to_job_.find(std::string(identity));
  if (it == identity_to_job_.end()) return nullptr;
  auto job = jobs_.find(it->second);
  return job == jobs_.end() ? nullptr : &job->second;
}

std::optional<policy::GpuId> Coordinator::SoleGpuOf(const std::string& host) const {
  std::optional<policy::GpuId> found;
  for (const policy::GpuInfo& g : cluster_.gpus) {
    if (g.id.host != host) continue;
    if (found) return std::nullopt;
    found = g.id;
  }
  return found;
}

void Coordinator::OnHello(std::string_view identity, const wire::Hello& hello, int64_t now_ns,
                          int64_t unix_ns, std::vector<Outgoing>* out) {
  const int pid = hello.pid();
  const std::string host = Clean(hello.host(), 255);
  std::string id = Clean(hello.job(), 128);
  if (id.empty()) id = absl::StrCat(host, ":", pid);
  if (!ValidJobName(id) || pid <= 0) {
    ++counters_.refused_claims;
    out->push_back({std::string(identity),
                    EncodeAdvice(wire::AdviceKind::Refused,
                                 "invalid job id or pid in Hello; running unmanaged")});
    return;
  }
  const std::string token = Clean(hello.token(), 64);
  auto refuse = [&](std::string why) {
    ++counters_.refused_claims;
    out->push_back({std::string(identity),
                    EncodeAdvice(wire::AdviceKind::Refused, absl::StrCat(why, "; running unmanaged"))});
  };
  std::string new_token;  // sent back when this Hello creates the job
  auto it = jobs_.find(id);
  if (it != jobs_.end()) {
    Job& job = it->second;
    // Whether or not the job's process is connected: without the token, a
    // process could take over a placed job's budget and profile.
    if (!job.token.empty() && !SameToken(token, job.token)) {
      ++counters_.refused_tokens;
      return refuse(absl::StrFormat(
          "job id '%s' exists and this Hello %s its token (IASHIM_JOB_TOKEN, from `iashim run` "
          "or `iashim place`)",
          id, token.empty() ? "does not carry" : "carries a wrong"));
    }
    if (job.is_gang()) return HelloFromRank(identity, job, pid, host, hello, now_ns, out);
    const bool same_process = job.pid == pid && job.host == host;
    if (job.connected && job.identity != identity && !same_process) {
      ++counters_.refused_claims;
      out->push_back({std::string(identity),
                      EncodeAdvice(wire::AdviceKind::Refused,
                                   absl::StrFormat("job id '%s' belongs to pid %d on %s", id,
                                                   job.pid, job.host))});
      return;
    }
    if (job.connected && job.identity != identity) identity_to_job_.erase(job.identity);
  } else {
    if (const auto released = released_ns_.find(id);
        released != released_ns_.end() && now_ns - released->second < kReleasedHoldNs) {
      return refuse(absl::StrFormat(
          "job id '%s' was released by its batch system %.1f s ago (this is its process ending)",
          id, double(now_ns - released->second) / 1e9));
    }
    // A job no one placed (or one a coordinator without its state forgot):
    // a token the shim already holds stays its token, so a shim that was
    // given one keeps it; otherwise mint one and tell the shim.
    std::string job_token = token;
    if (!ValidJobToken(job_token)) {
      absl::StatusOr<std::string> fresh = NewJobToken();
      if (!fresh.ok()) return refuse(absl::StrCat("no job token: ", fresh.status().message()));
      job_token = new_token = *std::move(fresh);
    }
    Job job = NewJob(id, std::move(job_token), FromWire(hello.priority()), now_ns, unix_ns);
    job.gpu = SoleGpuOf(host);
    job.mem_bytes = hello.mem_limit_bytes();
    job.share = job.sent_share = std::clamp(hello.share(), 0.001, 1.0);
    it = jobs_.emplace(id, std::move(job)).first;
  }
  Job& job = it->second;
  // One routing id is one process: if it was another job's, it is no more.
  if (Job* previous = BoundJob(identity); previous != nullptr && previous != &job) {
    DisconnectProcess(*previous, identity);
  }
  const bool changed = job.pid != pid || job.host != host || !job.connected;
  job.identity = std::string(identity);
  job.pid = pid;
  job.host = host;
  job.command = Clean(hello.command(), 256);
  if (!job.connected) {
    for (const policy::GpuId& g : GpusOf(job)) ++connected_on_gpu_[g];
  }
  job.connected = true;
  if (changed) {
    events_.Add({id}, absl::StrFormat("%s %s: pid %d on %s", id,
                                      job.lost ? "heard again" : "connected", pid, host));
  }
  job.lost = false;
  job.last_seen_ns = now_ns;
  NodeHeard(host, now_ns);
  if (hello.mem_limit_bytes() != 0) job.mem_limit_bytes = hello.mem_limit_bytes();
  identity_to_job_[job.identity] = id;
  hello_asked_ns_.erase(job.identity);
  if (changed || !new_token.empty()) Persist(job);
  if (!new_token.empty()) {
    out->push_back({std::string(identity), EncodeAdvice(wire::AdviceKind::Token, new_token)});
  }
}

void Coordinator::OnTelemetry(std::string_view identity, const wire::TelemetryBatch& batch, int64_t now_ns,
                              std::vector<Outgoing>* out) {
  Job* job = BoundJob(identity);
  if (job == nullptr) {
    ++counters_.unbound_telemetry;
    // Most likely we restarted and this shim is still connected: ask who it is.
    int64_t& asked = hello_asked_ns_[std::string(identity)];
    if (asked == 0 || now_ns - asked >= kHelloAdviceEveryNs) {
      asked = now_ns;
      out->push_back({std::string(identity), EncodeAdvice(wire::AdviceKind::SendHello, "")});
    }
    return;
  }
  ++counters_.telemetry_batches;
  job->last_seen_ns = now_ns;
  NodeHeard(job->host, now_ns);
  const policy::TelemetryWindow w = ToWindow(batch);
  const bool alone = AloneOnGpu(*job);
  // With its co-runners held by a probe (on every GPU of a gang).
  const bool probed = !alone && job->probe.Solo(now_ns);
  const policy::BaselineSource origin =
      probed ? policy::BaselineSource::kProbe : policy::BaselineSource::kAlone;
  std::optional<policy::GpuId> gpu = job->gpu;
  if (job->is_gang()) {
    // Each rank folds its own windows; the lead's are also the job's.
    const int rank = RankOf(*job, identity);
    if (rank < 0) return;  // bound to the job but to none of its ranks: cannot happen
    RankProcess& r = job->ranks[rank];
    r.last_seen_ns = now_ns;
    gpu = RankGpu(*job, rank);
    if (const std::vector<int> devices = DevicesIn(batch); devices.size() > 1) {
      FoldDeviceWindows(*job, r, batch, devices, alone || probed, origin, now_ns);
    } else {
      r.profile.AddWindow(w, alone || probed, origin);
      r.mem_used_bytes = w.mem_used_bytes;
    }
    if (gpu && batch.gpu_energy_j() >= 0) energy_.Reading(*gpu, batch.gpu_energy_j());
    if (identity != job->identity) return;
  } else if (gpu && batch.gpu_energy_j() >= 0) {
    energy_.Reading(*gpu, batch.gpu_energy_j());
  }
  ++job->telemetry_batches;
  if (!job->profile.AddWindow(w, alone || probed, origin)) {
    return;
  }
  const double seconds = double(w.window_end_ns - w.window_start_ns) / 1e9;
  job->window_s = seconds;
  job->telemetry_s += seconds;
  if (seconds > 0) job->held_per_s = double(w.held_launches) / seconds;
  job->share = w.budget_share;
  job->mem_used_bytes = w.mem_used_bytes;
  if (w.mem_limit_bytes != 0) job->mem_limit_bytes = w.mem_limit_bytes;
}

void Coordinator::OnKernelNames(std::string_view identity, const wire::KernelNames& names) {
  Job* job = BoundJob(identity);
  if (job == nullptr || names.entries() == nullptr) return;
  // A gang's rank folds its own windows, so it needs the names too (which of
  // its kernels are collectives: gang_slowdown.h); the job's profile takes
  // every rank's, for its kernel mix.
  // Every rank the process holds (one per GPU it drives).
  std::vector<policy::JobProfile*> ranks;
  for (auto& [rank, r] : job->ranks) {
    if (r.connected && r.identity == identity) ranks.push_back(&r.profile);
  }
  for (const wire::KernelName* k : *names.entries()) {
    if (k == nullptr || k->name() == nullptr) continue;
    const std::string name = Clean(k->name(), 512);
    job->profile.AddKernelName(k->kernel(), name);
    for (policy::JobProfile* profile : ranks) profile->AddKernelName(k->kernel(), name);
  }
}

void Coordinator::OnGoodbye(std::string_view identity) {
  Job* job = BoundJob(identity);
  if (job == nullptr) return;
  // A gang is over when its last process is: until then a rank that ended
  // is forgotten (a process that comes later takes its rank afresh).
  if (job->is_gang()) {
    std::vector<int> held;  // the ranks of every GPU it drove
    for (const auto& [rank, r] : job->ranks) {
      if (r.connected && r.identity == identity) held.push_back(rank);
    }
    if (!held.empty()) DisconnectRank(*job, held.front());
    for (const int rank : held) job->ranks.erase(rank);
    if (job->connected) return;
  }
  events_.Add({job->id}, absl::StrFormat("%s ended (its last process said Goodbye)", job->id));
  Remove(job->id);
}

void Coordinator::NodeHeard(const std::string& host, int64_t now_ns) {
  if (nodes_.Heard(host, now_ns)) events_.Add({}, absl::StrFormat("node %s heard again", host));
}

void Coordinator::Disconnect(Job& job) {
  if (job.connected) {
    for (const policy::GpuId& g : GpusOf(job)) --connected_on_gpu_[g];
  }
  for (auto& [rank, r] : job.ranks) {
    if (r.connected) identity_to_job_.erase(r.identity);
    r.identity.clear();
    r.connected = false;
  }
  identity_to_job_.erase(job.identity);
  job.identity.clear();
  job.connected = false;
}

void Coordinator::DisconnectProcess(Job& job, std::string_view identity) {
  if (!job.is_gang()) return Disconnect(job);
  if (const int rank = RankOf(job, identity); rank >= 0) DisconnectRank(job, rank);
}

void Coordinator::Remove(std::string id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  if (it->second.connected) Disconnect(it->second);
  jobs_.erase(it);
  energy_.Forget(id);
  if (store_ != nullptr) Check(store_->RemoveJob(id));
}

int Coordinator::ConnectedOn(const policy::GpuId& gpu) const {
  const auto it = connected_on_gpu_.find(gpu);
  return it == connected_on_gpu_.end() ? 0 : it->second;
}

bool Coordinator::AloneOnGpu(const Job& job) const {
  if (!job.gpu) return false;  // unknown: never count as solo
  auto alone_on = [&](const policy::GpuId& gpu) {
    return ConnectedOn(gpu) - (job.connected ? 1 : 0) == 0;
  };
  if (!job.is_gang()) return alone_on(*job.gpu);
  return std::all_of(job.gang_gpus.begin(), job.gang_gpus.end(), alone_on);
}

std::string Coordinator::NewJobId(std::string_view command, int64_t unix_ns) {
  // The program's base name, then a suffix unique in this coordinator's life.
  std::string base(command.substr(0, command.find(' ')));
  if (const size_t slash = base.rfind('/'); slash != std::string::npos) base = base.substr(slash + 1);
  std::string clean;
  for (char c : base) {
    if (ValidJobName(std::string_view(&c, 1)) && c != ':' && c != '/') clean += c;
  }
  if (clean.empty()) clean = "job";
  clean = clean.substr(0, 40);
  for (;;) {
    const std::string id = absl::StrFormat("%s-%04x", clean,
                                           uint32_t(uint64_t(unix_ns / 1000) + ++id_counter_) & 0xffff);
    if (!jobs_.contains(id)) return id;
  }
}

std::vector<std::string> Coordinator::GuaranteedBeside(const Job& job) const {
  if (!job.is_gang() || job.priority != policy::Priority::kGuaranteed) return {};
  const std::vector<policy::GpuId> mine = GpusOf(job);
  std::vector<std::string> guaranteed;
  for (const auto& [id, other] : jobs_) {
    if (id == job.id || other.is_gang() || other.lost || !other.gpu ||
        other.priority != policy::Priority::kGuaranteed) {
      continue;
    }
    if (std::find(mine.begin(), mine.end(), *other.gpu) != mine.end()) guaranteed.push_back(id);
  }
  return guaranteed;
}

double Coordinator::InitialShare(const Job& job) const {
  if (!options_.control || job.priority != policy::Priority::kOpportunistic || !job.gpu) {
    return 1.0;
  }
  // Join at the share the GPU's other opportunistic jobs hold, so a newcomer
  // does not undo what the control loop has established for the guaranteed
  // ones, and no higher than what the model predicts keeps each of those
  // within its target beside all of that GPU's opportunistic jobs, the
  // newcomer among them: two co-runners at a share harm it about twice what
  // one does.
  double share = 1.0;
  bool guaranteed = false;
  // A gang's every GPU: it runs at the least share any of them gives it.
  for (const policy::GpuId& gpu : GpusOf(job)) {
    std::vector<const Job*> guaranteed_here;
    std::vector<const Job*> opportunistic_here{&job};
    for (const auto& [id, other] : jobs_) {
      const std::vector<policy::GpuId> theirs = GpusOf(other);
      if (id == job.id || std::find(theirs.begin(), theirs.end(), gpu) == theirs.end()) continue;
      if (other.priority == policy::Priority::kGuaranteed) {
        guaranteed_here.push_back(&other);
      } else {
        opportunistic_here.push_back(&other);
        share = std::min(share, other.held ? other.share_before_hold : other.sent_share);
      }
    }
    for (const Job* g : guaranteed_here) {
      guaranteed = true;
      share = std::min(share, ProtectiveShare(*g, opportunistic_here));
    }
  }
  return guaranteed ? share : 1.0;
}

double Coordinator::ProtectiveShare(const Job& guaranteed,
                                    std::span<const Job* const> co_runners) const {
  // Also for a pair never seen together: the model's estimate from the kinds'
  // families, features and biases (its prior mean before any observation).
  // Erring low costs the co-runners a few seconds until the loop raises them;
  // erring high costs the guaranteed job the seconds of the loop's cuts.
  // The loop's target, not the job's: a run being repaid is held lower, and a
  // newcomer let in at the job's own target would be cut on the next tick.
  const policy::JobTraits victim = Traits(guaranteed);
  const double target = LoopTargetOf(guaranteed);
  // The guaranteed job keeps the product of what each co-runner at full speed
  // leaves it (placement's model, policy/internal/placement_scorer.cc), each pair's
  // figure the model's or what the loop found a pace to cost where it has
  // held such pairs; at a fraction a of their unthrottled pace it loses
  // about a times the rest, the same a for every co-runner.
  double kept = 1.0;
  double gpu_time = 1.0;  // the least any co-runner takes at full pace
  for (const Job* co_runner : co_runners) {
    const policy::JobTraits aggressor = Traits(*co_runner);
    const policy::InterferencePrediction p = interference_.Predict(victim, aggressor);
    kept *= budget_memory_.EquivalentKept(victim.kind, aggressor.kind, p.throughput)
                .value_or(p.throughput);
    gpu_time = std::min(gpu_time, FullPaceGpuTime(*co_runner, aggressor, victim));
  }
  const double pace = policy::ProtectiveShare(kept, target);
  if (pace >= 1.0) return 1.0;
  return std::clamp(policy::BudgetForPace(pace, gpu_time),
                    policy::ShareControllerOptions{}.min_share, 1.0);
}

Job Coordinator::NewJob(std::string id, std::string token, policy::Priority priority,
                        int64_t now_ns, int64_t unix_ns) const {
  Job job;
  job.id = std::move(id);
  job.token = std::move(token);
  job.profile = NewJobProfile();
  job.priority = priority;
  job.slowdown_target = options_.slowdown_target;
  job.registered_unix_ns = unix_ns;
  job.created_ns = now_ns;
  return job;
}

}  // namespace iashim::daemon
