// The coordinator's logic, without sockets or clocks: messages in, messages
// out, a tick for timers. server.h runs it on ZeroMQ; tests drive it directly.
//
// Shims (DEALER) and tools (DEALER/REQ) talk to one ROUTER, so every message
// comes with the sender's routing id, and every reply goes back to one.
//  - Hello binds a routing id to a job: the job `iashim run` placed (its
//    IASHIM_JOB), or a new unplaced job for a shim started by hand. Every job
//    has a token (job_token.h), minted when it is created: PlaceReply carries
//    it, or an Advice Token answers the Hello that created the job. A Hello
//    naming a known job without its token, or naming a job that another live
//    process holds, is refused (Advice Refused): that process runs unmanaged.
//    Telemetry, kernel names and Goodbye count only for the job bound to the
//    sender's routing id, and budgets go only to that routing id.
//  - TelemetryBatch / KernelNames feed the job's profile (policy/job_profile.h).
//    From an unknown routing id (the coordinator restarted) they get an Advice
//    SendHello, so the shim re-binds within a window.
//  - Goodbye, or silence past the heartbeat timeout, disconnects a job; a job
//    disconnected (or placed and never seen) past forget-after is removed.
//  - PlaceRequest goes through the placement policy (never onto a drained GPU,
//    never under a job id the coordinator knows); StatusRequest gets the state
//    snapshot.
//  - PlaceRequest with dry_run: the same decision, but nothing registered,
//    persisted or minted; one answered "placed" (without a GPU named) leaves
//    a reservation of its GPUs (reservations.h) that later decisions see,
//    until the job's real request on that host takes it over or it expires
//    (--reservation-ttl-s).
//    allowed_gpus limits placement to those GPUs of host; batch ids (a batch
//    system's job/step/task) are kept with the job.
//  - ReleaseRequest (job + its token): the job is over; removed at once.
//  - AdminRequest (drain, undrain, set a job's priority) only from a Sender
//    with admin set; coordinator_admin.cc.
// Every tick runs the per-GPU share controllers (policy/share_controller.h)
// and sends opportunistic jobs their Budgets, refreshed before their TTL.
// Jobs, baselines, observations, budget sequence numbers and controller state
// are written to the state store as they change, and read back at start.
#ifndef IASHIM_COORDINATOR_DAEMON_COORDINATOR_H_
#define IASHIM_COORDINATOR_DAEMON_COORDINATOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/daemon/daemon_options.h"
#include "coordinator/daemon/energy_ledger.h"
#include "coordinator/daemon/event_log.h"
#include "coordinator/daemon/gang_slowdown.h"
#include "coordinator/daemon/job.h"
#include "coordinator/daemon/node_health.h"
#include "coordinator/daemon/place_request.h"
#include "coordinator/daemon/reservations.h"
#include "coordinator/policy/budget_memory.h"
#include "coordinator/policy/cluster.h"
#include "coordinator/policy/interference_model.h"
#include "coordinator/policy/placement.h"
#include "coordinator/policy/request_mix.h"
#include "coordinator/policy/share_controller.h"
#include "coordinator/state/state_store.h"

namespace iashim::wire {
struct AdminRequest;
struct Hello;
struct KernelNames;
struct PlaceRequest;
struct ReleaseRequest;
struct TelemetryBatch;
}  // namespace iashim::wire

