// The test side of the coordinator's wire: the messages its peers (shims, the
// command line, the Slurm plugin, admin tools) send it, built with one builder
// per payload type, and its replies opened as those peers open them. Shared by
// the tests that drive daemon::Coordinator directly, the coordinator_message
// fuzzer and the fuzzers' seed corpus, so that a schema change is made here
// once.
//
//   std::vector<Outgoing> out;
//   c->OnMessage("cli", Bytes(Place({.job = "guard"})), kSecond, kUnix, &out);
//   const PlaceResult placed = LastPlaceReply(out);
//   c->OnMessage("shim-g", Bytes(Hello({.pid = 100, .job = "guard", .token = placed.token})),
//                kSecond, kUnix, &out);
//
// Each builder takes a spec whose defaults are the values most tests send: a
// field a test does not name is sent with its default. The strings a peer may
// leave out (a Hello's token, a PlaceRequest's command and kind) are left out
// when empty.
#ifndef IASHIM_TESTS_COORDINATOR_DAEMON_DAEMON_MESSAGES_H_
#define IASHIM_TESTS_COORDINATOR_DAEMON_DAEMON_MESSAGES_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/job.h"
#include "coordinator/policy/cluster.h"
#include "schemas/telemetry_generated.h"

namespace iashim::daemon::testing {

// Clocks as Coordinator::OnMessage and OnTick take them: monotonic time from
// 0, and a fixed wall clock, so that what a test sees never depends on today.
inline constexpr int64_t kSecond = 1'000'000'000;
inline constexpr int64_t kUnix = 1'800'000'000LL * kSecond;
// One telemetry window (Hello.window_ms): the step of the tests' clocks.
inline constexpr int64_t kTick = 100'000'000;

// A message as Coordinator::OnMessage takes it.
std::span<const uint8_t> Bytes(const std::string& message);

// `count` 32 GiB V100s on node1, indexes 0.. and uuids GPU-1...
policy::Cluster Gpus(int count);
// Gpus(2) and one more V100 on node2 (GPU-3): placement across nodes.
policy::Cluster TwoNodes();

// Shim -> coordinator. A job the coordinator placed, or one it gave a token
// to, must be named with its token.
struct HelloSpec {
  int pid = 0;
  std::string host = "node1";
  std::string job;
  std::string command = "train.py";
  uint64_t mem_limit_bytes = 0;
  uint64_t start_unix_ns = 0;
  uint64_t start_monotonic_ns = 0;
  wire::Priority priority = wire::Priority::Guaranteed;
  std::string token;  // empty: left out
  int rank = -1;      // a gang's rank; -1 (left out): not said
};
std::string Hello(const HelloSpec& spec);

// One 100 ms telemetry window holding one iteration of `iteration_ms`, run
// under `share` (the budget in force), of one `kernel_ms` kernel launched 100
// times (1 ms: the GPU busy the whole window).
struct TelemetrySpec {
  uint64_t seq = 0;
  int64_t start_ns = 0;
  double iteration_ms = 100;
  double share = 1.0;
  double kernel_ms = 1.0;
  double gpu_energy_j = -1;  // the GPU's energy counter as NVML read it; -1 = unknown
  double cpu_wait_ms = 0;    // the longest wait of one of its threads for a CPU in the window
  // A gang's rank: ms of the window spent in one launch of kCollectiveKernel
  // (timed); 0 = none launched.
  double collective_ms = 0;
  // A process driving several GPUs: the kernel, and a collective of this many
  // ms, once on each device ordinal (KernelStats.device); empty: one device,
  // not said (-1), as a shim from before per-device telemetry sends it.
  std::vector<double> collective_ms_per_device;
};
// The collective kernel Telemetry reports (KernelNames must name it, as the
// shim does, for the coordinator to know it as NCCL's).
inline constexpr char kCollectiveKernelName[] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
std::string Telemetry(const TelemetrySpec& spec);

// Names for kernel ids the shim's telemetry reports.
struct KernelNameSpec {
  uint64_t kernel = 0;
  std::string name;
};
std::string KernelNames(const std::vector<KernelNameSpec>& names);

struct GoodbyeSpec {
  uint64_t launches = 10;
  int exit_code = 0;
};
std::string Goodbye(const GoodbyeSpec& spec = {});

// `iashim run`/`place`, or the Slurm plugin (allowed_gpus, batch, dry_run) ->
// coordinator. Defaults: a guaranteed job with a 4 GiB quota (two fit on one
// GPU) on node1, any GPU.
struct PlaceSpec {
  std::string job;  // empty: the coordinator names the job
  wire::Priority priority = wire::Priority::Guaranteed;
  uint64_t mem_bytes = uint64_t{4} << 30;
  int gpu = -1;
  std::string host = "node1";
  std::string command = "python train.py";  // empty: left out
  double slowdown_target = 0.1;
  std::string kind;                              // empty: left out
  std::optional<std::vector<int>> allowed_gpus;  // an empty list is sent: any GPU of host
  std::optional<BatchIds> batch;
  bool dry_run = false;
  int gpus = 1;  // more than 1: a gang (1 is left out, as a client from before gangs sends it)
  bool guaranteed_gres = false;
  bool movable = false;
};
std::string Place(const PlaceSpec& spec);

// The Slurm plugin -> coordinator at the end of a job step.
std::string Release(const std::string& job, const std::string& token);

// An admin tool -> coordinator: drain or undrain host (gpu -1: all of its
// GPUs), or set job's priority.
struct AdminSpec {
  wire::AdminAction action = wire::AdminAction::Drain;
  std::string host;
  int gpu = -1;
  std::string job;
  wire::Priority priority = wire::Priority::Guaranteed;
};
std::string Admin(const AdminSpec& spec);

// A message opened as its receiver opens it (wire::OpenEnvelope): envelope()
// is null when it does not verify. The envelope points into the bytes given
// or into a copy held here, so those bytes must outlive this; for the same
// reason it is moved, never copied.
class ReceivedMessage {
 public:
  explicit ReceivedMessage(std::string_view bytes);
  explicit ReceivedMessage(std::string&& bytes) = delete;  // would dangle
  ReceivedMessage(ReceivedMessage&&) = default;
  ReceivedMessage& operator=(ReceivedMessage&&) = default;

  const wire::Envelope* envelope() const { return envelope_; }

 private:
  std::vector<uint64_t> storage_;
  const wire::Envelope* envelope_ = nullptr;
};

// The fields of a PlaceReply, copied out of its buffer.
struct PlaceResult {
  bool replied = false;  // false: there was no PlaceReply; every other field keeps its default
  bool ok = false;
  std::string error;
  std::string job;
  std::string host;
  int gpu = -1;
  double share = 0;
  uint64_t mem_limit_bytes = 0;
  bool queued = false;
  std::string token;
  bool dry_run = false;
  std::vector<int> gpu_indices;  // every GPU of the job (PlaceReply.gpu_indices)
  std::vector<std::string> gpu_uuids;
  std::vector<std::string> gpu_hosts;  // parallel to gpu_indices
  std::vector<std::string> prefer_hosts;
};
// The last message in `out`, if it is a PlaceReply.
PlaceResult LastPlaceReply(const std::vector<Outgoing>& out);

}  // namespace iashim::daemon::testing

#endif  // IASHIM_TESTS_COORDINATOR_DAEMON_DAEMON_MESSAGES_H_
