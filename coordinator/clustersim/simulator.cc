#include "coordinator/clustersim/simulator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/clustersim/job_kinds.h"
#include "coordinator/clustersim/text.h"
#include "coordinator/policy/protective_share.h"
#include "coordinator/policy/run_slowdown.h"

namespace iashim::clustersim {
namespace {

using policy::ClusterState;
using policy::GpuId;
using policy::PlacedJob;
using policy::PlacementDecision;
using policy::PlacementRequest;

// Jobs reserve a nominal byte on GPUs of unknown size, so memory never
// blocks sharing: MeasuredPairRule stands for the memory check.
constexpr uint64_t kNominalJobBytes = 1;

// How long a dry run's reservation holds its GPU for a job not started yet:
// the daemon's --reservation-ttl-s default (coordinator/daemon/reservations.h).
constexpr double kReservationTtlS = 30;

std::string HostName(int node) { return absl::StrFormat("node%03d", node); }

class Simulation {
 public:
  Simulation(std::span<const SimJob> jobs, const GavelThroughputs& truth, const SimConfig& config,
             const policy::PlacementPolicy& policy, CoLocationObserver* observer,
             const policy::PlacementPolicy* busy_gang_policy)
      : jobs_(jobs),
        truth_(truth),
        config_(config),
        policy_(policy),
        observer_(observer),
        busy_gang_policy_(busy_gang_policy) {}

  absl::StatusOr<SimResult> Run();

 private:
  struct Running {
    std::vector<int> gpus;
    double remaining = 0;  // steps
    double rate = 0;       // steps/s now
    double since = 0;      // when `remaining` was last brought up to date
    uint64_t version = 0;  // bumps on every re-timing; stale completions are skipped
    bool done = false;
    // A gang holding GPUs it may not run on yet (GangWaits): not started.
    bool waiting_for_gpus = false;
  };
  struct Completion {
    double t;
    int job;
    uint64_t version;
    bool operator>(const Completion& o) const {
      return t != o.t ? t > o.t : job > o.job;  // job order breaks ties: deterministic
    }
  };