namespace iashim::daemon {

// The daemon's times are nanoseconds (a steady clock, and Unix time).
inline constexpr int64_t kSecond = 1'000'000'000;
// An option's seconds as the daemon's nanoseconds.
inline int64_t Ns(double seconds) { return static_cast<int64_t>(seconds * 1e9); }

// How long a released job's name is held against a Hello (released_ns_):
// longer than Slurm's KillWait (30 s by default), after which a job's
// processes are killed.
inline constexpr int64_t kReleasedHoldNs = 60 * kSecond;

// The kind of a job whose model is not known yet (no --kind, no stable
// fingerprint): predicted from what is known of all jobs, never learned.
inline constexpr std::string_view kUnknownKind = "unknown";

// Who sent a message: the ROUTER routing id, and whether the connection
// authenticated with an admin key (server.cc's ZAP handler says so). Only an
// admin may take write actions (AdminRequest).
struct Sender {
  std::string_view identity;
  bool admin = false;
};

struct Outgoing {
  std::string identity;  // ROUTER routing id
  std::string bytes;     // one Envelope
};

struct CoordinatorCounters {
  uint64_t messages = 0;
  uint64_t invalid = 0;       // failed verification or unknown payload
  uint64_t wrong_version = 0;
  uint64_t unexpected = 0;    // a valid message a coordinator does not take (e.g. a Budget)
  uint64_t refused_claims = 0;  // Hellos refused, for any reason
  uint64_t refused_tokens = 0;  // of those: a known job's id without its token; and
                                // ReleaseRequests refused for the same reason
  uint64_t admin_refused = 0;   // AdminRequests from a sender without the admin key
  uint64_t admin_actions = 0;   // AdminRequests applied
  uint64_t unbound_telemetry = 0;
  uint64_t telemetry_batches = 0;
  uint64_t budgets_sent = 0;
  uint64_t placements = 0;
  uint64_t dry_runs = 0;          // PlaceRequests with dry_run answered (not placements)
  uint64_t releases = 0;          // ReleaseRequests that removed their job
  uint64_t release_unknown = 0;   // ReleaseRequests for a job not known (already gone)
  uint64_t release_refused = 0;   // ReleaseRequests with a missing or wrong token
  uint64_t state_errors = 0;
  // Solo probes (coordinator_probe.cc), by how they ended.
  uint64_t probes_started = 0;
  uint64_t probes_measured = 0;
  uint64_t probes_timed_out = 0;
  uint64_t probes_aborted = 0;
  uint64_t probes_cpu_contended = 0;  // measured while the host kept the job waiting for a CPU
};

// A job to move to a GPU that emptied (--move-command; coordinator_move.cc):
// the batch system is asked to requeue it on `to`'s host, where its GPU is
// held for it (a reservation) until its request comes.
struct JobMove {
  std::string job;
  BatchIds batch;
  policy::GpuId from;
  policy::GpuId to;
};

// What a StatusRequest may ask for beyond the state (iashim status).
struct SnapshotExtras {
  bool pairs = false;     // what the interference model has learned (--pairs)
  bool events = false;    // the recent events (--events)
  std::string events_of;  // with events: only those concerning this job ("" = all)
};

class Coordinator {
 public:
  // `store` may be null (no persistence, tests). Restores jobs, and the
  // interference model from the recorded observations. `placement` null:
  // InterferenceAwarePlacement over the coordinator's own interference model.
  Coordinator(DaemonOptions options, policy::Cluster cluster, state::StateStore* store,
              std::unique_ptr<policy::PlacementPolicy> placement, int64_t now_ns);

  // One message from `from`; replies and budgets are appended to `out`.
  void OnMessage(const Sender& from, std::span<const uint8_t> bytes, int64_t now_ns,
                 int64_t unix_ns, std::vector<Outgoing>* out);
  // The same from a sender without the admin key.
  void OnMessage(std::string_view identity, std::span<const uint8_t> bytes, int64_t now_ns,
                 int64_t unix_ns, std::vector<Outgoing>* out) {
    OnMessage(Sender{identity, false}, bytes, now_ns, unix_ns, out);
  }
  // Timers: heartbeats, the control loop, budget refreshes, persistence.
  void OnTick(int64_t now_ns, int64_t unix_ns, std::vector<Outgoing>* out);

  // A StateSnapshot Envelope (the PUB stream and StatusRequest replies).
  std::string EncodeSnapshot(int64_t now_ns, int64_t unix_ns, const SnapshotExtras& extras = {});
  // The Prometheus exposition of the same state and the counters.
  std::string MetricsText(int64_t now_ns) const;

