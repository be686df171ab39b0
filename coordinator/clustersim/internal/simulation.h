// Private to iashim-clustersim's Simulate (simulator.h): one simulated run of a
// trace on a cluster, an event loop over arrivals, completions, Slurm's
// backfill passes and the share controller's repay checks. One class, its
// members in three files by what they model:
//   simulation.cc        the event loop, the queue and starting and finishing jobs
//   simulation_speed.cc  how fast each running job goes: the measured pairs
//                        (ground truth) and the share controller's cuts
//   simulation_slurm.cc  Slurm's side: nodes free for a gang, reservations,
//                        the coordinator's dry runs at submission, the views
//                        each kind of request sees
#ifndef IASHIM_CLUSTERSIM_INTERNAL_SIMULATION_H_
#define IASHIM_CLUSTERSIM_INTERNAL_SIMULATION_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/clustersim/gavel_throughputs.h"
#include "coordinator/clustersim/internal/throttled_loss.h"
#include "coordinator/clustersim/simulator.h"
#include "coordinator/policy/cluster_state.h"
#include "coordinator/policy/placement.h"

namespace iashim::clustersim::sim_internal {

using policy::ClusterState;
using policy::GpuId;
using policy::PlacedJob;
using policy::PlacementDecision;
using policy::PlacementRequest;

// Jobs reserve a nominal byte on GPUs of unknown size, so memory never
// blocks sharing: MeasuredPairRule stands for the memory check.
inline constexpr uint64_t kNominalJobBytes = 1;

// How long a dry run's reservation holds its GPU for a job not started yet:
// the daemon's --reservation-ttl-s default (coordinator/daemon/reservations.h).
inline constexpr double kReservationTtlS = 30;

// "node007": the host name of node 7 (MakeCluster's).
std::string HostName(int node);

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
  // Moves slowed one-GPU opportunistic jobs to empty GPUs, the slowest
  // first (SimConfig::migration_cost_s).
  void MigrateToEmptyGpus();
  // The one-GPU opportunistic job running slowest beside a co-runner on a
  // node other than `node`, if any runs slower than alone
  // (policy::SlowestToMove, the daemon's rule; Slurm restarts a requeued
  // job on its own node only minutes later).
  std::optional<int> SlowestSharingJob(int node) const;
  // Moves the one-GPU `job` to the empty `gpu`, its progress kept.
  void Migrate(int job, int gpu);
  absl::Status Start(int job, const PlacementDecision& decision, const ClusterState& seen);
  absl::Status Validate(int job, const std::vector<int>& gpus, const ClusterState& seen) const;
  void Retime(int job);
  double RateOf(int job) const;
  // The fraction of its solo speed `job` keeps on `gpu` beside the jobs
  // running there, for the pairs a gang is in (SimConfig::gangs_take_busy_gpus).
  double KeptBeside(int job, int gpu) const;
  // KeptBeside under share control: where jobs running on `gpu` are
  // guaranteed, the others' shares are cut to hold each at its floor
  // (SimConfig::share_control).
  double ControlledKept(int job, int gpu) const;
  // The share the controller cuts opportunistic jobs on `gpu` to: the least
  // that holds every guaranteed job running there at its floor (at least
  // min_share); 1 where none is guaranteed, or all are.
  double ShareOn(int gpu) const;
  // What `job` loses on `gpu` beside its co-runners there, those not
  // guaranteed held to `pace` (0..1) of their unthrottled speed
  // (throttled_loss.h), a guaranteed one at full pace.
  double LossBeside(int job, int gpu, double pace) const;
  // The least pace of the co-runners held for `job` at which it loses
  // `loss` there (0..1; LossBeside).
  double PaceForLossBeside(int job, int gpu, double loss) const;
  // What `job` loses beside `other` alone at full pace, as one-GPU jobs of
  // their models (their measured pair); none where unmeasured.
  std::optional<double> PairLoss(int job, int other) const;
  // A guaranteed job running on `gpu` beside `job`, if any.
  std::optional<int> GuaranteedCoRunner(int job, int gpu) const;
  // What the throttled opportunistic gangs' ranks beside `job` on `gpu`
  // cost it by waiting in their collectives, beyond their share
  // (SimConfig::throttled_rank_wait_loss each); `throttled_here`: every such rank
  // as throttled (the share on `gpu` is being cut), else those whose gang
  // runs below full share.
  double WaitingRanksLoss(int job, int gpu, bool throttled_here) const;
  // What `job` loses beside its co-runners on `gpu` at full pace: beside
  // each of two and both where it has two whose pairs are known, else in
  // proportion to the pace (throttled_loss.h).
  CoRunnerLosses LossesBeside(int job, int gpu) const;
  // How much slower than alone `job` has run since it started, now.
  double RunSlowdownOf(int job) const;
  // The slowdown the loop holds guaranteed `job` to now: its aim (the
  // loop's quiet headroom) times its own target, lowered while its run so
  // far is over the aim (SimConfig::share_control).
  double LoopTargetOf(int job) const;
  // Whether guaranteed `job` runs, protected, with its run so far over its
  // aim: the loop holds it lower (LoopTargetOf).
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
  // Held within its target by the share controller, every one (a gang
  // beside a guaranteed job too: neither is held for the other).
  bool Guaranteed(int job) const { return jobs_[job].priority == policy::Priority::kGuaranteed; }
  // The jobs running on `gpu` other than `job` (a waiting gang does not run).
  std::vector<int> CoRunners(int job, int gpu) const;
  bool IsGang(int job) const { return jobs_[job].type.scale > 1; }
  double StartUpS(int job) const {
    return IsGang(job) ? config_.start_up.gang_s : config_.start_up.one_gpu_s;
  }
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
  // `job` as the policy sees it on its GPUs once placed.
  PlacedJob PlacedJobFor(int job) const;
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
  // Whether `job` asks for the guaranteed GRES (SimConfig::guaranteed_gres,
  // policy::AsksGuaranteedGres): a guaranteed job or a gang.
  bool AsksGuaranteedGres(int job) const {
    return config_.guaranteed_gres &&
           policy::AsksGuaranteedGres(jobs_[job].priority, jobs_[job].type.scale);
  }
  // Whether `node` has guaranteed GPUs left for `k` more of `job`'s GPUs.
  bool HasGuaranteedGpusFor(int job, int node, int k) const {
    return !AsksGuaranteedGres(job) ||
           guaranteed_gpus_used_[node] + k <= static_cast<int>(node_gpus_[node].size());
  }
  // Takes out of `view` the nodes without guaranteed GPUs for `job`'s tasks.
  void DropNodesWithoutGuaranteedGpus(int job, ClusterState* view) const;
  // Takes out of `view` every GPU, with its jobs, of a node `lacks_room`.
  void DropNodesWhere(const std::function<bool(int node)>& lacks_room, ClusterState* view) const;
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
  // Per node: a guaranteed GPU per GPU of each job there that asks for them
  // (AsksGuaranteedGres).
  std::vector<int> guaranteed_gpus_used_;
  // Jobs on each GPU: up to two, or a gang and up to two one-GPU jobs
  // (SimConfig::gangs_take_busy_gpus).
  std::vector<std::vector<int>> on_gpu_;
  std::vector<double> occupancy_;  // each GPU's, see UpdateOccupancy
  std::vector<char> busy_;         // each GPU's, see UpdateOccupancy
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

}  // namespace iashim::clustersim::sim_internal

#endif  // IASHIM_CLUSTERSIM_INTERNAL_SIMULATION_H_
