#include "coordinator/clustersim/internal/simulation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "coordinator/clustersim/job_kinds.h"
#include "coordinator/clustersim/text.h"
#include "coordinator/policy/move_choice.h"

namespace iashim::clustersim::sim_internal {

std::string HostName(int node) { return absl::StrFormat("node%03d", node); }

absl::Status Simulation::Init() {
  if (config_.gpus <= 0) return absl::InvalidArgumentError("the cluster needs at least one GPU");
  if (config_.gpus_per_node <= 0) {
    return absl::InvalidArgumentError("gpus_per_node must be positive");
  }
  if (config_.queue == QueueModel::kSlurmNoTimeLimits &&
      !(config_.backfill_interval_s > 0 && std::isfinite(config_.backfill_interval_s))) {
    return absl::InvalidArgumentError("backfill_interval_s must be positive and finite");
  }
  if (config_.gangs_take_busy_gpus && config_.queue != QueueModel::kSlurmNoTimeLimits) {
    return absl::InvalidArgumentError(
        "gangs_take_busy_gpus models Slurm: it needs the slurm queue");
  }
  if (config_.guaranteed_gres && config_.queue != QueueModel::kSlurmNoTimeLimits) {
    return absl::InvalidArgumentError("guaranteed_gres models Slurm: it needs the slurm queue");
  }
  if (config_.cpus_per_node < 0) return absl::InvalidArgumentError("cpus_per_node must be >= 0");
  for (const double s : {config_.start_up.one_gpu_s, config_.start_up.gang_s}) {
    if (!(s >= 0) || !std::isfinite(s)) {
      return absl::InvalidArgumentError("start_up must be finite and >= 0 seconds");
    }
  }
  if (config_.migration_cost_s.has_value() &&
      !(*config_.migration_cost_s >= 0 && std::isfinite(*config_.migration_cost_s))) {
    return absl::InvalidArgumentError("migration_cost_s must be finite and >= 0 seconds");
  }
  full_.cluster = MakeCluster(config_);
  for (int g = 0; g < config_.gpus; ++g) {
    const int node = g / config_.gpus_per_node;
    gpu_ids_.push_back(full_.cluster.gpus[g].id);
    gpu_index_[gpu_ids_.back()] = g;
    node_of_.push_back(node);
    if (static_cast<int>(node_gpus_.size()) <= node) node_gpus_.emplace_back();
    node_gpus_[node].push_back(g);
  }
  view_ = full_;
  gangs_view_ = full_;
  cpus_used_.assign(node_gpus_.size(), 0);
  guaranteed_gpus_used_.assign(node_gpus_.size(), 0);
  reserved_.assign(node_gpus_.size(), 0);
  named_nodes_.assign(jobs_.size(), {});
  const int per_node = config_.gpus_per_node;
  const int whole_nodes = config_.gpus / per_node;  // a partial last node takes no wide gang
  const int largest_node = static_cast<int>(node_gpus_.front().size());
  on_gpu_.assign(config_.gpus, {});
  occupancy_.assign(config_.gpus, 0);
  busy_.assign(config_.gpus, 0);

  absl::flat_hash_map<std::string, int> kind_index;
  const size_t n = jobs_.size();
  solo_rate_.resize(n);
  traits_.resize(n);
  kind_of_.resize(n);
  running_.resize(n);
  out_.resize(n);
  double last_arrival = 0;
  for (size_t j = 0; j < n; ++j) {
    const SimJob& job = jobs_[j];
    if (!std::isfinite(job.arrival_s) || job.arrival_s < 0 || job.arrival_s < last_arrival) {
      return absl::InvalidArgumentError(
          Cat("job ", job.id, ": arrival ", job.arrival_s,
              " is not finite, negative, or before the previous job's"));
    }
    last_arrival = job.arrival_s;
    if (!(job.total_steps > 0) || !std::isfinite(job.total_steps)) {
      return absl::InvalidArgumentError(Cat("job ", job.id, ": total_steps must be > 0"));
    }
    const std::optional<double> solo = truth_.Solo(job.type);
    if (!solo.has_value()) {
      return absl::InvalidArgumentError(
          Cat("job ", job.id, ": no solo throughput for ", JobTypeKey(job.type)));
    }
    const int k = job.type.scale;
    if (k > per_node && k % per_node != 0) {
      return absl::InvalidArgumentError(Cat("job ", job.id, " needs ", k,
                                            " GPUs: wider than a node and not whole nodes of ",
                                            per_node));
    }
    if (k > per_node && k / per_node > whole_nodes) {
      return absl::InvalidArgumentError(Cat("job ", job.id, " needs ", k / per_node,
                                            " whole nodes of ", per_node, " GPUs; the cluster has ",
                                            whole_nodes));
    }
    if (k <= per_node && k > largest_node) {
      return absl::InvalidArgumentError(
          Cat("job ", job.id, " needs ", k, " GPUs; the largest node has ", largest_node));
    }
    solo_rate_[j] = *solo;
    traits_[j] = TraitsOf(job.type);
    auto [it, inserted] = kind_index.try_emplace(traits_[j].kind, static_cast<int>(kinds_.size()));
    if (inserted) kinds_.push_back(job.type);
    kind_of_[j] = it->second;
    out_[j].solo_s = job.total_steps / *solo;
    if (inserted && job.type.scale == 1 &&
        (config_.job_memory_share > 0 || !config_.job_memory_share_by_type.empty())) {
      const auto by_type = config_.job_memory_share_by_type.find(job.type.name);
      memory_share_of_kind_[traits_[j].kind] = by_type != config_.job_memory_share_by_type.end()
                                                   ? by_type->second
                                                   : config_.job_memory_share;
    }
  }
  may_share_.assign(kinds_.size(), std::vector<char>(kinds_.size(), 0));
  for (size_t a = 0; a < kinds_.size(); ++a) {
    for (size_t b = 0; b < kinds_.size(); ++b) {
      may_share_[a][b] = kinds_[a].scale == 1 && kinds_[b].scale == 1 &&
                         truth_.Pair(kinds_[a], kinds_[b]).has_value() &&
                         truth_.Pair(kinds_[b], kinds_[a]).has_value();
    }
  }
  queued_kind_.assign(kinds_.size() * 2, 0);
  queued_on_node_.assign(kinds_.size() * 2 * node_gpus_.size(), 0);
  return absl::OkStatus();
}

void Simulation::AdvanceTo(double t) {
  result_.busy_gpu_seconds += busy_gpus_ * (t - now_);
  result_.occupied_gpu_seconds += total_occupancy_ * (t - now_);
  now_ = t;
}

void Simulation::UpdateOccupancy(int gpu) {
  // Busy: a job runs there (a gang waiting for its GPUs does not).
  const bool busy = std::any_of(on_gpu_[gpu].begin(), on_gpu_[gpu].end(),
                                [&](int j) { return !running_[j].waiting_for_gpus; });
  busy_gpus_ += (busy ? 1 : 0) - (busy_[gpu] ? 1 : 0);
  busy_[gpu] = busy;
  double occupancy = 0;
  for (int job : on_gpu_[gpu]) occupancy += RateOf(job) / solo_rate_[job];
  occupancy = std::min(1.0, occupancy);
  total_occupancy_ += occupancy - occupancy_[gpu];
  occupancy_[gpu] = occupancy;
}

void Simulation::AddToStates(int gpu, int job, const PlacedJob& placed) {
  full_.jobs[gpu_ids_[gpu]].push_back(placed);
  if (!Hidden(gpu)) view_.jobs[gpu_ids_[gpu]].push_back(placed);
  // What a gang given busy GPUs sees: the jobs that close GPUs to it.
  if (ClosesItsGpus(job)) gangs_view_.jobs[gpu_ids_[gpu]].push_back(placed);
}

void Simulation::RemoveFromStates(int gpu, const std::string& id) {
  for (ClusterState* state : {&full_, &view_, &gangs_view_}) {
    auto it = state->jobs.find(gpu_ids_[gpu]);
    if (it == state->jobs.end()) continue;
    std::erase_if(it->second, [&](const PlacedJob& p) { return p.job == id; });
    if (it->second.empty()) state->jobs.erase(it);
  }
}

void Simulation::Finish(int job) {
  Running& r = running_[job];
  r.done = true;
  out_[job].finish_s = now_;
  for (int g : r.gpus) {
    --cpus_used_[node_of_[g]];  // a CPU per GPU, on each node
    if (AsksGuaranteedGres(job)) --guaranteed_gpus_used_[node_of_[g]];
  }
  std::vector<int> neighbours;
  for (int g : r.gpus) {
    std::erase(on_gpu_[g], job);
    RemoveFromStates(g, jobs_[job].id);
    neighbours.insert(neighbours.end(), on_gpu_[g].begin(), on_gpu_[g].end());
  }
  RetimeWithGangs(neighbours);
  for (int g : r.gpus) UpdateOccupancy(g);
  StateChanged();
}

absl::Status Simulation::Validate(int job, const std::vector<int>& gpus,
                                  const ClusterState& seen) const {
  const SimJob& j = jobs_[job];
  const auto bad = [&](std::string_view why) {
    return absl::InternalError(
        Cat("the policy placed job ", j.id, " (", JobTypeKey(j.type), ") badly: ", why));
  };
  if (static_cast<int>(gpus.size()) != j.type.scale) {
    return bad(Cat(gpus.size(), " GPUs for a job of ", j.type.scale));
  }
  // Across nodes only as Slurm runs a job wider than a node: all the GPUs
  // of k / gpus_per_node whole nodes.
  std::map<int, int> per_node;  // node -> GPUs of the job there
  for (int g : gpus) ++per_node[node_of_[g]];
  if (per_node.size() > 1) {
    if (!SpansNodes(job)) return bad("a gang across nodes");
    for (const auto& [node, count] : per_node) {
      if (count != config_.gpus_per_node ||
          static_cast<int>(node_gpus_[node].size()) != config_.gpus_per_node) {
        return bad(Cat("a gang across nodes not on whole nodes (", count, " GPUs of ",
                       HostName(node), ")"));
      }
    }
  }
  for (const auto& [node, count] : per_node) {
    if (!HasGuaranteedGpusFor(job, node, count)) {
      return bad(Cat(HostName(node), "'s guaranteed GPUs, which its guaranteed jobs already use"));
    }
  }
  for (size_t i = 0; i < gpus.size(); ++i) {
    const int g = gpus[i];
    if (seen.FindGpu(gpu_ids_[g]) == nullptr) return bad("a GPU reserved for another job");
    if (std::count(gpus.begin(), gpus.end(), g) != 1) return bad("one GPU twice");
    const std::vector<int>& here = on_gpu_[g];
    if (here.empty()) continue;
    if (!config_.policy_may_share) return bad("shared by a policy declared never to share");
    if (j.type.scale > 1 && GangsTakeBusyGpus()) {
      if (ClosedToGangs(g)) {
        return bad(Cat(policy::GpuName(gpu_ids_[g]),
                       " is another gang's or a guaranteed job's whole GPU"));
      }
      if (!HasCpusFor(node_of_[g], TasksPerNode(job))) {
        return bad("a node with no CPUs left for it");
      }
      continue;  // Slurm 22.05 gives a gang GPUs whose shards are in use
    }
    if (j.type.scale != 1 || here.size() != 1 || jobs_[here[0]].type.scale != 1) {
      return bad(Cat(policy::GpuName(gpu_ids_[g]),
                     " cannot take it: gangs never share "
                     "and a GPU holds at most two jobs"));
    }
    if (TakesAWholeGpu(job) || TakesAWholeGpu(here[0])) {
      return bad(Cat(policy::GpuName(gpu_ids_[g]), " shared by a guaranteed job on a whole GPU"));
    }
    if (!may_share_[kind_of_[job]][kind_of_[here[0]]]) {
      return bad(Cat("next to ", jobs_[here[0]].id, ", a pair that was never measured together"));
    }
  }
  return absl::OkStatus();
}

absl::Status Simulation::Start(int job, const PlacementDecision& decision,
                               const ClusterState& seen) {
  std::vector<policy::GpuId> ids = decision.gpus;
  if (ids.empty()) ids.push_back(decision.gpu);
  std::vector<int> gpus;
  for (const GpuId& id : ids) {
    auto it = gpu_index_.find(id);
    if (it == gpu_index_.end()) {
      return absl::InternalError(Cat("the policy placed job ", jobs_[job].id, " on ",
                                     policy::GpuName(id), ", no such GPU"));
    }
    gpus.push_back(it->second);
  }
  if (absl::Status s = Validate(job, gpus, seen); !s.ok()) return s;

  Running& r = running_[job];
  r.gpus = gpus;
  r.remaining = jobs_[job].total_steps + StartUpS(job) * solo_rate_[job];
  r.since = now_;
  r.rate = solo_rate_[job];
  out_[job].start_s = now_;
  const PlacedJob placed = PlacedJobFor(job);
  std::vector<int> neighbours;
  for (int g : gpus) {
    neighbours.insert(neighbours.end(), on_gpu_[g].begin(), on_gpu_[g].end());
    on_gpu_[g].push_back(job);
    AddToStates(g, job, placed);
  }
  for (int g : gpus) {
    ++cpus_used_[node_of_[g]];  // a CPU per GPU, on each node
    if (AsksGuaranteedGres(job)) ++guaranteed_gpus_used_[node_of_[g]];
  }
  r.waiting_for_gpus = GangWaits(job);
  Retime(job);
  RetimeWithGangs(neighbours);
  if (!neighbours.empty() && !r.waiting_for_gpus) {
    out_[job].shared = true;
    for (int other : neighbours) out_[other].shared = true;
  }
  if (neighbours.size() == 1 && !IsGang(job)) {  // a measured pair of one-GPU jobs
    const int neighbour = neighbours[0];
    ++result_.pair_starts;
    if (observer_ != nullptr) {
      const PairThroughput p = *truth_.Pair(jobs_[job].type, jobs_[neighbour].type);
      observer_->Observe(traits_[job], traits_[neighbour], p.a / solo_rate_[job],
                         p.b / solo_rate_[neighbour]);
    }
  }
  if (job == reserving_job_) {
    reserving_job_ = -1;
    std::fill(reserved_.begin(), reserved_.end(), 0);
  }
  std::erase_if(reservations_, [&](const DryRunReservation& held) {
    return held.job == job || held.until_s <= now_;
  });
  StateChanged();
  return absl::OkStatus();
}

absl::Status Simulation::SchedulePass(bool stop_at_blocked) {
  size_t i = 0;
  while (i < waiting_.size()) {
    const int job = waiting_[i];
    const bool head = i == 0;
    if (queued_kind_[QueueClass(job)] && job != reserving_job_) {
      if (stop_at_blocked) break;
      ++i;
      continue;
    }
    if (!MightFit(job)) {
      if (stop_at_blocked) break;
      if (head && ReservesANode(job)) Reserve(job);
      if (job != reserving_job_) queued_kind_[QueueClass(job)] = true;
      ++i;
      continue;
    }
    const bool busy_gang = IsGang(job) && GangsTakeBusyGpus();
    const bool by_prediction = busy_gang && busy_gang_policy_ != nullptr;
    const ClusterState& unreserved = reserving_job_ >= 0 && job != reserving_job_ ? view_ : full_;
    if (SpansNodes(job)) {
      // Slurm places a job wider than a node itself: on the whole nodes the
      // coordinator's dry run named when it was submitted (NoteSubmission),
      // a preference Slurm follows when all of them are free, else on the
      // lowest-numbered free ones (select/cons_tres; MightFit found them).
      std::vector<int> gpus;
      const std::vector<int>& named = named_nodes_[job];
      if (!named.empty() && std::all_of(named.begin(), named.end(),
                                        [&](int node) { return NodeFreeFor(job, node); })) {
        for (int node : named) {
          gpus.insert(gpus.end(), node_gpus_[node].begin(), node_gpus_[node].end());
        }
      } else {
        gpus = SlurmNodes(job);
      }
      std::vector<GpuId> ids;
      for (int g : gpus) ids.push_back(gpu_ids_[g]);
      const PlacementDecision decision = PlacementDecision::PlacedGang(
          std::move(ids), named.empty() ? "Slurm: the lowest free whole nodes" : "the named nodes");
      if (absl::Status s = Start(job, decision, unreserved); !s.ok()) return s;
      waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(i));
      continue;  // the next job now sits at i
    }
    PlacementRequest request = RequestFor(job);
    // Slurm's node, the policy's GPU there (SimConfig::slurm_chooses_the_node);
    // the job's (queue class, node) slot in queued_on_node_.
    std::optional<size_t> queued_slot;
    if (config_.slurm_chooses_the_node && !IsGang(job)) {
      const std::optional<int> slurm_node = SlurmNodeFor(job);
      if (slurm_node.has_value()) {
        queued_slot = static_cast<size_t>(QueueClass(job)) * node_gpus_.size() +
                      static_cast<size_t>(*slurm_node);
      }
      if (!queued_slot.has_value() || queued_on_node_[*queued_slot]) {
        if (stop_at_blocked) break;
        ++i;
        continue;
      }
      request.host = HostName(*slurm_node);
    }
    std::optional<ClusterState> gang_view;
    PlacementDecision decision;
    if (by_prediction) {
      gang_view = BusyGangView(request.gpu_count);
      DropNodesWithoutGuaranteedGpus(job, &*gang_view);
      decision = busy_gang_policy_->Place(BusyGangRequest(job), *gang_view);
      // Nowhere to go now: job_submit.lua's dry run names no node, so Slurm
      // chooses blindly, and the gang waits there (GangWaits).
      if (decision.outcome == PlacementDecision::Outcome::kQueued) {
        ++result_.place_calls;
        gang_view = GangView(request.gpu_count);
        DropNodesWithoutGuaranteedGpus(job, &*gang_view);
        decision = policy_.Place(request, *gang_view);
      }
    } else {
      if (busy_gang) gang_view = GangView(request.gpu_count);
      decision = policy_.Place(request, gang_view.has_value() ? *gang_view : unreserved);
    }
    const ClusterState& seen = gang_view.has_value() ? *gang_view : unreserved;
    ++result_.place_calls;
    switch (decision.outcome) {
      case PlacementDecision::Outcome::kPlaced:
        if (absl::Status s = Start(job, decision, seen); !s.ok()) return s;
        waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(i));
        break;  // the next job now sits at i
      case PlacementDecision::Outcome::kQueued:
        if (head && ReservesANode(job)) Reserve(job);
        if (queued_slot.has_value()) {
          queued_on_node_[*queued_slot] = true;
        } else if (job != reserving_job_) {
          queued_kind_[QueueClass(job)] = true;
        }
        if (stop_at_blocked) return absl::OkStatus();
        ++i;
        break;
      case PlacementDecision::Outcome::kRejected:
        return absl::InternalError(Cat("the policy rejected job ", jobs_[job].id, " (",
                                       JobTypeKey(jobs_[job].type), "): ", decision.reason));
    }
  }
  return absl::OkStatus();
}