  const std::map<std::string, Job>& jobs() const { return jobs_; }
  // For a guaranteed gang the batch system put beside guaranteed one-GPU
  // jobs (policy::PlacementDecision::beside_guaranteed), those jobs, not
  // lost; empty for any other job. Two targets cannot both be held: neither
  // is held for the other, each loop holds only the opportunistic jobs
  // there; status names them, so the user sees why its target may not hold.
  std::vector<std::string> GuaranteedBeside(const Job& job) const;
  const CoordinatorCounters& counters() const { return counters_; }
  // The decisions made since the last call, oldest first (event_log.h): the
  // server writes them to the daemon's log, at `unix_ns`, the time status
  // shows them with.
  std::vector<std::string> TakeEvents(int64_t unix_ns) { return events_.Take(unix_ns); }
  // The moves decided since the last call, for the server to carry out.
  std::vector<JobMove> TakeMoves() { return std::exchange(moves_, {}); }
  const policy::Cluster& cluster() const { return cluster_; }
  const policy::InterferenceModel& interference() const { return interference_; }
  bool drained(const policy::GpuId& gpu) const { return drained_.contains(gpu); }
  const Reservations& reservations() const { return reservations_; }

 private:
  // One handler per payload; OnMessage has verified the Envelope, so each
  // payload's table is there (wire::OpenEnvelope).
  void OnHello(std::string_view identity, const wire::Hello& hello, int64_t now_ns,
               int64_t unix_ns, std::vector<Outgoing>* out);
  void OnTelemetry(std::string_view identity, const wire::TelemetryBatch& batch, int64_t now_ns,
                   std::vector<Outgoing>* out);
  void OnKernelNames(std::string_view identity, const wire::KernelNames& names);
  void OnGoodbye(std::string_view identity);
  // coordinator_place.cc (but NewJob): placement requests and releases.
  // Read (ReadPlaceRequest, ResolvePlacement), decide (DecidePlacement),
  // apply (NewJob, Persist) and answer (EncodePlaceReply).
  void OnPlace(std::string_view identity, const wire::PlaceRequest& request, int64_t now_ns,
               int64_t unix_ns, std::vector<Outgoing>* out);
  absl::StatusOr<policy::PlacementRequest> ResolvePlacement(const PlaceAsk& ask, int64_t unix_ns);
  // Counts a job's first request in the mix and returns the queue's demand
  // without it (ClusterState::queued_gpus); a dry run only reads.
  double NoteRequest(const policy::PlacementRequest& p, bool dry_run, int64_t now_ns);
  // `without_reservations_on`: a host whose reservations are left out of the
  // view (empty: every reservation counts). `left_out_hosts`: hosts whose GPUs
  // the decision may not use (a dry run's lost nodes, node_health.h). A
  // request the coordinator places (no allowed_gpus) never gets GPUs another
  // job waits on (ClaimedGpus).
  policy::PlacementDecision DecidePlacement(const policy::PlacementRequest& p,
                                            const std::set<int>& allowed_gpus, double queued_gpus,
                                            int64_t now_ns,
                                            const std::string& without_reservations_on = "",
                                            const std::vector<std::string>& left_out_hosts = {});
  // The lost hosts a dry run of `p` may not be told to go to: all of them when
  // it names no host or GPU (job_submit.lua's), none when it asks about one.
  std::vector<std::string> HostsADryRunAvoids(const policy::PlacementRequest& p) const;
  // The hosts where Slurm, counting each node's guaranteed GRES (PlaceAsk::
  // guaranteed_gres, policy::AsksGuaranteedGres), would not start `p`: its
  // guaranteed jobs and gangs, and reservations held for such, use too many of
  // the GPUs `p` needs there. None for a job that asks for none, or one that
  // names its host or GPU.
  std::vector<std::string> HostsWithoutGuaranteedGpusFor(const policy::PlacementRequest& p) const;
  // A real request queued on its host while reservations hold GPUs there:
  // decided again without them, and placed if that places it (reservations.h).
  policy::PlacementDecision TakeReservedGpus(const PlaceAsk& ask, const policy::PlacementRequest& p,
                                             double queued_gpus, int64_t now_ns,
                                             policy::PlacementDecision queued);
  // The host a request is for: its GPU's or its own, the only one on a
  // one-node cluster; empty for anywhere.
  std::string RequestHost(const policy::PlacementRequest& p) const;
  // A placed decision's GPU indexes on its node, in rank order.
  static std::vector<int> GpuIndexes(const policy::PlacementDecision& d);
  // A real request takes over the oldest reservation of its shape on its host
  // (a dry run's for the same job, most likely), before it is decided.
  void ConsumeReservation(const PlaceAsk& ask, const policy::PlacementRequest& p, int64_t now_ns);
  // A dry run answered "placed": its GPUs are held for the job that asked.
  void Reserve(const PlaceAsk& ask, const policy::PlacementRequest& p,
               const policy::PlacementDecision& d, int64_t now_ns);
  struct PlaceReplyFields {
    bool ok = false;
    bool queued = false;
    bool dry_run = false;
    std::string error;         // or the placement's reason
    const Job* job = nullptr;  // placed (or, for a dry run, where it would go)
    // The memory quota the shim gets, when not the job's mem_bytes: whole
    // GPUs joined while busy (JoinedGpusQuota).
    std::optional<uint64_t> mem_limit_bytes;
    // Queued dry run of a job wider than a node: the nodes it would take
    // later (PlacementDecision::preferred).
    std::vector<std::string> prefer_hosts;
  };
  // The memory a whole-GPU job placed beside other jobs may use
  // (PlacementRequest::join_busy_gpus): the least any of its GPUs has free
  // beside them; 0 (no quota) when all are empty or their memory is unknown.
  uint64_t JoinedGpusQuota(const policy::PlacementDecision& d) const;
  // Whether the batch system gave the job exactly its GPUs (allowed_gpus
  // names gpu_count GPUs of its host).
  bool GivenExactly(const PlaceAsk& ask, const policy::PlacementRequest& p) const;
  // The host where another part of `batch`'s step already runs (a job placed
  // with the same system, job and step on a host other than `host`); empty:
  // none, or no batch system (PlacementRequest::step_runs_on).
  std::string StepRunsOn(const BatchIds& batch, const std::string& host) const;
  std::string EncodePlaceReply(const PlaceReplyFields& reply) const;
  void OnRelease(std::string_view identity, const wire::ReleaseRequest& request, int64_t now_ns,
                 std::vector<Outgoing>* out);
  // Every Job starts here: a placement, a Hello no one placed, the state store.
  Job NewJob(std::string id, std::string token, policy::Priority priority, int64_t now_ns,
             int64_t unix_ns) const;
  // coordinator_admin.cc
  void OnAdmin(const Sender& from, const wire::AdminRequest& request, std::vector<Outgoing>* out);
  std::string SetDrained(const std::vector<policy::GpuId>& gpus, bool drained);
  std::string SetPriority(Job& job, policy::Priority priority);
  void RestoreDrained();

