// The coordinator's logic, without sockets or clocks: messages in, messages
// out, a tick for timers. server.h runs it on ZeroMQ; tests drive it directly.
//
// Shims (DEALER) and tools (DEALER/REQ) talk to one ROUTER, so every message
// comes with the sender's routing id, and every reply goes back to one.
//  - Hello binds a routing id to a job: the job `iashim run` placed (its
//    IASHIM_JOB), or a new unplaced job for a shim started by hand. A Hello
//    naming a job that another live process holds is refused (Advice Refused).
//  - TelemetryBatch / KernelNames feed the job's profile (policy/job_profile.h).
//    From an unknown routing id (the coordinator restarted) they get an Advice
//    SendHello, so the shim re-binds within a window.
//  - Goodbye, or silence past the heartbeat timeout, disconnects a job; a job
//    disconnected (or placed and never seen) past forget-after is removed.
//  - PlaceRequest goes through the placement policy; StatusRequest gets the
//    state snapshot.
// Every tick runs the per-GPU share controllers (policy/share_controller.h)
// and sends opportunistic jobs their Budgets, refreshed before their TTL.
// Jobs, baselines, observations, budget sequence numbers and controller state
// are written to the state store as they change, and read back at start.
#ifndef IASHIM_COORDINATOR_DAEMON_COORDINATOR_H_
#define IASHIM_COORDINATOR_DAEMON_COORDINATOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/daemon_options.h"
#include "daemon/job.h"
#include "policy/cluster.h"
#include "policy/interference_model.h"
#include "policy/placement.h"
#include "policy/share_controller.h"
#include "state/state_store.h"

namespace iashim::daemon {

// The kind of a job whose model is not known yet (no --kind, no stable
// fingerprint): predicted from what is known of all jobs, never learned.
inline constexpr std::string_view kUnknownKind = "unknown";

struct Outgoing {
  std::string identity;  // ROUTER routing id
  std::string bytes;     // one Envelope
};

struct CoordinatorCounters {
  uint64_t messages = 0;
  uint64_t invalid = 0;       // failed verification or unknown payload
  uint64_t wrong_version = 0;
  uint64_t unexpected = 0;    // a valid message a coordinator does not take (e.g. a Budget)
  uint64_t refused_claims = 0;
  uint64_t unbound_telemetry = 0;
  uint64_t telemetry_batches = 0;
  uint64_t budgets_sent = 0;
  uint64_t placements = 0;
  uint64_t state_errors = 0;
};

class Coordinator {
 public:
  // `store` may be null (no persistence, tests). Restores jobs, and the
  // interference model from the recorded observations. `placement` null:
  // InterferenceAwarePlacement over the coordinator's own interference model.
  Coordinator(DaemonOptions options, policy::Cluster cluster, state::StateStore* store,
              std::unique_ptr<policy::PlacementPolicy> placement, int64_t now_ns);

  // One message from `identity`; replies and budgets are appended to `out`.
  void OnMessage(std::string_view identity, std::span<const uint8_t> bytes, int64_t now_ns,
                 int64_t unix_ns, std::vector<Outgoing>* out);
  // Timers: heartbeats, the control loop, budget refreshes, persistence.
  void OnTick(int64_t now_ns, int64_t unix_ns, std::vector<Outgoing>* out);

  // A StateSnapshot Envelope (the PUB stream and StatusRequest replies).
  std::string EncodeSnapshot(int64_t now_ns, int64_t unix_ns);
  // The Prometheus exposition of the same state and the counters.
  std::string MetricsText(int64_t now_ns) const;

  const std::map<std::string, Job>& jobs() const { return jobs_; }
  const CoordinatorCounters& counters() const { return counters_; }
  const policy::Cluster& cluster() const { return cluster_; }
  const policy::InterferenceModel& interference() const { return interference_; }

 private:
  void OnHello(std::string_view identity, const void* hello, int64_t now_ns, int64_t unix_ns,
               std::vector<Outgoing>* out);
  void OnTelemetry(std::string_view identity, const void* batch, int64_t now_ns,
                   std::vector<Outgoing>* out);
  void OnKernelNames(std::string_view identity, const void* names);
  void OnGoodbye(std::string_view identity);
  void OnPlace(std::string_view identity, const void* request, int64_t now_ns, int64_t unix_ns,
               std::vector<Outgoing>* out);

  Job* BoundJob(std::string_view identity);
  void Disconnect(Job& job);
  void Remove(const std::string& id);
  bool AloneOnGpu(const Job& job) const;
  std::string NewJobId(std::string_view command, int64_t unix_ns);
  std::optional<policy::GpuId> SoleGpuOf(const std::string& host) const;
  policy::ClusterState PlacementView() const;
  double InitialShare(const Job& job) const;

  void RunControl(int64_t now_ns, int64_t unix_ns, std::vector<Outgoing>* out);
  void SendBudget(Job& job, double share, int64_t now_ns, int64_t unix_ns,
                  std::vector<Outgoing>* out);
  void LearnBaselines();
  void RecordObservations(int64_t unix_ns);
  // What the interference model knows `job` as.
  policy::JobTraits Traits(const Job& job) const;
  // Teaches the model one observation, if it says what sharing alone costs
  // (both jobs unthrottled, kinds known).
  void LearnInterference(const state::ObservationRecord& o);

  void Persist(const Job& job);
  void Check(const absl::Status& status);
  void Restore(int64_t now_ns);

  DaemonOptions options_;
  policy::Cluster cluster_;
  state::StateStore* store_;
  policy::InterferenceModel interference_;  // before placement_, which may point at it
  std::unique_ptr<policy::PlacementPolicy> placement_;
  std::map<std::string, Job> jobs_;
  std::map<std::string, std::string> identity_to_job_;
  std::map<std::string, int64_t> hello_asked_ns_;  // rate limit for SendHello advice
  std::map<policy::GpuId, policy::ShareController> controllers_;
  CoordinatorCounters counters_;
  uint64_t budget_seq_ = 0;
  uint64_t snapshot_seq_ = 0;
  uint64_t id_counter_ = 0;
  int64_t started_ns_;
  int64_t next_control_ns_ = 0;
  int64_t next_observation_ns_ = 0;
};

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_COORDINATOR_H_
