// The coordinator's StateSnapshot as plain C++ values. iashim-top decodes each
// snapshot it keeps once, here, so the layout and the screen never touch
// FlatBuffers (and can be tested with hand-made values).
#ifndef IASHIM_COORDINATOR_TOP_SNAPSHOT_VIEW_H_
#define IASHIM_COORDINATOR_TOP_SNAPSHOT_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/text/priority.h"

namespace iashim::wire {
struct StateSnapshot;
}  // namespace iashim::wire

namespace iashim::top {

using ::iashim::Priority;  // common/text/priority.h

// Where a job is in its life, as far as the snapshot tells: the coordinator
// keeps a job from its placement until its process says goodbye, or until it
// has been silent for --forget-after-s.
enum class JobState {
  kConnected,     // its shim reports
  kDisconnected,  // its shim stopped reporting (killed, crashed): the row is its last state
  kLost,          // fell silent without a Goodbye, its node with it or not (node_health.h)
  kPlaced,        // placed (iashim run/place), its process not seen yet
};

// One process under the shim, as in wire::JobState (see schemas/control.fbs
// for the meaning and units of each field).
struct JobView {
  std::string job;
  int pid = 0;
  std::string host;
  std::string command;
  Priority priority = Priority::kGuaranteed;
  // A guaranteed gang sharing a GPU with guaranteed jobs, neither held for
  // the other (JobState.beside_guaranteed).
  bool beside_guaranteed = false;
  double share = 1.0;
  uint32_t max_inflight = 0;
  double slowdown = -1;  // < 0: unknown
  double slowdown_target = 0;
  double run_slowdown = -1;  // a guaranteed job's whole run so far; < 0: unknown
  double kernels_per_s = 0;
  double busy = 0;
  uint64_t iteration_ns = 0;
  uint64_t baseline_iteration_ns = 0;
  std::string baseline;  // its source: "alone", "probe", "saved"; empty: none yet
  bool probing = false;  // a solo probe holds its co-runners now
  uint64_t mem_bytes = 0;
  uint64_t mem_limit_bytes = 0;  // 0: none
  uint64_t budget_age_ms = 0;    // 0: no budget sent
  double held_launches_per_s = 0;
  double energy_j = -1;                // its GPU's energy attributed to it; < 0: unknown
  double energy_per_iteration_j = -1;  // < 0: unknown
  bool connected = false;
  bool lost = false;  // silent without a Goodbye (the coordinator's JobState.lost)
  // A gang (a job on several GPUs, listed once, under its first): its GPU
  // indexes in rank order, its processes and its slowest one's iteration
  // time (the gang's speed). Empty, 0, 0 for a one-GPU job.
  std::vector<int> gpus;
  int ranks = 0;
  uint64_t slowest_rank_iteration_ns = 0;

  // Never-seen jobs have no pid: only a shim's Hello gives one.
  JobState State() const {
    if (connected) return JobState::kConnected;
    if (lost) return JobState::kLost;
    return pid == 0 ? JobState::kPlaced : JobState::kDisconnected;
  }

  // A guaranteed job running slower than its target allows: what an
  // operator watching the screen wants to spot first.
  bool OverTarget() const {
    return priority == Priority::kGuaranteed && slowdown_target > 0 && slowdown > slowdown_target;
  }
};

// A placement a dry run made (job_submit.lua asks at submission), held for
// its job until the job asks for real or the hold expires: why a GPU that
// looks free takes no other job.
struct ReservationView {
  Priority priority = Priority::kOpportunistic;
  std::string kind;        // the job's kind; empty: not said
  uint64_t mem_bytes = 0;  // 0: the whole GPU
  std::vector<int> gpus;   // on its host, in rank order; more than one: a gang
  double expires_in_s = 0;
};

// The control loop's last decision on a GPU (iashim status's `loop:` line):
// why its opportunistic jobs' shares are where they are.
struct LoopView {
  std::string action;        // "raise", "hold: calming", ...
  double worst_ratio = -1;   // worst guaranteed slowdown / its loop target; < 0: unknown
  double calm_below = -1;    // raises after a calm run under this; < 0: not said
  double aim = -1;           // where a raise aims; < 0: not said
};

struct GpuView {
  int id = 0;
  std::string host;
  std::string name;
  std::string uuid;
  uint64_t memory_bytes = 0;
  double busy = 0;
  bool drained = false;  // placement puts no new job here (iashim drain)
  double power_w = -1;   // board power; < 0: unknown
  double node_lost_s = -1;  // since its node was last heard, when lost; < 0: not lost
  std::vector<JobView> jobs;
  // Not from the coordinator: jobs iashim-top left out as ended (ended_jobs.h).
  int hidden_ended = 0;
  // Gangs listed under another GPU that also run here, as "JOB (on HOST:ID)".
  std::vector<std::string> gangs_listed_elsewhere;
  // Dry runs' placements that hold this GPU (each gang's on every GPU of it).
  std::vector<ReservationView> reservations;
  // Where the control loop runs (an opportunistic job here).
  std::optional<LoopView> loop;

  // The snapshot carries no per-GPU used memory: it is what its jobs hold.
  uint64_t MemUsed() const;

  // `job`'s part of this GPU's busy time, 0-1: its own busy fraction scaled
  // so that the jobs of the GPU add up to `busy`. Each job's fraction is a
  // sampled estimate of wall time its kernels run; overlapping jobs can sum
  // past 1 while the GPU's figure is capped at 1, so unscaled figures would
  // not add up to the GPU line's.
  double BusyShare(const JobView& job) const;
};

struct ClusterView {
  uint64_t seq = 0;
  uint64_t unix_ns = 0;
  std::string coordinator_version;
  double uptime_s = 0;
  std::vector<GpuView> gpus;
  uint64_t invalid_messages = 0;  // counted by the coordinator, not by us
};

// Copies a snapshot that has already been through the Verifier. Absent
// strings and vectors read as empty.
ClusterView FromSnapshot(const wire::StateSnapshot& snapshot);

// Why a received message was or was not a snapshot.
enum class DecodeStatus {
  kOk,
  kInvalid,       // failed the FlatBuffers Verifier
  kWrongVersion,  // an Envelope version we do not speak
  kNotSnapshot,   // a valid Envelope carrying another payload
};

// Verifies and classifies `size` bytes without decoding them.
DecodeStatus ClassifyMessage(const void* data, size_t size);

// Verifies `size` bytes as an Envelope and, when it holds a StateSnapshot of
// our version, decodes it into `*out`. Any alignment of `data` is accepted
// (FlatBuffers needs aligned words, ZeroMQ gives none: a misaligned buffer is
// copied first). `*out` is left untouched unless the result is kOk.
DecodeStatus DecodeMessage(const void* data, size_t size, ClusterView* out);

}  // namespace iashim::top

#endif  // IASHIM_COORDINATOR_TOP_SNAPSHOT_VIEW_H_