  absl::Status Init();
  void AdvanceTo(double t);
  // Brings GPU `gpu`'s occupancy (SimResult::occupied_gpu_seconds) up to date
  // after its set of jobs changed.
  void UpdateOccupancy(int gpu);
  void Finish(int job);
  // Walks the queue in arrival order, starting what the policy places; with
  // `stop_at_blocked`, stops at the first job that does not start (Slurm's
  // main scheduler, QueueModel::kSlurmNoTimeLimits).
  absl::Status SchedulePass(bool stop_at_blocked);
  absl::Status Start(int job, const PlacementDecision& decision, const ClusterState& seen);
  absl::Status Validate(int job, const std::vector<int>& gpus, const ClusterState& seen) const;
  void Retime(int job);
  double RateOf(int job) const;
  // The fraction of its solo speed `job` keeps on `gpu` beside the jobs
  // running there, for the pairs a gang is in (SimConfig::gangs_take_busy_gpus).
  double KeptBeside(int job, int gpu) const;
  // KeptBeside under share control: where exactly one of the jobs running
  // on `gpu` is guaranteed, the others' shares are cut to hold it at its
  // floor (SimConfig::share_control).
  double ControlledKept(int job, int gpu) const;
  // The share the controller cuts opportunistic jobs on `gpu` to: where
  // exactly one running job there is guaranteed, what holds it at its
  // floor (at least min_share); else 1.
  double ShareOn(int gpu) const;
  // How much slower than alone `job` has run since it started, now.
  double RunSlowdownOf(int job) const;
  // The target the loop holds guaranteed `job` to now: its own, lowered
  // while its run so far is over it (SimConfig::share_control).
  double LoopTargetOf(int job) const;
  // Whether guaranteed `job` runs, protected, with its run so far over its
  // target: the loop holds it lower (LoopTargetOf).
  bool Repaying(int job) const;
  // When the runs being repaid are next read again (infinity: none is), and
  // the jobs on their GPUs retimed at that time.
  double NextRepayCheck() const;
  void RetimeRepaying();
  // The share an opportunistic gang runs at: the least any GPU gives it.
  double GangShare(int gang) const;
  // Retimes `jobs`, then, under share control, every job on the GPUs of
  // the gangs among them: a gang's share moves its co-runners' rates.
  void RetimeWithGangs(const std::vector<int>& jobs);
  // Whether the gang `job` must wait, under share control, holding its GPUs
  // (SimConfig::gangs_take_busy_gpus): the one-GPU jobs on one leave it
  // too little memory (SimConfig::job_memory_share, job_memory_share_by_type).
  bool GangWaits(int job) const;
  // Whether memory is modelled, and the share of its GPU's memory a job of
  // `kind` (JobTraits::kind) asks (a gang: 0, its GPUs whole, in what is
  // left).
  bool MemoryModelled() const { return !memory_share_of_kind_.empty(); }
  double MemoryShareOf(const std::string& kind) const {
    const auto it = memory_share_of_kind_.find(kind);
    return it == memory_share_of_kind_.end() ? 0 : it->second;
  }
  bool Guaranteed(int job) const { return jobs_[job].priority == policy::Priority::kGuaranteed; }
  // Guaranteed and not yielding: a guaranteed gang beside a guaranteed job
  // (under share control) runs as an opportunistic job until that job ends
  // (policy::PlacementDecision::yields).
  bool Protected(int job) const { return Guaranteed(job) && !Yields(job); }
  bool Yields(int job) const;
  // The jobs running on `gpu` other than `job` (a waiting gang does not run).
  std::vector<int> CoRunners(int job, int gpu) const;
  bool IsGang(int job) const { return jobs_[job].type.scale > 1; }
  // A gang wider than a node: k / gpus_per_node whole nodes, all of each
  // node's GPUs (Init checks k is a multiple), as Slurm runs
  // `srun -N k/g -n k --gres=gpu:g`.
  bool SpansNodes(int job) const { return jobs_[job].type.scale > config_.gpus_per_node; }
  int NodesOf(int job) const {
    return SpansNodes(job) ? jobs_[job].type.scale / config_.gpus_per_node : 1;
  }
  // Its tasks on each of its nodes, a CPU each (SimConfig::cpus_per_node).
  int TasksPerNode(int job) const {
    return SpansNodes(job) ? config_.gpus_per_node : jobs_[job].type.scale;
  }
  // Whether `node` is free for the gang `job` across nodes in Slurm's
  // accounting: a whole node, not reserved for another job, and all its
  // GPUs empty; with gangs_take_busy_gpus (shards), no GPU of it another
  // gang's and CPUs left for g tasks, the rule single-node gangs follow there.
  bool NodeFreeFor(int job, int node) const;
  // A gang across nodes arriving: the whole nodes the coordinator's dry run
  // names for it now (busy_gang_policy), placed or as those it would take
  // once the gangs there end, as job_submit.lua asks when the job is
  // submitted and binds it to them as a preference (named_nodes_). With
  // slurm_chooses_the_node, a one-GPU job's node alike (DryRunView).
  void NoteSubmission(int job);
  // What a one-GPU job's dry run sees: every job placed, and each job not
  // started yet whose dry run named a GPU within kReservationTtlS, there.
  ClusterState DryRunView() const;
  // The node Slurm starts the one-GPU `job` on (slurm_chooses_the_node): its
  // named node if that has room, else the lowest-numbered with room; none
  // when no node has.
  std::optional<int> SlurmNodeFor(int job) const;
  bool SlurmHasRoom(int node) const;
  // What the policy is asked for `job` when Slurm starts it.
  PlacementRequest RequestFor(int job) const;
  // The GPUs of the lowest-numbered NodesOf(job) nodes free for `job`
  // (Slurm's select/cons_tres), in node order; empty when fewer are free.
  std::vector<int> SlurmNodes(int job) const;
  // A guaranteed one-GPU job on a whole GPU (SimConfig::
  // guaranteed_take_whole_gpus): it shares with no one.
  bool TakesAWholeGpu(int job) const {
    return config_.guaranteed_take_whole_gpus && Guaranteed(job) && !IsGang(job);
  }
  // Whether `job` closes its GPUs to a gang given busy GPUs: a gang, or a
  // guaranteed job on a whole GPU.
  bool ClosesItsGpus(int job) const { return IsGang(job) || TakesAWholeGpu(job); }
  bool ClosedToGangs(int gpu) const {
    return std::any_of(on_gpu_[gpu].begin(), on_gpu_[gpu].end(),
                       [&](int j) { return ClosesItsGpus(j); });
  }
  // Whether a gang may be given GPUs that one-GPU jobs hold (Slurm 22.05's
  // shards; with exclusive one-GPU jobs there are no shards).
  bool GangsTakeBusyGpus() const {
    return config_.gangs_take_busy_gpus && config_.policy_may_share;
  }
  // Whether `node` has CPUs for `k` more tasks (SimConfig::cpus_per_node).
  bool HasCpusFor(int node, int k) const {
    return config_.cpus_per_node <= 0 || cpus_used_[node] + k <= config_.cpus_per_node;
  }
  // What a gang of `k` sees when it may take busy GPUs: gangs_view_ without
  // the nodes that have no CPUs left for it.
  ClusterState GangView(int k) const;
  // Takes out of `view` the nodes without a CPU for each of k more tasks.
  void DropNodesWithoutCpus(int k, ClusterState* view) const;
  // What busy_gang_policy_ sees for a gang of `k`: every job placed, a
  // gang's GPUs held whole (mem_bytes 0), without the nodes that have no
  // CPUs left for it.
  ClusterState BusyGangView(int k) const;
  // The request a gang joining busy GPUs makes (busy_gang_policy_).
  PlacementRequest BusyGangRequest(int job) const;
  // Whether any GPU `job` could possibly be given is open now (a cheap
  // filter before asking the policy; the policy still decides).
  bool MightFit(int job) const;
  // Reserves for the gang `job` the node (a gang across nodes: the
  // NodesOf(job) whole nodes) with the most empty GPUs, then the lowest.
  void Reserve(int job);
  // A gang at the head of the queue that cannot start, when none holds a
  // reservation and reservations are on.
  bool ReservesANode(int job) const {
    return config_.queue == QueueModel::kReserveForGangs && jobs_[job].type.scale > 1 &&
           reserving_job_ < 0;
  }
  // Records `job`, as `placed`, on `gpu` in every view that shows it.
  void AddToStates(int gpu, int job, const PlacedJob& placed);
  void RemoveFromStates(int gpu, const std::string& id);
  bool Hidden(int gpu) const { return reserving_job_ >= 0 && reserved_[node_of_[gpu]]; }
  void StateChanged() {
    std::fill(queued_kind_.begin(), queued_kind_.end(), false);
    std::fill(queued_on_node_.begin(), queued_on_node_.end(), false);
  }