  Job* BoundJob(std::string_view identity);
  // coordinator_gang.cc: a gang's processes, one per rank.
  // A Hello for a gang job whose token checked out: binds the process to a
  // rank (Hello.rank, or the lowest rank no live process holds), or refuses it.
  void HelloFromRank(std::string_view identity, Job& job, int pid, const std::string& host,
                     const wire::Hello& hello, int64_t now_ns, std::vector<Outgoing>* out);
  // The rank `identity` is bound to in `job`; -1 when none.
  static int RankOf(const Job& job, std::string_view identity);
  // One rank's process is gone (Goodbye, silence); the job is disconnected
  // when it was the last.
  void DisconnectRank(Job& job, int rank);
  void DisconnectSilentRanks(Job& job, int64_t now_ns);
  // A gang's window from a process that drove several of its GPUs: each
  // device's part is the rank of that GPU's (device d is the gang's GPU d,
  // as CUDA_VISIBLE_DEVICES lists them), held by the same process.
  void FoldDeviceWindows(Job& job, const RankProcess& process, const wire::TelemetryBatch& batch,
                         const std::vector<int>& devices, bool solo, policy::BaselineSource origin,
                         int64_t now_ns);
  // The process behind `identity` is no more `job`'s (it said Hello for
  // another job, or another rank).
  void DisconnectProcess(Job& job, std::string_view identity);
  void Disconnect(Job& job);
  // By value: callers pass the job's own id, which the erase frees.
  void Remove(std::string id);
  // Whether no other connected job is on any of `job`'s GPUs.
  bool AloneOnGpu(const Job& job) const;
  // Connected processes on `gpu` (connected_on_gpu_; 0 when none).
  int ConnectedOn(const policy::GpuId& gpu) const;
  std::string NewJobId(std::string_view command, int64_t unix_ns);
  std::optional<policy::GpuId> SoleGpuOf(const std::string& host) const;
  // coordinator_place.cc: the cluster as the placement policy sees it.
  policy::ClusterState PlacementView(const std::string& without_reservations_on = "") const;
  double InitialShare(const Job& job) const;
  // The highest share, the same for each, at which the model, or what the
  // control loop found on pairs it held (budget_memory_), expects
  // `guaranteed` to keep the loop's target (LoopTargetOf) next to all of
  // `co_runners` (1 when no harm past it is expected).
  double ProtectiveShare(const Job& guaranteed, std::span<const Job* const> co_runners) const;
  // The GPU time `co_runner` (`traits`: Traits(co_runner)) takes, per
  // second, at full share beside a job like `guaranteed`: what its budget is
  // a share of. A budget b leaves it b / this of its unthrottled pace, and
  // the guaranteed job that fraction of the harm (policy/protective_share.h,
  // BudgetForPace).
  double FullPaceGpuTime(const Job& co_runner, const policy::JobTraits& traits,
                         const policy::JobTraits& guaranteed) const;
  // The job's slowdown target, --slowdown-target for one that has none.
  double TargetOf(const Job& job) const {
    return job.slowdown_target > 0 ? job.slowdown_target : options_.slowdown_target;
  }
  // What the control loop holds a guaranteed job to: its target, lowered
  // while its run is over the aim (policy/run_slowdown.h; --no-run-target:
  // the target).
  double LoopTargetOf(const Job& job) const {
    return options_.run_target ? job.run.LoopTarget(TargetOf(job)) : TargetOf(job);
  }
  // LoopTargetOf a job the loop holds as a guaranteed one; -1 (the status's
  // and /metrics' unknown) for any other.
  double LoopTargetOrUnknown(const Job& job) const {
    return job.priority == policy::Priority::kGuaranteed ? LoopTargetOf(job) : -1.0;
  }
  // `opportunistic`'s share in force, capped at ProtectiveShare for each
  // guaranteed job in `on_gpu` (the jobs on one GPU) it has not been capped
  // for yet (recorded), beside every opportunistic job in `on_gpu`.
  double CapForNewGuaranteed(Job& opportunistic, const std::vector<Job*>& on_gpu);
  // A guaranteed job just placed: its running opportunistic co-runners are
  // cut now (CapForNewGuaranteed), before its process starts, not on the
  // first control tick after it connects.
  void CapCoRunnersOfPlaced(Job& guaranteed, int64_t now_ns, int64_t unix_ns,
                            std::vector<Outgoing>* out);

