// The event-driven cluster simulator. Pure: no I/O, no clock, no randomness;
// the same jobs, ground truth and policy give the same result.
//
// Rules (README.md has the why):
//  - N GPUs of one type in nodes of `gpus_per_node` (the last node may be
//    smaller). A GPU is GpuId{"node%03d", index}.
//  - A job alone on its GPU(s) advances at its solo throughput; two one-GPU
//    jobs on one GPU advance at the pair's measured throughputs. Rates are
//    piecewise constant; they change only when a GPU's set of jobs changes,
//    so the simulation is exact (events: arrivals and completions).
//  - At most two jobs on a GPU, and only pairs Gavel measured (the policies
//    get MeasuredPairRule); gangs (k > 1 GPUs) take k empty GPUs of one node
//    and never share (unless SimConfig::gangs_take_busy_gpus models Slurm
//    22.05's shards). A decision breaking these rules is an error, not a
//    silent fix.
//  - A gang wider than a node (k > gpus_per_node = g, k a multiple of g)
//    runs as Slurm runs `srun -N k/g -n k --gres=gpu:g`: on k/g whole nodes,
//    all g GPUs of each, under every policy. Slurm places it, not the policy
//    (job_submit.lua leaves multi-node jobs to Slurm): the lowest-numbered
//    nodes free in Slurm's accounting (select/cons_tres), i.e. all GPUs
//    empty, or with gangs_take_busy_gpus no GPU another gang's and CPUs left
//    for g tasks. It goes at its slowest GPU's pace, each GPU's fraction
//    as for a single-node gang (share control and memory per GPU),
//    its solo rate Gavel's throughput at scale k; it takes g CPUs on each of
//    its nodes. Across nodes in any other form is an error.
//  - The queue (SimConfig::queue): by default, after every event time the
//    queue is walked in arrival order and the policy asked for each waiting
//    job; placed jobs start at once. A later job may start when an earlier
//    cannot (backfill), but when the oldest waiting job is a gang that
//    cannot start, it reserves a node (the one with the most empty GPUs,
//    then the lowest; a gang wider than a node: the k/g whole nodes with
//    the most): the nodes are hidden from every other job until the gang
//    starts, so they drain and the gang cannot starve. One-GPU jobs need
//    no reservation: every policy gives an empty GPU to the first job
//    asking, and the oldest asks first. QueueModel has the others, one
//    of them Slurm's.
//  - No preemption, no migration: a job runs where it started until done
//    (but for SimConfig::migration_cost_s: the coordinator's moves).
//  - When a policy starts a pair, the observer (its learner) is told both
//    jobs' normalised throughputs (paired / solo), as the daemon would
//    measure them.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_SIMULATOR_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_SIMULATOR_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/clustersim/gavel_throughputs.h"
#include "coordinator/policy/interference_model.h"
#include "coordinator/policy/placement.h"
#include "coordinator/policy/priority.h"