  std::span<const SimJob> jobs_;
  const GavelThroughputs& truth_;
  const SimConfig& config_;
  const policy::PlacementPolicy& policy_;
  CoLocationObserver* observer_;
  const policy::PlacementPolicy* busy_gang_policy_;  // Simulate's busy_gang_policy

  // Per job.
  std::vector<double> solo_rate_;
  std::vector<policy::JobTraits> traits_;
  std::vector<int> kind_of_;  // index into kinds
  std::vector<Running> running_;
  std::vector<JobOutcome> out_;

  // Kinds (distinct job types) and which may share with which.
  std::vector<JobType> kinds_;
  std::vector<std::vector<char>> may_share_;
  // By JobTraits::kind; empty when memory is not modelled (MemoryShareOf).
  absl::flat_hash_map<std::string, double> memory_share_of_kind_;
  // Kinds and priorities asked since the state last changed and queued:
  // asking again would get the same answer (Place is a pure function of
  // request and state, and requests of one kind and priority differ only in
  // the job id). Indexed by QueueClass.
  std::vector<char> queued_kind_;
  int QueueClass(int job) const {
    return kind_of_[job] * 2 + (jobs_[job].priority == policy::Priority::kGuaranteed ? 1 : 0);
  }

  // Per GPU and node.
  std::vector<GpuId> gpu_ids_;
  std::map<GpuId, int> gpu_index_;
  std::vector<int> node_of_;
  std::vector<std::vector<int>> node_gpus_;
  std::vector<int> cpus_used_;  // per node: a CPU per GPU of each job there
  // Jobs on each GPU: up to two, or a gang and up to two one-GPU jobs
  // (SimConfig::gangs_take_busy_gpus).
  std::vector<std::vector<int>> on_gpu_;
  std::vector<double> occupancy_;         // each GPU's, see UpdateOccupancy
  std::vector<char> busy_;                // each GPU's, see UpdateOccupancy
  double total_occupancy_ = 0;