  // The connected jobs on each GPU, a gang on each of its GPUs.
  std::map<policy::GpuId, std::vector<Job*>> ConnectedJobsByGpu();
  // Those, and the guaranteed jobs placed whose processes have not said Hello
  // yet: what the control loop protects.
  std::map<policy::GpuId, std::vector<Job*>> ControlledJobsByGpu();
  void RunControl(int64_t now_ns, int64_t unix_ns, std::vector<Outgoing>* out);
  // coordinator_move.cc: GPUs empty for --move-after-empty-s take the
  // slowest one-GPU opportunistic batch job sharing a GPU (moves_).
  void PlanMoves(int64_t now_ns);
  // How much of its solo speed `job` keeps where it runs: measured, else at
  // most its share and its turn among the jobs on its GPU.
  double KeptFraction(const Job& job) const;
  // Whether `job` may be moved: a connected one-GPU opportunistic job of a
  // Slurm batch script that said it resumes from a checkpoint (movable),
  // sharing its GPU with a connected job.
  bool Movable(const Job& job) const;
  // Splits each GPU's energy since the last control tick among its jobs.
  void AttributeEnergy(int64_t now_ns);
  // The job's recent power times its recent iteration time.
  std::optional<double> JoulesPerIteration(const Job& job) const;
  // ttl_s 0: --budget-ttl-s.
  void SendBudget(Job& job, double share, int64_t now_ns, int64_t unix_ns,
                  std::vector<Outgoing>* out, double ttl_s = 0);
  // coordinator_probe.cc: solo probes of guaranteed jobs that never ran alone.
  // Active probes step every tick; `may_start`: new ones may begin (control ticks).
  void RunProbes(int64_t now_ns, int64_t unix_ns, bool may_start, std::vector<Outgoing>* out);
  // Holds `corunners` at the probe's share, with budgets lapsing after ttl_s.
  void HoldCoRunners(const std::vector<Job*>& corunners, double ttl_s, int64_t now_ns,
                     int64_t unix_ns, std::vector<Outgoing>* out);
  void CountProbeEvent(policy::SoloProbeEvent event);
  // A shim on `host` was heard: the node is alive (an event if it was lost).
  void NodeHeard(const std::string& host, int64_t now_ns);
  // Lines in the event log for a placement decision (not for dry runs).
  void LogPlaced(const Job& placed, const policy::PlacementRequest& p,
                 const policy::PlacementDecision& d);
  void LogNotPlaced(const policy::PlacementRequest& p, const policy::PlacementDecision& d,
                    bool already_waiting);
  // By how much the co-runners of `probed`, whose probe just measured its
  // baseline, are released below their shares before the hold: 1 unless the
  // job ran over its loop's target beside them before it.
  double ReleaseFactor(const Job& probed) const;
  // A line in the event log for a probe's step (nothing for kNone).
  void LogProbeEvent(const Job& probed, policy::SoloProbeEvent event, size_t corunners,
                     double release_factor);
  // Whether a probe holds the co-runners among a GPU's connected jobs: the
  // control loop leaves that GPU alone meanwhile.
  static bool ProbeHolds(const std::vector<Job*>& connected_on_gpu);
  void LearnBaselines();
  void RecordObservations(int64_t unix_ns);
  // What the interference model knows `job` as.
  policy::JobTraits Traits(const Job& job) const;
  // Keeps each kind's latest measured features (busy, kernel mix), so that a
  // new job of a kind seen before, and the observations of its pairs, carry
  // them: what lets the model predict pairs never seen together.
  void RememberKindTraits();
  // A kind with its remembered features (NaN where none).
  policy::JobTraits KindTraits(const std::string& kind) const;
  // Teaches the model one observation, if it says what sharing alone costs
  // (both jobs unthrottled, kinds known).
  void LearnInterference(const state::ObservationRecord& o);
  // Remembers, for each GPU where one guaranteed job shares with one
  // throttled opportunistic job whose share has not changed for a while,
  // what that share cost the guaranteed job (policy/budget_memory.h).
  void LearnBudgets(int64_t now_ns);