std::optional<int> Simulation::SlowestSharingJob(int node) const {
  std::vector<policy::MoveCandidate> candidates;
  std::vector<int> index;
  for (int job = 0; job < static_cast<int>(jobs_.size()); ++job) {
    const Running& r = running_[job];
    if (r.done || r.gpus.size() != 1 || IsGang(job) || Guaranteed(job) ||
        on_gpu_[r.gpus[0]].size() < 2 || node_of_[r.gpus[0]] == node) {
      continue;  // not running, a gang, guaranteed, alone, or on that node
    }
    candidates.push_back({jobs_[job].id, RateOf(job) / solo_rate_[job]});
    index.push_back(job);
  }
  const std::optional<size_t> slowest = policy::SlowestToMove(candidates);
  if (!slowest.has_value()) return std::nullopt;
  return index[*slowest];
}

void Simulation::Migrate(int job, int gpu) {
  Running& r = running_[job];
  Retime(job);  // its progress up to now
  const int from = r.gpus[0];
  std::erase(on_gpu_[from], job);
  RemoveFromStates(from, jobs_[job].id);
  --cpus_used_[node_of_[from]];
  r.gpus = {gpu};
  r.remaining += *config_.migration_cost_s * solo_rate_[job];
  on_gpu_[gpu].push_back(job);
  AddToStates(gpu, job, PlacedJobFor(job));
  ++cpus_used_[node_of_[gpu]];
  ++result_.migrations;
  RetimeWithGangs(on_gpu_[from]);
  Retime(job);
  UpdateOccupancy(from);
  StateChanged();
}