  ClusterState full_;  // what the oldest job (holding a reservation) sees
  ClusterState view_;  // everything but the reserved nodes: what the rest see
  // Gangs only: what a gang sees when it may take GPUs one-GPU jobs hold.
  ClusterState gangs_view_;
  std::vector<char> reserved_;  // per node: reserved for reserving_job_
  int reserving_job_ = -1;

  std::vector<int> waiting_;  // arrival order
  // Per job: the nodes the coordinator named at its submission (a gang
  // across nodes, or with slurm_chooses_the_node a one-GPU job; empty: none
  // named).
  std::vector<std::vector<int>> named_nodes_;
  // One-GPU jobs not started whose dry run named a GPU: (job, GPU, until).
  struct DryRunReservation {
    int job;
    int gpu;
    double until_s;
  };
  std::vector<DryRunReservation> reservations_;
  // With slurm_chooses_the_node: (queue class, node) pairs the policy queued
  // since the state last changed, as queued_kind_ is for the whole cluster.
  std::vector<char> queued_on_node_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  double now_ = 0;
  int busy_gpus_ = 0;
  SimResult result_;
};

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
    return absl::InvalidArgumentError("gangs_take_busy_gpus models Slurm: it needs the slurm queue");
  }
  if (config_.cpus_per_node < 0) return absl::InvalidArgumentError("cpus_per_node must be >= 0");
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

std::vector<int> Simulation::CoRunners(int job, int gpu) const {
  std::vector<int> others;
  for (int j : on_gpu_[gpu]) {
    if (j != job && !running_[j].waiting_for_gpus) others.push_back(j);
  }
  return others;
}

double Simulation::KeptBeside(int job, int gpu) const {
  const std::vector<int> others = CoRunners(job, gpu);
  if (others.empty()) return 1.0;
  // A gang's rank runs like the one-GPU job of its model.
  const auto one_gpu = [&](int j) { return JobType{jobs_[j].type.name, 1}; };
  const JobType mine = one_gpu(job);
  const std::optional<double> solo = truth_.Solo(mine);
  // Unmeasured: a fair time slice each.
  const double fair = 1.0 / static_cast<double>(others.size() + 1);
  if (!solo.has_value() || !(*solo > 0) || others.size() > 2) return fair;
  std::optional<double> beside;
  if (others.size() == 2) {
    beside = truth_.Triple(mine, one_gpu(others[0]), one_gpu(others[1]));
  } else if (const std::optional<PairThroughput> pair = truth_.Pair(mine, one_gpu(others[0]))) {
    beside = pair->a;
  }
  return beside.has_value() ? std::clamp(*beside / *solo, 0.0, 1.0) : fair;
}

double Simulation::ShareOn(int gpu) const {
  int guaranteed = -1, running = 0;
  for (int j : on_gpu_[gpu]) {
    if (running_[j].waiting_for_gpus) continue;
    ++running;
    if (!Protected(j)) continue;
    if (guaranteed >= 0) return 1.0;  // two: no one to throttle for either
    guaranteed = j;
  }
  if (guaranteed < 0 || running < 2) return 1.0;
  const double p_g = KeptBeside(guaranteed, gpu);
  return std::min(
      1.0, std::max(config_.min_share, policy::ProtectiveShare(p_g, LoopTargetOf(guaranteed))));
}

double Simulation::RunSlowdownOf(int job) const {
  const Running& r = running_[job];
  const double remaining = std::max(0.0, r.remaining - r.rate * (now_ - r.since));
  const double done_alone_s = (jobs_[job].total_steps - remaining) / solo_rate_[job];
  return done_alone_s > 0 ? (now_ - out_[job].start_s) / done_alone_s - 1 : 0;
}

double Simulation::LoopTargetOf(int job) const {
  return policy::RepaidTarget(config_.slowdown_target, RunSlowdownOf(job), /*aim=*/1.0,
                              policy::RunSlowdown::Options{}.floor);
}

// A run held at its target reads it give or take rounding: repaid only
// past this (relative to the target).
constexpr double kRepayTolerance = 1e-6;

bool Simulation::Repaying(int job) const {
  return !running_[job].waiting_for_gpus && Protected(job) &&
         RunSlowdownOf(job) > config_.slowdown_target * (1 + kRepayTolerance);
}

double Simulation::NextRepayCheck() const {
  double next = std::numeric_limits<double>::infinity();
  if (!config_.share_control) return next;
  for (size_t g = 0; g < on_gpu_.size(); ++g) {
    for (int j : on_gpu_[g]) {
      // Only where a lower target can still cut the others here.
      if (!Repaying(j) || CoRunners(j, int(g)).empty() || ShareOn(int(g)) <= config_.min_share)
        continue;
      const double age = now_ - out_[j].start_s;
      next = std::min(next, now_ + std::max(config_.control_period_s, 0.01 * age));
    }
  }
  return next;
}

void Simulation::RetimeRepaying() {
  std::vector<int> jobs;
  for (size_t g = 0; g < on_gpu_.size(); ++g) {
    if (std::any_of(on_gpu_[g].begin(), on_gpu_[g].end(), [&](int j) { return Repaying(j); }))
      jobs.insert(jobs.end(), on_gpu_[g].begin(), on_gpu_[g].end());
  }
  std::sort(jobs.begin(), jobs.end());
  jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
  RetimeWithGangs(jobs);
}

bool Simulation::Yields(int job) const {
  if (!config_.share_control || !IsGang(job) || !Guaranteed(job)) return false;
  for (int g : running_[job].gpus) {
    for (int other : CoRunners(job, g)) {
      if (Guaranteed(other)) return true;
    }
  }
  return false;
}

double Simulation::GangShare(int gang) const {
  double share = 1.0;
  for (int g : running_[gang].gpus) share = std::min(share, ShareOn(g));
  return share;
}

double Simulation::ControlledKept(int job, int gpu) const {
  const double kept = KeptBeside(job, gpu);
  if (!config_.share_control) return kept;
  // An opportunistic gang runs at the least share any of its GPUs gives it.
  if (IsGang(job) && !Protected(job)) return kept * GangShare(job);
  double share = ShareOn(gpu);
  // The jobs beside an opportunistic gang throttled here or elsewhere lose
  // only while its rank runs: that share of the time.
  const std::vector<int> others = CoRunners(job, gpu);
  if (others.size() == 1 && IsGang(others[0]) && !Protected(others[0])) {
    share = std::min(share, GangShare(others[0]));
  }
  if (share >= 1.0) return kept;
  // Harm in proportion to the share (policy/protective_share.h): the
  // guaranteed side loses (1 - kept) * share, the others keep kept * share.
  if (Protected(job) || ShareOn(gpu) >= 1.0) return 1.0 - (1.0 - kept) * share;
  return kept * share;
}

bool Simulation::GangWaits(int job) const {
  if (!config_.share_control || !IsGang(job) || !MemoryModelled()) return false;
  for (int g : running_[job].gpus) {
    // It joins in the memory they leave: some must be.
    double held = 0;
    for (int other : CoRunners(job, g)) held += MemoryShareOf(traits_[other].kind);
    if (held > 1.0 - 1e-9) return true;
  }
  return false;
}

double Simulation::RateOf(int job) const {
  const Running& r = running_[job];
  if (r.waiting_for_gpus) return 0;
  if (IsGang(job)) {
    double kept = 1.0;  // the gang goes at its slowest rank's pace
    for (int g : r.gpus) kept = std::min(kept, ControlledKept(job, g));
    return solo_rate_[job] * kept;
  }
  const std::vector<int> others = CoRunners(job, r.gpus[0]);
  if (others.empty()) return solo_rate_[job];
  if (others.size() > 1 || IsGang(others[0])) {
    return solo_rate_[job] * ControlledKept(job, r.gpus[0]);
  }
  const int other = others[0];
  const double paired = truth_.Pair(jobs_[job].type, jobs_[other].type)->a;  // Validate checked it
  // One guaranteed job, held at its floor by throttling the other (SimConfig);
  // none or two, or one at its floor or above without throttling: 1.
  const double share = config_.share_control ? ShareOn(r.gpus[0]) : 1.0;
  if (share >= 1.0) return paired;
  if (!Guaranteed(job)) return paired * share;
  const double p_g = paired / solo_rate_[job];
  return solo_rate_[job] * (1.0 - (1.0 - p_g) * share);
}

void Simulation::Retime(int job) {
  Running& r = running_[job];
  r.remaining = std::max(0.0, r.remaining - r.rate * (now_ - r.since));
  r.since = now_;
  if (r.waiting_for_gpus && !GangWaits(job)) {
    r.waiting_for_gpus = false;  // what kept it waiting ended: it starts
    out_[job].start_s = now_;
  }
  r.rate = RateOf(job);
  ++r.version;
  if (r.rate > 0) completions_.push({now_ + r.remaining / r.rate, job, r.version});
  for (int g : r.gpus) UpdateOccupancy(g);
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
  for (int g : r.gpus) --cpus_used_[node_of_[g]];  // a CPU per GPU, on each node
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

void Simulation::RetimeWithGangs(const std::vector<int>& jobs) {
  for (int job : jobs) Retime(job);
  if (!config_.share_control) return;
  for (int job : jobs) {
    if (!IsGang(job)) continue;
    for (int g : running_[job].gpus) {
      for (int other : on_gpu_[g]) {
        if (other != job) Retime(other);
      }
    }
  }
}

bool Simulation::NodeFreeFor(int job, int node) const {
  const std::vector<int>& gpus = node_gpus_[node];
  if (static_cast<int>(gpus.size()) != config_.gpus_per_node) return false;
  if (job != reserving_job_ && Hidden(gpus[0])) return false;
  if (GangsTakeBusyGpus()) {
    return HasCpusFor(node, config_.gpus_per_node) &&
           std::none_of(gpus.begin(), gpus.end(), [&](int g) { return ClosedToGangs(g); });
  }
  return std::all_of(gpus.begin(), gpus.end(), [&](int g) { return on_gpu_[g].empty(); });
}

std::vector<int> Simulation::SlurmNodes(int job) const {
  std::vector<int> gpus;
  int nodes = 0;
  for (size_t node = 0; node < node_gpus_.size() && nodes < NodesOf(job); ++node) {
    if (!NodeFreeFor(job, static_cast<int>(node))) continue;
    gpus.insert(gpus.end(), node_gpus_[node].begin(), node_gpus_[node].end());
    ++nodes;
  }
  if (nodes < NodesOf(job)) gpus.clear();
  return gpus;
}

bool Simulation::MightFit(int job) const {
  // Exact for a gang across nodes: Slurm's own rule places it (SchedulePass).
  if (SpansNodes(job)) return !SlurmNodes(job).empty();
  const int k = jobs_[job].type.scale;
  const bool sees_all = job == reserving_job_;
  const bool takes_busy = k > 1 && GangsTakeBusyGpus();
  for (size_t node = 0; node < node_gpus_.size(); ++node) {
    if (!sees_all && Hidden(node_gpus_[node].front())) continue;
    if (takes_busy && !HasCpusFor(static_cast<int>(node), k)) continue;
    int empty = 0;
    for (int g : node_gpus_[node]) {
      if (on_gpu_[g].empty() || (takes_busy && !ClosedToGangs(g))) {
        if (++empty >= k) return true;
      } else if (k == 1 && config_.policy_may_share && on_gpu_[g].size() == 1 &&
                 may_share_[kind_of_[job]][kind_of_[on_gpu_[g][0]]] && !TakesAWholeGpu(job) &&
                 !TakesAWholeGpu(on_gpu_[g][0])) {
        return true;
      }
    }
  }
  return false;
}

void Simulation::Reserve(int job) {
  // The nodes with the most empty GPUs drain fastest (ties: the lowest). A
  // gang across nodes reserves whole nodes only.
  std::vector<std::pair<int, int>> by_empty;  // (-empty GPUs, node)
  for (size_t node = 0; node < node_gpus_.size(); ++node) {
    const int size = static_cast<int>(node_gpus_[node].size());
    if (SpansNodes(job) ? size != config_.gpus_per_node : size < jobs_[job].type.scale) continue;
    int empty = 0;
    for (int g : node_gpus_[node]) empty += on_gpu_[g].empty() ? 1 : 0;
    by_empty.emplace_back(-empty, static_cast<int>(node));
  }
  std::sort(by_empty.begin(), by_empty.end());
  by_empty.resize(std::min(by_empty.size(), static_cast<size_t>(NodesOf(job))));
  std::fill(reserved_.begin(), reserved_.end(), 0);
  for (const auto& [empty, node] : by_empty) reserved_[node] = 1;
  reserving_job_ = job;
  view_ = full_;
  std::erase_if(view_.cluster.gpus,
                [&](const policy::GpuInfo& g) { return Hidden(gpu_index_.at(g.id)); });
  for (const auto& [empty, node] : by_empty) {
    for (int g : node_gpus_[node]) view_.jobs.erase(gpu_ids_[g]);
  }
  StateChanged();
}

void Simulation::DropNodesWithoutCpus(int k, ClusterState* view) const {
  std::erase_if(view->cluster.gpus, [&](const policy::GpuInfo& g) {
    if (HasCpusFor(node_of_[gpu_index_.at(g.id)], k)) return false;
    view->jobs.erase(g.id);
    return true;
  });
}

ClusterState Simulation::GangView(int k) const {
  ClusterState view = gangs_view_;
  DropNodesWithoutCpus(k, &view);
  return view;
}

ClusterState Simulation::BusyGangView(int k) const {
  ClusterState view = full_;
  // Memory in units of a GPU's: a gang holds its GPUs whole; a one-GPU job
  // its share (MemoryShareOf), when modelled.
  constexpr uint64_t kGpuBytes = uint64_t{1} << 30;
  const bool memory = MemoryModelled();
  for (auto& [id, placed] : view.jobs) {
    for (PlacedJob& j : placed) {
      if (j.gpu_count > 1) {
        j.mem_bytes = 0;
      } else if (memory) {
        j.mem_bytes = static_cast<uint64_t>(MemoryShareOf(j.traits.kind) * double(kGpuBytes));
      }
    }
  }
  if (memory) {
    for (policy::GpuInfo& g : view.cluster.gpus) g.memory_bytes = kGpuBytes;
  }
  DropNodesWithoutCpus(k, &view);
  return view;
}

void Simulation::NoteSubmission(int job) {
  if (config_.slurm_chooses_the_node && !IsGang(job)) {
    const PlacementDecision d = policy_.Place(RequestFor(job), DryRunView());
    ++result_.place_calls;
    if (d.outcome != PlacementDecision::Outcome::kPlaced) return;  // Slurm chooses
    const int gpu = gpu_index_.at(d.gpu);
    named_nodes_[job] = {node_of_[gpu]};
    reservations_.push_back({job, gpu, now_ + kReservationTtlS});
    return;
  }
  if (!SpansNodes(job) || !GangsTakeBusyGpus() || busy_gang_policy_ == nullptr) return;
  // The coordinator's view: every job running, no Slurm accounting of CPUs.
  const PlacementDecision d = busy_gang_policy_->Place(BusyGangRequest(job), BusyGangView(0));
  ++result_.place_calls;
  // Placed: those nodes; queued: those it would take once the gangs there
  // end (PlacementDecision::preferred), a preference all the same.
  const std::vector<GpuId>& gpus =
      d.outcome == PlacementDecision::Outcome::kPlaced ? d.gpus : d.preferred;
  for (const GpuId& id : gpus) {
    const int node = node_of_[gpu_index_.at(id)];
    std::vector<int>& named = named_nodes_[job];
    if (std::find(named.begin(), named.end(), node) == named.end()) named.push_back(node);
  }
}

ClusterState Simulation::DryRunView() const {
  ClusterState view = full_;
  for (const DryRunReservation& r : reservations_) {
    if (r.until_s <= now_) continue;
    PlacedJob held;
    held.job = absl::StrCat("(reserved for ", jobs_[r.job].id, ")");
    held.priority = jobs_[r.job].priority;
    held.mem_bytes = kNominalJobBytes;
    held.traits = traits_[r.job];
    view.jobs[gpu_ids_[r.gpu]].push_back(std::move(held));
  }
  return view;
}

bool Simulation::SlurmHasRoom(int node) const {
  if (!HasCpusFor(node, 1)) return false;
  int slots = 0, used = 0;
  for (int g : node_gpus_[node]) {
    if (ClosedToGangs(g)) continue;
    slots += 2;
    used += static_cast<int>(on_gpu_[g].size());
  }
  return used < slots;
}

std::optional<int> Simulation::SlurmNodeFor(int job) const {
  const std::vector<int>& named = named_nodes_[job];
  if (!named.empty() && SlurmHasRoom(named.front())) return named.front();
  for (size_t node = 0; node < node_gpus_.size(); ++node) {
    if (SlurmHasRoom(static_cast<int>(node))) return static_cast<int>(node);
  }
  return std::nullopt;
}

PlacementRequest Simulation::RequestFor(int job) const {
  PlacementRequest request;
  request.job = jobs_[job].id;
  request.priority = jobs_[job].priority;
  request.mem_bytes = kNominalJobBytes;
  request.traits = traits_[job];
  request.gpu_count = jobs_[job].type.scale;
  return request;
}

PlacementRequest Simulation::BusyGangRequest(int job) const {
  PlacementRequest request = RequestFor(job);
  request.mem_bytes = 0;  // whole GPUs, as gpu:k, in the memory their jobs leave
  request.join_busy_gpus = true;
  // Its ranks share GPUs as its one-GPU model does (KeptBeside).
  request.traits = TraitsOf(JobType{jobs_[job].type.name, 1});
  return request;
}

absl::Status Simulation::Validate(int job, const std::vector<int>& gpus,
                                  const ClusterState& seen) const {
  const SimJob& j = jobs_[job];
  const auto bad = [&](std::string_view why) {
    return absl::InternalError(Cat("the policy placed job ", j.id, " (",
                                            JobTypeKey(j.type), ") badly: ", why));
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
      return bad(Cat(policy::GpuName(gpu_ids_[g]), " cannot take it: gangs never share "
                                                            "and a GPU holds at most two jobs"));
    }
    if (TakesAWholeGpu(job) || TakesAWholeGpu(here[0])) {
      return bad(Cat(policy::GpuName(gpu_ids_[g]), " shared by a guaranteed job on a whole GPU"));
    }
    if (!may_share_[kind_of_[job]][kind_of_[here[0]]]) {
      return bad(Cat("next to ", jobs_[here[0]].id,
                              ", a pair that was never measured together"));
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
      return absl::InternalError(Cat("the policy placed job ", jobs_[job].id,
                                              " on ", policy::GpuName(id), ", no such GPU"));
    }
    gpus.push_back(it->second);
  }
  if (absl::Status s = Validate(job, gpus, seen); !s.ok()) return s;

  Running& r = running_[job];
  r.gpus = gpus;
  r.remaining = jobs_[job].total_steps;
  r.since = now_;
  r.rate = solo_rate_[job];
  out_[job].start_s = now_;
  PlacedJob placed;
  placed.job = jobs_[job].id;
  placed.priority = jobs_[job].priority;
  placed.mem_bytes = kNominalJobBytes;
  placed.traits = traits_[job];
  placed.gpu_count = jobs_[job].type.scale;
  std::vector<int> neighbours;
  for (int g : gpus) {
    neighbours.insert(neighbours.end(), on_gpu_[g].begin(), on_gpu_[g].end());
    on_gpu_[g].push_back(job);
    AddToStates(g, job, placed);
  }
  for (int g : gpus) ++cpus_used_[node_of_[g]];  // a CPU per GPU, on each node
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
      decision = busy_gang_policy_->Place(BusyGangRequest(job), *gang_view);
      // Nowhere to go now: job_submit.lua's dry run names no node, so Slurm
      // chooses blindly, and the gang waits there (GangWaits).
      if (decision.outcome == PlacementDecision::Outcome::kQueued) {
        ++result_.place_calls;
        gang_view = GangView(request.gpu_count);
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
                                                JobTypeKey(jobs_[job].type), "): ",
                                                decision.reason));
    }
  }
  return absl::OkStatus();
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
        return absl::InternalError(Cat(
            "the policy left ", waiting_.size(), " job(s) waiting on an idle cluster, e.g. ",
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
  }
  result_.jobs = std::move(out_);
  if (!jobs_.empty()) {
    double last = 0;
    for (const JobOutcome& o : result_.jobs) last = std::max(last, o.finish_s);
    result_.makespan_s = last - jobs_.front().arrival_s;
  }
  return std::move(result_);
}

}  // namespace

policy::Cluster MakeCluster(const SimConfig& config) {
  policy::Cluster cluster;
  for (int g = 0; g < config.gpus; ++g) {
    policy::GpuInfo info;
    info.id = GpuId{HostName(g / config.gpus_per_node), g % config.gpus_per_node};
    info.type = config.gpu_type;
    info.name = config.gpu_type;
    info.memory_bytes = 0;  // unknown: MeasuredPairRule decides who fits together
    cluster.gpus.push_back(std::move(info));
  }
  return cluster;
}

absl::StatusOr<SimResult> Simulate(std::span<const SimJob> jobs, const GavelThroughputs& truth,
                                   const SimConfig& config, const policy::PlacementPolicy& policy,
                                   CoLocationObserver* observer,
                                   const policy::PlacementPolicy* busy_gang_policy) {
  Simulation sim(jobs, truth, config, policy, observer, busy_gang_policy);
  return sim.Run();
}

}  // namespace iashim::clustersim