  void Persist(const Job& job);
  void Check(const absl::Status& status);
  void Restore(int64_t now_ns);

  DaemonOptions options_;
  GangBudgets gang_budgets_;  // options_.gang_budgets, parsed
  policy::Cluster cluster_;
  state::StateStore* store_;
  policy::InterferenceModel interference_;  // before placement_, which may point at it
  policy::BudgetMemory budget_memory_;      // first budgets from the loop's settled shares
  EnergyLedger energy_;
  NodeHealth nodes_;  // which nodes' shims are still heard
  policy::RequestMix request_mix_;          // likewise: every job's first request
  // Jobs queued and still asking (a queued `iashim run` asks again): their
  // GPUs' worth of capacity and when they last asked; one silent for
  // forget_after_s is dropped.
  struct Waiting {
    double gpus = 0;
    int64_t asked_ns = 0;
    // GPUs the batch system gave it (GivenExactly), joined while busy:
    // while it asks, no other job is placed or reserved there (ClaimedGpus).
    std::vector<policy::GpuId> given;
  };
  // GPUs of jobs waiting on what the batch system gave them, asked for
  // within the last 10 s, except `job`'s own.
  std::set<policy::GpuId> ClaimedGpus(const std::string& job, int64_t now_ns) const;
  std::map<std::string, Waiting> waiting_;
  std::unique_ptr<policy::PlacementPolicy> placement_;
  std::map<std::string, Job> jobs_;
  std::map<std::string, policy::JobTraits> kind_traits_;  // RememberKindTraits
  // Each kind's busy fraction alone (JobProfile::solo_busy), for a job not
  // yet measured alone: FullPaceGpuTime.
  std::map<std::string, double> kind_solo_busy_;
  std::map<std::string, std::string> identity_to_job_;
  std::map<std::string, int64_t> hello_asked_ns_;  // rate limit for SendHello advice
  std::map<policy::GpuId, policy::ShareController> controllers_;
  // The control loop's last decision on each GPU it ran on at the last tick
  // (GpuState.loop in the snapshot: why a share is where it is).
  struct LoopDecision {
    std::string action;
    std::optional<double> worst_ratio;
    double calm_below = -1;
    double aim = -1;
  };
  std::map<policy::GpuId, LoopDecision> loop_decisions_;
  // GPUs where the loop held every opportunistic job at its least share
  // beside a guaranteed job at its last step there (a GPU a probe holds
  // keeps its mark): placement gives them no more co-runners
  // (ClusterState::co_runners_at_floor).
  std::set<policy::GpuId> co_runners_at_floor_;
  // Connected jobs per GPU, kept with `connected`: AloneOnGpu runs on every
  // telemetry batch and must not walk all jobs (bench/load/README.md).
  std::map<policy::GpuId, int> connected_on_gpu_;
  std::set<policy::GpuId> drained_;  // placement skips them; persisted as kv "drained/HOST:INDEX"
  Reservations reservations_;        // placed dry runs' GPUs, held; not persisted
  // Moving jobs: when each GPU with no job was first seen so, and the moves
  // decided and not yet taken (TakeMoves).
  std::map<policy::GpuId, int64_t> empty_since_ns_;
  std::vector<JobMove> moves_;
  std::map<std::string, int64_t> moved_ns_;  // job -> when it was last asked to move
  // Jobs released (ReleaseRequest) in the last kReleasedHoldNs: a Hello
  // naming one is refused, since it can only come from the job's process
  // still ending (Slurm's SIGTERM grace, a requeue) and would take the name
  // its batch system's next start asks for. A PlaceRequest under the name
  // ends the hold.
  std::map<std::string, int64_t> released_ns_;
  CoordinatorCounters counters_;
  EventLog events_;
  uint64_t budget_seq_ = 0;
  uint64_t snapshot_seq_ = 0;
  uint64_t id_counter_ = 0;
  int64_t started_ns_;
  int64_t next_control_ns_ = 0;
  int64_t next_observation_ns_ = 0;
};

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_COORDINATOR_H_
