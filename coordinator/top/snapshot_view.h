// The coordinator's StateSnapshot as plain C++ values. iashim-top decodes each
// snapshot it keeps once, here, so the layout and the screen never touch
// FlatBuffers (and can be tested with hand-made values).
#ifndef IASHIM_COORDINATOR_TOP_SNAPSHOT_VIEW_H_
#define IASHIM_COORDINATOR_TOP_SNAPSHOT_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace iashim::wire {
struct StateSnapshot;
}  // namespace iashim::wire

namespace iashim::top {

enum class Priority { kGuaranteed, kOpportunistic };

// One process under the shim, as in wire::JobState (see schemas/control.fbs
// for the meaning and units of each field).
struct JobView {
  std::string job;
  int pid = 0;
  std::string host;
  std::string command;
  Priority priority = Priority::kGuaranteed;
  double share = 1.0;
  uint32_t max_inflight = 0;
  double slowdown = -1;  // < 0: unknown
  double slowdown_target = 0;
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
  bool connected = false;

  // A guaranteed job running slower than its target allows: what an
  // operator watching the screen wants to spot first.
  bool OverTarget() const {
    return priority == Priority::kGuaranteed && slowdown_target > 0 && slowdown > slowdown_target;
  }
};

struct GpuView {
  int id = 0;
  std::string host;
  std::string name;
  std::string uuid;
  uint64_t memory_bytes = 0;
  double busy = 0;
  std::vector<JobView> jobs;

  // The snapshot carries no per-GPU used memory: it is what its jobs hold.
  uint64_t MemUsed() const;
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