void Simulation::MigrateToEmptyGpus() {
  // A job waiting would take the empty GPU (or is draining it for a gang).
  if (!config_.migration_cost_s.has_value() || !config_.share_control || !waiting_.empty()) {
    return;
  }
  for (int gpu = 0; gpu < config_.gpus; ++gpu) {
    if (!on_gpu_[gpu].empty() || Hidden(gpu)) continue;
    const std::optional<int> job = SlowestSharingJob(node_of_[gpu]);
    if (job.has_value()) Migrate(*job, gpu);
  }
}

absl::StatusOr<SimResult> Simulation::Run() {
  if (absl::Status s = Init(); !s.ok()) return s;
  size_t next = 0;
  const auto stale = [&](const Completion& c) {
    return running_[c.job].done || running_[c.job].version != c.version;
  };
  const bool slurm = config_.queue == QueueModel::kSlurmNoTimeLimits;
  // Whether anything changed since the last backfill pass: a pass over an
  // unchanged cluster and queue would start nothing, so none is simulated.
  bool backfill_due = false;
  constexpr double kNever = std::numeric_limits<double>::infinity();
  while (true) {
    while (!completions_.empty() && stale(completions_.top())) completions_.pop();
    const bool arrivals = next < jobs_.size();
    const double backfill_at =
        slurm && backfill_due && !waiting_.empty()
            ? (std::floor(now_ / config_.backfill_interval_s) + 1) * config_.backfill_interval_s
            : kNever;
    if (!arrivals && completions_.empty() && backfill_at == kNever) {
      if (!waiting_.empty()) {
        return absl::InternalError(Cat("the policy left ", waiting_.size(),
                                       " job(s) waiting on an idle cluster, e.g. ",
                                       jobs_[waiting_[0]].id));
      }
      break;
    }
    const double repay_at = completions_.empty() ? kNever : NextRepayCheck();
    double t = std::min({arrivals ? jobs_[next].arrival_s : kNever, backfill_at, repay_at});
    if (!completions_.empty()) t = std::min(t, completions_.top().t);
    AdvanceTo(std::max(t, now_));
    if (now_ >= repay_at) RetimeRepaying();
    bool event = false;
    while (!completions_.empty() && completions_.top().t <= now_) {
      const Completion c = completions_.top();
      completions_.pop();
      if (!stale(c)) {
        Finish(c.job);
        event = true;
      }
    }
    while (next < jobs_.size() && jobs_[next].arrival_s <= now_) {
      NoteSubmission(static_cast<int>(next));
      waiting_.push_back(static_cast<int>(next++));
      event = true;
    }
    if (event) {
      if (absl::Status s = SchedulePass(/*stop_at_blocked=*/slurm); !s.ok()) return s;
      backfill_due = true;
    }
    if (now_ >= backfill_at) {
      if (absl::Status s = SchedulePass(/*stop_at_blocked=*/false); !s.ok()) return s;
      backfill_due = false;
    }
    if (event) MigrateToEmptyGpus();
  }
  result_.jobs = std::move(out_);
  if (!jobs_.empty()) {
    double last = 0;
    for (const JobOutcome& o : result_.jobs) last = std::max(last, o.finish_s);
    result_.makespan_s = last - jobs_.front().arrival_s;
  }
  return std::move(result_);
}

}  // namespace iashim::clustersim::sim_internal