namespace iashim::clustersim {

struct SimJob {
  std::string id;
  JobType type;
  double total_steps = 0;
  double arrival_s = 0;  // jobs must be given in non-decreasing arrival order
  // What the policy is told (placement keeps two guaranteed jobs apart), and,
  // under share control, who is throttled.
  policy::Priority priority = policy::Priority::kOpportunistic;
};

// How waiting jobs are started.
enum class QueueModel {
  // After every event, any waiting job that fits starts, in arrival order;
  // the oldest waiting gang reserves a node (above).
  kReserveForGangs,
  // The same without the reservation: later jobs take any GPU that frees up.
  kGreedy,
  // Slurm's sched/backfill when jobs have no time limit (what the live
  // replay's cluster runs, scripts/live-replay.sh). After every event the
  // main scheduler starts jobs in arrival order up to the first that cannot
  // start, and holds every job behind it (their pending reason "Priority").
  // Every backfill_interval_s a backfill pass starts any waiting job that
  // fits, in arrival order, reserving nothing: with running jobs that never
  // end as far as it knows, no blocked job has a start time to protect.
  kSlurmNoTimeLimits,
};

// SimConfig::start_up: a one-GPU job's, and a gang's (its slowest rank's).
struct JobStartUp {
  double one_gpu_s = 0;
  double gang_s = 0;
};

struct SimConfig {
  int gpus = 0;
  int gpus_per_node = 8;
  std::string gpu_type = "v100";
  // False for a policy that never co-locates jobs (exclusive): the simulator
  // then does not ask it while only sharing could place a job. Saves time
  // only; a co-location such a policy makes anyway is an error.
  bool policy_may_share = true;
  // The daemon's share controller, for a policy that has one (iashim,
  // oracle): on a GPU holding one guaranteed job whose pair throughput
  // would leave it below its floor, 1 / (1 + aim * slowdown_target) of its
  // solo speed (aim: the loop's quiet headroom, 0.9, where it holds a job
  // once its measurement is steady), the opportunistic job's share is cut
  // to s = (1 - floor) / (1 - p_g), at least min_share, and its pair
  // throughput scaled by s; the guaranteed job then runs at
  // 1 - (1 - p_g) * s of its solo speed (the floor, unless s hit
  // min_share). Harm proportional to share is the controller's own model
  // (policy/protective_share.h, which placement predicts by too); two
  // co-runners' harms add at a low share (internal/throttled_loss.h). The
  // controller's settling time is not simulated. Off: a pair runs at its
  // measured rates. A guaranteed job whose run so far is slower than the
  // aim (a gang beside a guaranteed job, below) is then held lower until its run is
  // back at it, as the daemon's loop repays (policy::RepaidTarget).
  bool share_control = false;
  double slowdown_target = 0.10;
  double min_share = 0.05;
  // With share_control: what a rank of an opportunistic gang held below full
  // share costs each job beside it by waiting in its collectives, beyond its
  // share's harm (so the controller cuts that much more). Its gang's ranks,
  // each gated to the share, fall out of step, and the early ones reach
  // every all-reduce before the last (collective pacing holds most of that
  // lead back, not all: libiashim/src/collective_pacer.h); simgpu's waiting
  // collective holds its SMs, a loss that does not shrink with the share.
  // Measured by bench/gang/cross_node_pacing_bench.sh --runs 3 --cases
  // on,no-rank,rank-only (an 8-rank LSTM gang on two simulated nodes at
  // share 0.05, pacing with its probe; 2026-12-06): a Transformer beside
  // rank 7 alone lost 3.8, 4.3 and 4.8 points of its speed, beside an LSTM
  // at the same share alone 2.2, 2.1 and 2.2 (what the rank's compute costs
  // too), so the waiting 1.6, 2.3 and 2.6; the median taken. Not fitted to
  // any replay.
  double throttled_rank_wait_loss = 0.022;
  // With share_control: how often a run being repaid is read again (the
  // daemon's control period), or every hundredth of the run's time so far
  // where that is longer (a run's slowdown moves more slowly as it ages).
  double control_period_s = 1;
  QueueModel queue = QueueModel::kReserveForGangs;
  // kSlurmNoTimeLimits: the time between backfill passes, Slurm's
  // bf_interval (its default: 30 s). Passes fall on its multiples.
  double backfill_interval_s = 30;
  // Slurm 22.05's shard accounting (seen on Debian's 22.05.8; README.md,
  // "Queue"): a gang's gpu:k may be given GPUs whose shards one-GPU jobs
  // hold, and a GPU given to a gang takes no shard job until the gang ends.
  // Only with kSlurmNoTimeLimits and a policy that shares (one-GPU jobs on
  // shards). Off: a gang takes k empty GPUs (wider than a node: k/g empty
  // nodes).
  bool gangs_take_busy_gpus = false;
  // A gang given busy GPUs runs beside their one-GPU jobs at once, each
  // rank kept at its model's one-GPU pair or triple fraction
  // (GavelThroughputs::Triple; a fair time slice when not known), the gang
  // at its slowest rank's pace. With share_control (the coordinator:
  // --iashim) a GPU where one of them is guaranteed is held as a pair is
  // (above: the others' shares cut so it keeps its floor, each of them then
  // at its fraction times the share). Where two are (a guaranteed gang
  // beside a guaranteed job, policy::PlacementDecision::beside_guaranteed),
  // neither is held for the other, both at full pace, and the third, if
  // any, is cut to the share that holds both (the least of the two), each
  // guaranteed job losing (1 - s) h_g + s h_t at its pace s, h_g its loss
  // beside the other alone (the pair), h_t beside both (the triple). Not
  // modelled: a rank held back by a slower one leaves its own GPU's
  // co-runners more time.
  // With kSlurmNoTimeLimits, for the coordinator's policies (iashim, oracle):
  // Slurm chooses a one-GPU job's node and the policy only its GPU there, as
  // the live replay's --iashim runs it. When the job is submitted,
  // job_submit.lua's dry run asks the policy (seeing where the dry runs of
  // jobs not started yet put them, the coordinator's reservations, for
  // kReservationTtlS) and names that node as the job's preference; a dry run
  // the policy queued names none. Slurm starts the job on its named node if
  // that has room, else on the lowest-numbered node with room (room: Slurm's
  // shards, two one-GPU jobs per GPU that no gang holds, and a CPU), and the
  // policy is asked for a GPU there. Off: the policy chooses among all GPUs
  // (a coordinator placing jobs itself, `iashim run`). Not modelled: a job
  // Slurm started where the coordinator then queues it holds its allocation
  // (here it waits in Slurm's queue).
  bool slurm_chooses_the_node = false;
  // Plain Slurm keeping guaranteed jobs at their speed the only way it can:
  // a whole GPU each (--gres=gpu:1), the other jobs on shards. A guaranteed
  // one-GPU job then starts only on an empty GPU, and no job joins it there,
  // neither a shard job nor a gang given busy GPUs (gangs_take_busy_gpus).
  // The policy places by the same rule (FirstFitPlacement's
  // guaranteed_take_whole_gpus); the simulator refuses a placement that
  // breaks it. A whole GPU as Slurm means it: Debian's 22.05 gives a gpu:1
  // request a GPU whose shards are in use, as it does a gang's gpu:k, so a
  // cluster on that version would need its guaranteed jobs on nodes of their
  // own.
  bool guaranteed_take_whole_gpus = false;
  // With kSlurmNoTimeLimits, for the coordinator's policies (iashim,
  // oracle; ReplayOptions::guaranteed_gres): every guaranteed job and every
  // gang (policy::AsksGuaranteedGres) asks each of its nodes for one
  // guaranteed GPU per GPU it uses there, of as many as the node has (live:
  // a count-only GRES, job_submit.lua's IASHIM_GUARANTEED_GRES), and Slurm
  // starts none where the node's guaranteed jobs and gangs would then use
  // more GPUs than it has. Slurm 22.05 gives a gang's gpu:k GPUs whose shards
  // are in use (gangs_take_busy_gpus), so without it a gang may start on a
  // guaranteed shard job's GPU, where a guaranteed gang and the job cannot
  // both be held within their targets and an opportunistic gang runs at the
  // pace of its rank held there; with it, such a gang waits in the queue for
  // a node with room beside the guaranteed jobs and gangs there (which GPUs
  // it takes there is still the policy's). Counting guaranteed jobs only
  // left a gang given a guaranteed job's GPU where gangs held the others.
  bool guaranteed_gres = false;
  // With gangs_take_busy_gpus: a node's CPUs (Slurm's CPUs=), each job
  // taking one per GPU (a gang wider than a node: g on each of its nodes),
  // so a gang joins one-GPU jobs on a node only while CPUs are left for its
  // tasks there (0: no limit). Shards alone never run out of
  // CPUs with two per GPU, so only busy GPUs make this bind.
  int cpus_per_node = 0;
  // With gangs_take_busy_gpus and share_control: the share of its GPU's
  // memory each one-GPU job holds (the live replay's --iashim-mem=16GiB of a
  // 32 GiB V100: 0.5). The coordinator starts a gang beside jobs only in the
  // memory they leave, so a gang whose GPU they fill waits there, holding
  // its GPUs, until one ends; the gang's node (Simulate's
  // busy_gang_policy) is one with memory left on k GPUs, else Slurm's
  // blind choice. Plain Slurm counts no memory. 0: not modelled.
  double job_memory_share = 0;
  // The same per job type (its name, e.g. "ResNet-50 (batch size 64)"):
  // what a one-GPU job of that type holds (unlisted types:
  // job_memory_share). The live replay's one-GPU jobs ask the memory their
  // profiles allocate (job_memory_shares.h).
  std::map<std::string, double> job_memory_share_by_type;
  // What a job's processes take beyond its iterations, to start and to exit
  // (the live replay's host: the fake job, the shim, a gang's ranks under
  // srun), in seconds of the job at its solo pace: it runs that much longer
  // on its GPUs, slowed by its co-runners as its iterations are (the share
  // controller's reading of its run is theirs). Not modelled: that a
  // starting job costs its co-runners less than a running one. 0: none (a
  // real cluster's jobs run hours; a compressed replay's run seconds).
  JobStartUp start_up;
  // With share_control, what the coordinator's --move-command does
  // (daemon/coordinator_move.cc), without its wait: after an event that leaves a GPU empty
  // with no job waiting, the one-GPU opportunistic job on another node that
  // keeps the least of its solo speed beside a co-runner moves there (Slurm
  // restarts a requeued batch job on the node it ran on only once its
  // credential has expired, minutes later), as a job checkpointed,
  // requeued and restarted on it would, its progress kept, running
  // migration_cost_s longer at its solo pace; then the next, while GPUs stay
  // empty. Only a job that is slowed moves; which one is chosen by how slow
  // it runs, not by what it has left (the coordinator does not know that).
  // Unset: no job moves.
  std::optional<double> migration_cost_s;
};

// What the simulator tells a learning policy after it starts a pair.
class CoLocationObserver {
 public:
  virtual ~CoLocationObserver() = default;
  virtual void Observe(const policy::JobTraits& a, const policy::JobTraits& b, double a_norm,
                       double b_norm) = 0;
};

struct JobOutcome {
  double start_s = 0;
  double finish_s = 0;
  double solo_s = 0;  // total_steps / solo throughput: its duration alone
  bool shared = false;  // ran next to another job for some of its time
};

struct SimResult {
  std::vector<JobOutcome> jobs;  // in the order of the input jobs
  double busy_gpu_seconds = 0;   // GPU-seconds with at least one job
  // GPU-seconds weighted by occupancy (power_model.h): 1 per GPU with one
  // job or a gang's share, a pair's summed normalised throughputs (at most 1).
  double occupied_gpu_seconds = 0;
  double makespan_s = 0;         // last finish - first arrival
  int64_t pair_starts = 0;       // co-locations the policy made
  int64_t place_calls = 0;       // policy consultations (for profiling)
  int64_t migrations = 0;        // jobs moved (SimConfig::migration_cost_s)
};

// The cluster the simulator builds for `config` (exposed for tests and for
// policies' unit tests).
policy::Cluster MakeCluster(const SimConfig& config);

// Runs `jobs` to completion. Every job's type must have a solo throughput in
// `truth` and fit on one node or on k/g whole nodes of the cluster (a partial
// last node is no whole node; the caller filters and counts the others,
// PrepareJobs).
// `observer` may be null. Errors: invalid input, or a policy decision that
// breaks the rules above, or a policy that leaves a job waiting forever on
// an idle cluster.
// `busy_gang_policy`, with SimConfig::gangs_take_busy_gpus: what places a
// gang instead of Slurm's blind choice, as the coordinator's
// --join-busy-gpus does (job_submit.lua's dry run names the node): asked
// with a whole-GPU request that may join busy GPUs
// (policy::PlacementRequest::join_busy_gpus), the gang's ranks as its
// one-GPU model, over every job placed (a gang's GPUs held whole). Null:
// `policy` chooses among the GPUs no gang holds, blind to one-GPU jobs.
// Neither is asked for a gang wider than a node: Slurm places it (above).
absl::StatusOr<SimResult> Simulate(std::span<const SimJob> jobs, const GavelThroughputs& truth,
                                   const SimConfig& config, const policy::PlacementPolicy& policy,
                                   CoLocationObserver* observer,
                                   const policy::PlacementPolicy* busy_gang_policy = nullptr);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_SIMULATOR_H_
