// Placement requests and releases: read a PlaceRequest (place_request.h),
// resolve it against the cluster, decide with the placement policy (and the
// reservations dry runs left), apply and answer; a ReleaseRequest ends a job.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/job_token.h"
#include "coordinator/daemon/place_request.h"
#include "coordinator/daemon/wire_convert.h"
#include "coordinator/policy/cluster_state.h"

namespace iashim::daemon {
namespace {

// Whether the cluster has GPUs on `host`.
bool HasHost(const policy::Cluster& cluster, std::string_view host) {
  for (const policy::GpuInfo& g : cluster.gpus) {
    if (g.id.host == host) return true;
  }
  return false;
}

// Whether all the cluster's GPUs are on one node: then a client's name for
// that node may differ from the cluster's and still mean it.
bool SingleHost(const policy::Cluster& cluster) {
  if (cluster.gpus.empty()) return false;
  for (const policy::GpuInfo& g : cluster.gpus) {
    if (g.id.host != cluster.gpus[0].id.host) return false;
  }
  return true;
}

// What a reservation is called in the placement view: never a valid job id
// (names.h), so a request can never be taken for it.
std::string ReservationName(const Reservation& r) {
  return absl::StrCat("(reserved #", r.seq, ")");
}

// GPUs' worth of capacity a request asks, against the cluster's largest GPU.
double Demand(const policy::PlacementRequest& p, const policy::Cluster& cluster) {
  uint64_t largest = 0;
  for (const policy::GpuInfo& g : cluster.gpus) largest = std::max(largest, g.memory_bytes);
  return policy::GpusAsked(p, largest);
}

// "guaranteed" or "opportunistic", and a gang's size.
std::string Describe(const policy::PlacementRequest& p) {
  return p.gpu_count > 1 ? absl::StrFormat("%s, %d GPUs", PriorityName(p.priority), p.gpu_count)
                         : std::string(PriorityName(p.priority));
}

}  // namespace

void Coordinator::LogPlaced(const Job& placed, const policy::PlacementRequest& p,
                            const policy::PlacementDecision& d) {
  const std::vector<policy::GpuId> gpus = GpusOf(placed);
  std::vector<std::string> beside;
  for (const auto& [id, other] : jobs_) {
    if (id == placed.id) continue;
    for (const policy::GpuId& g : GpusOf(other)) {
      if (std::find(gpus.begin(), gpus.end(), g) != gpus.end()) {
        beside.push_back(id);
        break;
      }
    }
  }
  std::string line =
      absl::StrFormat("placed %s (%s) on %s", placed.id, Describe(p), GpusName(placed));
  if (!beside.empty()) absl::StrAppend(&line, " beside ", absl::StrJoin(beside, ", "));
  if (placed.sent_share < 1.0)
    absl::StrAppendFormat(&line, ", first share %.2f", placed.sent_share);
  if (!d.reason.empty()) absl::StrAppend(&line, " (", d.reason, ")");
  // It concerns the jobs it joins too: their GPU is shared from now on.
  beside.insert(beside.begin(), placed.id);
  events_.Add(std::move(beside), std::move(line));
}

void Coordinator::LogNotPlaced(const policy::PlacementRequest& p,
                               const policy::PlacementDecision& d, bool already_waiting) {
  // A queued `iashim run` asks again every few seconds: said once.
  if (d.outcome == policy::PlacementDecision::Outcome::kQueued && already_waiting) return;
  events_.Add({p.job},
              absl::StrFormat(
                  "%s %s (%s): %s",
                  d.outcome == policy::PlacementDecision::Outcome::kQueued ? "queued" : "refused",
                  p.job, Describe(p), d.reason.empty() ? "no reason given" : d.reason));
}

policy::ClusterState Coordinator::PlacementView(const std::string& without_reservations_on) const {
  policy::ClusterState view;
  view.cluster = cluster_;
  view.co_runners_at_floor = co_runners_at_floor_;
  for (const auto& [id, job] : jobs_) {
    // A gang is listed on each of its GPUs (ClusterState's convention).
    const std::vector<policy::GpuId> gpus = GpusOf(job);
    for (const policy::GpuId& g : gpus) {
      view.jobs[g].push_back({id, job.priority, job.mem_bytes, job.profile.busy().value_or(0),
                              Traits(job), static_cast<int>(gpus.size()), job.slowdown_target});
    }
  }
  // A reservation as the job it holds the GPUs for will be once placed: its
  // kind known, nothing measured of it yet. OnPlace has dropped expired ones.
  for (const Reservation& r : reservations_.held()) {
    if (!without_reservations_on.empty() && r.host == without_reservations_on) continue;
    const policy::JobTraits traits =
        KindTraits(r.kind.empty() ? std::string(kUnknownKind) : r.kind);
    for (const int index : r.gpus) {
      view.jobs[policy::GpuId{r.host, index}].push_back(
          {ReservationName(r), r.priority, r.mem_bytes, 0, traits, static_cast<int>(r.gpus.size()),
           r.slowdown_target});
    }
  }
  return view;
}

std::string Coordinator::EncodePlaceReply(const PlaceReplyFields& r) const {
  flatbuffers::FlatBufferBuilder fbb(512);
  const Job* job = r.job;
  const auto err = fbb.CreateString(r.error);
  const auto jid = fbb.CreateString(job ? job->id : "");
  const auto host = fbb.CreateString(job && job->gpu ? job->gpu->host : "");
  // Every GPU of the job in rank order, the first also as gpu/gpu_uuid (what
  // a client from before gangs reads).
  std::vector<int> indices;
  std::vector<std::string> uuids;
  std::vector<std::string> hosts;
  if (job) {
    for (const policy::GpuId& id : GpusOf(*job)) {
      indices.push_back(id.index);
      hosts.push_back(id.host);
      uuids.emplace_back();
      for (const policy::GpuInfo& g : cluster_.gpus) {
        if (g.id == id) uuids.back() = g.uuid;
      }
    }
  }
  const auto u = fbb.CreateString(uuids.empty() ? std::string() : uuids.front());
  const auto token = fbb.CreateString(job ? job->token : "");
  flatbuffers::Offset<flatbuffers::Vector<int32_t>> gpu_indices;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> gpu_uuids;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> gpu_hosts;
  if (!indices.empty()) {
    gpu_indices = fbb.CreateVector(indices);
    gpu_uuids = fbb.CreateVectorOfStrings(uuids);
    gpu_hosts = fbb.CreateVectorOfStrings(hosts);
  }
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> prefer_hosts;
  if (!r.prefer_hosts.empty()) prefer_hosts = fbb.CreateVectorOfStrings(r.prefer_hosts);
  const auto reply = wire::CreatePlaceReply(
      fbb, r.ok, err, jid, host, job && job->gpu ? job->gpu->index : -1, u,
      job ? job->sent_share : 1.0, r.mem_limit_bytes.value_or(job ? job->mem_bytes : 0), r.queued,
      token, r.dry_run, gpu_indices, gpu_uuids, gpu_hosts, prefer_hosts);
  return EnvelopeBytes(fbb, wire::Payload::PlaceReply, reply.Union());
}

absl::StatusOr<policy::PlacementRequest> Coordinator::ResolvePlacement(const PlaceAsk& ask,
                                                                       int64_t unix_ns) {
  // A job id the coordinator knows is that job's, connected or not: placing
  // it again would hand out a second token for it. A finished job's id is
  // free again once its Goodbye (or forget-after) removed it.
  if (auto it = jobs_.find(ask.job); !ask.job.empty() && it != jobs_.end()) {
    const Job& known = it->second;
    return absl::AlreadyExistsError(
        known.connected
            ? absl::StrFormat("job id '%s' is running (pid %d on %s)", ask.job, known.pid,
                              known.host)
            : absl::StrFormat("job id '%s' exists (placed, not connected); choose another "
                              "id or wait until it is forgotten",
                              ask.job));
  }
  policy::PlacementRequest p;
  p.job = ask.job.empty() ? NewJobId(ask.command, unix_ns) : ask.job;
  p.priority = ask.priority;
  p.mem_bytes = ask.mem_bytes;
  p.host = ask.host;
  p.gpu_count = ask.gpus;
  if (!ask.allowed_gpus.empty()) {
    // The indexes name GPUs of that node: placing the job elsewhere would
    // defeat them. As for --gpu below, a single-node cluster's node may go by
    // another name than the client's.
    const bool known = HasHost(cluster_, p.host);
    const bool single_host = SingleHost(cluster_);
    if (!known && single_host) p.host = cluster_.gpus[0].id.host;
    if (!known && !single_host) {
      return absl::NotFoundError(absl::StrFormat(
          "host '%s' has no GPUs this coordinator knows of; allowed_gpus names GPUs on it",
          p.host));
    }
    bool any = false;
    for (const policy::GpuInfo& g : cluster_.gpus) {
      any |= g.id.host == p.host && ask.allowed_gpus.contains(g.id.index);
    }
    if (!any) {
      return absl::NotFoundError(
          absl::StrFormat("none of allowed_gpus is a GPU of host '%s'", p.host));
    }
  }
  if (ask.gpu >= 0) p.gpu = policy::GpuId{p.host, ask.gpu};
  p.slowdown_target = ask.slowdown_target > 0 ? ask.slowdown_target : options_.slowdown_target;
  p.traits = KindTraits(ask.kind.empty() ? std::string(kUnknownKind) : ask.kind);
  // A GPU named on a host the cluster does not have: on a single-node
  // cluster, the node's own name may differ from what the client sends.
  if (p.gpu && !PlacementView().FindGpu(*p.gpu) && SingleHost(cluster_)) {
    p.gpu->host = cluster_.gpus[0].id.host;
  }
  if (!p.gpu && !p.host.empty() && !HasHost(cluster_, p.host)) {
    p.host.clear();  // not a node we know GPUs of: anywhere
  }
  // Whole GPUs joined while busy: by choice (--join-busy-gpus), or because
  // the batch system gave it exactly as many (Slurm's gpu:k), busy or not.
  // A gang stating its memory only on the GPUs it was given, in that much of
  // what the residents leave: it does not hold them whole, so where the
  // coordinator chooses, its gain must pay, as any sharing request's.
  const bool given_exactly = GivenExactly(ask, p);
  if (ask.mem_bytes == 0) {
    p.join_busy_gpus = options_.join_busy_gpus || given_exactly;
  } else if (p.gpu_count > 1) {
    p.join_busy_gpus = given_exactly;
  }
  if (p.join_busy_gpus && given_exactly) p.step_runs_on = StepRunsOn(ask.batch, p.host);
  if (p.gpu && drained_.contains(*p.gpu)) {
    return absl::FailedPreconditionError(
        absl::StrFormat("GPU %s is drained (iashim undrain)", policy::GpuName(*p.gpu)));
  }
  return p;
}

double Coordinator::NoteRequest(const policy::PlacementRequest& p, bool dry_run, int64_t now_ns) {
  const int64_t forget_ns = Ns(options_.forget_after_s);
  std::erase_if(waiting_, [&](const auto& w) { return now_ns - w.second.asked_ns > forget_ns; });
  if (!dry_run && !jobs_.contains(p.job) && !waiting_.contains(p.job)) {
    request_mix_.Observe(p.gpu_count, p.mem_bytes);
  }
  double queued = 0;
  for (const auto& [job, w] : waiting_) {
    if (job != p.job) queued += w.gpus;
  }
  return queued;
}

std::string Coordinator::StepRunsOn(const BatchIds& batch, const std::string& host) const {
  if (batch.system.empty()) return "";
  for (const auto& [id, job] : jobs_) {
    if (!job.gpu || job.gpu->host == host) continue;
    if (job.batch.system == batch.system && job.batch.job == batch.job &&
        job.batch.step == batch.step) {
      return job.gpu->host;
    }
  }
  return "";
}

bool Coordinator::GivenExactly(const PlaceAsk& ask, const policy::PlacementRequest& p) const {
  if (ask.allowed_gpus.empty() || p.host.empty()) return false;
  const auto given =
      std::count_if(cluster_.gpus.begin(), cluster_.gpus.end(), [&](const policy::GpuInfo& g) {
        return g.id.host == p.host && ask.allowed_gpus.contains(g.id.index);
      });
  return given == p.gpu_count && ask.allowed_gpus.size() == static_cast<size_t>(p.gpu_count);
}

std::set<policy::GpuId> Coordinator::ClaimedGpus(const std::string& job, int64_t now_ns) const {
  // A waiting job asks again every 2 s (the Slurm plugin, `iashim run`);
  // one silent for five of those has gone (cancelled), and its claim too.
  constexpr int64_t kClaimLifetimeNs = 10 * kSecond;
  std::set<policy::GpuId> claimed;
  for (const auto& [id, w] : waiting_) {
    if (id == job || now_ns - w.asked_ns > kClaimLifetimeNs) continue;
    claimed.insert(w.given.begin(), w.given.end());
  }
  return claimed;
}

policy::PlacementDecision Coordinator::DecidePlacement(
    const policy::PlacementRequest& p, const std::set<int>& allowed_gpus, double queued_gpus,
    int64_t now_ns, const std::string& without_reservations_on,
    const std::vector<std::string>& left_out_hosts) {
  policy::ClusterState view = PlacementView(without_reservations_on);
  view.queued_gpus = queued_gpus;
  // GPUs the batch system gave a waiting job are its own: another job put
  // there (a dry run's reservation included) would only delay it. A request
  // the batch system placed itself (allowed_gpus) is its decision to make.
  const std::set<policy::GpuId> claimed =
      allowed_gpus.empty() ? ClaimedGpus(p.job, now_ns) : std::set<policy::GpuId>();
  std::erase_if(view.cluster.gpus, [&](const policy::GpuInfo& g) {
    return drained_.contains(g.id) || claimed.contains(g.id) ||
           std::find(left_out_hosts.begin(), left_out_hosts.end(), g.id.host) !=
               left_out_hosts.end();
  });
  // Only the allowed GPUs of host, the way drained GPUs are left out.
  if (!allowed_gpus.empty()) {
    std::erase_if(view.cluster.gpus, [&](const policy::GpuInfo& g) {
      return g.id.host != p.host || !allowed_gpus.contains(g.id.index);
    });
  }
  return placement_->Place(p, view);
}

std::vector<std::string> Coordinator::HostsADryRunAvoids(const policy::PlacementRequest& p) const {
  if (p.gpu || !p.host.empty()) return {};
  return nodes_.LostHosts();
}

std::vector<std::string> Coordinator::HostsWithoutGuaranteedGpusFor(
    const policy::PlacementRequest& p) const {
  if (!policy::AsksGuaranteedGres(p.priority, p.gpu_count) || p.gpu || !p.host.empty()) return {};
  std::map<std::string, int> gpus_of;
  for (const policy::GpuInfo& g : cluster_.gpus) ++gpus_of[g.id.host];
  std::map<std::string, int> used = PlacementView().GuaranteedGresUsed();
  std::vector<std::string> full;
  for (const auto& [host, gpus] : gpus_of) {
    // A job wider than a node takes all of each of its nodes' GPUs.
    if (used[host] + std::min(p.gpu_count, gpus) > gpus) full.push_back(host);
  }
  return full;
}

void Coordinator::ConsumeReservation(const PlaceAsk& ask, const policy::PlacementRequest& p,
                                     int64_t now_ns) {
  // A queued job asking again took its reservation at its first request.
  if (waiting_.contains(p.job)) return;
  const std::string host = RequestHost(p);
  if (host.empty()) return;
  reservations_.Consume(
      {.host = host, .priority = p.priority, .kind = ask.kind, .gpu_count = p.gpu_count}, now_ns);
}

std::vector<int> Coordinator::GpuIndexes(const policy::PlacementDecision& d) {
  if (d.gpus.empty()) return {d.gpu.index};
  std::vector<int> indexes;
  for (const policy::GpuId& g : d.gpus) indexes.push_back(g.index);
  return indexes;
}

std::string Coordinator::RequestHost(const policy::PlacementRequest& p) const {
  // ResolvePlacement cleared a host the cluster does not know: on a one-node
  // cluster, that node is meant (the client may name it otherwise).
  std::string host = p.gpu ? p.gpu->host : p.host;
  if (host.empty() && SingleHost(cluster_)) host = cluster_.gpus[0].id.host;
  return host;
}

policy::PlacementDecision Coordinator::TakeReservedGpus(const PlaceAsk& ask,
                                                        const policy::PlacementRequest& p,
                                                        double queued_gpus, int64_t now_ns,
                                                        policy::PlacementDecision queued) {
  const std::string host = RequestHost(p);
  const bool reserved_there = std::any_of(reservations_.held().begin(), reservations_.held().end(),
                                          [&](const Reservation& r) { return r.host == host; });
  if (host.empty() || !reserved_there) return queued;
  policy::PlacementDecision d = DecidePlacement(p, ask.allowed_gpus, queued_gpus, now_ns, host);
  if (d.outcome != policy::PlacementDecision::Outcome::kPlaced) return queued;
  reservations_.YieldTo(host, GpuIndexes(d));
  return d;
}

void Coordinator::Reserve(const PlaceAsk& ask, const policy::PlacementRequest& p,
                          const policy::PlacementDecision& d, int64_t now_ns) {
  // One reservation a host: a job on several nodes asks for real from each
  // node, for that node's GPUs (the plugin's gang of the node's tasks).
  const std::vector<policy::GpuId> gpus = d.gpus.empty() ? std::vector{d.gpu} : d.gpus;
  std::vector<std::string> hosts;
  for (const policy::GpuId& g : gpus) {
    if (std::find(hosts.begin(), hosts.end(), g.host) == hosts.end()) hosts.push_back(g.host);
  }
  for (const std::string& host : hosts) {
    Reservation r;
    r.host = host;
    for (const policy::GpuId& g : gpus) {
      if (g.host == host) r.gpus.push_back(g.index);
    }
    r.priority = p.priority;
    r.kind = ask.kind;
    r.mem_bytes = p.mem_bytes;
    r.slowdown_target = p.slowdown_target;
    reservations_.Add(std::move(r), now_ns);
  }
}

uint64_t Coordinator::JoinedGpusQuota(const policy::PlacementDecision& d) const {
  const policy::ClusterState view = PlacementView();
  const std::vector<policy::GpuId> gpus = d.gpus.empty() ? std::vector{d.gpu} : d.gpus;
  std::optional<uint64_t> least;
  for (const policy::GpuId& id : gpus) {
    const policy::GpuInfo* gpu = view.FindGpu(id);
    const auto on = view.jobs.find(id);
    if (gpu == nullptr || gpu->memory_bytes == 0 || on == view.jobs.end() || on->second.empty()) {
      continue;
    }
    const uint64_t free = policy::FreeBytes(*gpu, on->second);
    least = std::min(least.value_or(free), free);
  }
  return least.value_or(0);
}

void Coordinator::OnPlace(std::string_view identity, const wire::PlaceRequest& request,
                          int64_t now_ns, int64_t unix_ns, std::vector<Outgoing>* out) {
  PlaceReplyFields r;
  r.dry_run = request.dry_run();
  auto send = [&] { out->push_back({std::string(identity), EncodePlaceReply(r)}); };
  reservations_.Expire(now_ns);  // before anything reads them
  // Read: what the request alone decides.
  absl::StatusOr<PlaceAsk> ask = ReadPlaceRequest(request);
  if (!ask.ok()) {
    r.error = std::string(ask.status().message());
    return send();
  }
  absl::StatusOr<policy::PlacementRequest> p = ResolvePlacement(*ask, unix_ns);
  if (!p.ok()) {
    r.error = std::string(p.status().message());
    return send();
  }
  // Decide. A real request first takes over its reservation: it must not see
  // itself on the GPUs held for it.
  if (!ask->dry_run) ConsumeReservation(*ask, *p, now_ns);
  const double queued_gpus = NoteRequest(*p, ask->dry_run, now_ns);
  const std::vector<std::string> lost =
      ask->dry_run ? HostsADryRunAvoids(*p) : std::vector<std::string>();
  const std::vector<std::string> full = ask->dry_run && ask->guaranteed_gres
                                            ? HostsWithoutGuaranteedGpusFor(*p)
                                            : std::vector<std::string>();
  std::vector<std::string> avoided = lost;
  avoided.insert(avoided.end(), full.begin(), full.end());
  policy::PlacementDecision d =
      DecidePlacement(*p, ask->allowed_gpus, queued_gpus, now_ns, "", avoided);
  if (!ask->dry_run && d.outcome == policy::PlacementDecision::Outcome::kQueued) {
    d = TakeReservedGpus(*ask, *p, queued_gpus, now_ns, std::move(d));
  }
  // Refused only for want of the nodes left out for now: it waits for them.
  if (d.outcome == policy::PlacementDecision::Outcome::kRejected && !avoided.empty() &&
      DecidePlacement(*p, ask->allowed_gpus, queued_gpus, now_ns).outcome !=
          policy::PlacementDecision::Outcome::kRejected) {
    d = policy::PlacementDecision::Queued("no node can start it now");
  }
  if (d.outcome != policy::PlacementDecision::Outcome::kPlaced) {
    const auto left_out = [&](const char* why, const std::vector<std::string>& hosts) {
      if (hosts.empty()) return;
      absl::StrAppend(&d.reason, d.reason.empty() ? "" : "; ", why, absl::StrJoin(hosts, ", "));
    };
    left_out("left out, not heard from: ", lost);
    left_out("left out, their guaranteed jobs and gangs use the GPUs Slurm counts: ", full);
  }
  if (ask->dry_run) ++counters_.dry_runs;
  r.error = d.reason;
  r.queued = d.outcome == policy::PlacementDecision::Outcome::kQueued;
  if (ask->dry_run) {
    for (const policy::GpuId& g : d.preferred) {
      if (std::find(r.prefer_hosts.begin(), r.prefer_hosts.end(), g.host) == r.prefer_hosts.end()) {
        r.prefer_hosts.push_back(g.host);
      }
    }
  }
  if (!ask->dry_run && d.outcome != policy::PlacementDecision::Outcome::kPlaced) {
    LogNotPlaced(*p, d, waiting_.contains(p->job));
  }
  if (!ask->dry_run) {
    if (r.queued) {
      Waiting& w = waiting_[p->job];
      w = {.gpus = Demand(*p, cluster_), .asked_ns = now_ns, .given = {}};
      if (p->join_busy_gpus && GivenExactly(*ask, *p)) {
        for (const int index : ask->allowed_gpus) w.given.push_back({p->host, index});
      }
    } else {
      waiting_.erase(p->job);
    }
  }
  if (d.outcome != policy::PlacementDecision::Outcome::kPlaced) return send();
  // Apply. The token is minted only for a job that is placed: a queued
  // `iashim run` asks again and again. A dry run gets none, and registers nothing.
  absl::StatusOr<std::string> token =
      ask->dry_run ? absl::StatusOr<std::string>(std::string()) : NewJobToken();
  if (!token.ok()) {
    r.error = absl::StrCat("no job token: ", token.status().message());
    return send();
  }
  if (!ask->dry_run) ++counters_.placements;
  Job job = NewJob(p->job, *std::move(token), p->priority, now_ns, unix_ns);
  job.mem_bytes = p->mem_bytes;
  job.gpu = d.gpu;
  if (d.gpus.size() > 1) job.gang_gpus = d.gpus;
  job.slowdown_target = p->slowdown_target;
  job.command = ask->command;
  job.kind = ask->kind;
  job.movable = ask->movable;
  released_ns_.erase(job.id);  // placed again under its name (a requeued job)
  job.batch = std::move(ask->batch);
  job.host = p->host;
  job.share = job.sent_share = InitialShare(job);
  if (p->join_busy_gpus && p->mem_bytes == 0) r.mem_limit_bytes = JoinedGpusQuota(d);
  r.ok = true;
  if (ask->dry_run) {
    // A dry run naming its GPU is a question about that GPU (`iashim place
    // --dry-run --gpu N`), not a job on its way: job_submit.lua names none.
    if (ask->gpu < 0) Reserve(*ask, *p, d, now_ns);
    r.job = &job;
    return send();
  }
  Persist(job);
  Job& placed = jobs_.emplace(job.id, std::move(job)).first->second;
  r.job = &placed;
  // Co-runners are cut before the reply lets the guaranteed job start.
  if (placed.priority == policy::Priority::kGuaranteed) {
    CapCoRunnersOfPlaced(placed, now_ns, unix_ns, out);
  }
  LogPlaced(placed, *p, d);
  send();
}

void Coordinator::OnRelease(std::string_view identity, const wire::ReleaseRequest& req,
                            int64_t now_ns, std::vector<Outgoing>* out) {
  auto send = [&](bool released, const std::string& message) {
    flatbuffers::FlatBufferBuilder fbb(256);
    const auto m = fbb.CreateString(message);
    out->push_back(
        {std::string(identity), EnvelopeBytes(fbb, wire::Payload::ReleaseReply,
                                              wire::CreateReleaseReply(fbb, released, m).Union())});
  };
  const std::string id = Clean(req.job(), 128);
  auto it = jobs_.find(id);
  if (id.empty() || it == jobs_.end()) {
    ++counters_.release_unknown;
    return send(false, absl::StrFormat("job '%s' is not known (already gone)", id));
  }
  // Like a Hello: without the job's token, anyone could end anyone's job. A
  // job without a token (restored from a state written before tokens) cannot
  // be released this way; it goes at its Goodbye or forget-after.
  const std::string_view token = req.token() ? req.token()->string_view() : std::string_view();
  if (it->second.token.empty() || token.empty() || !SameToken(token, it->second.token)) {
    ++counters_.release_refused;
    ++counters_.refused_tokens;
    return send(false, absl::StrFormat("token does not match job '%s'", id));
  }
  ++counters_.releases;
  events_.Add({id}, absl::StrFormat("released %s (by the batch system or its user)", id));
  Remove(id);
  released_ns_[id] = now_ns;
  send(true, absl::StrFormat("released job '%s'", id));
}

}  // namespace iashim::daemon
