// The shim's configuration, read once from IASHIM_* environment variables.
//
// Parsing is pure (the environment comes in as a lookup function) so that every
// rule is unit-tested. A bad value never aborts the job: it yields one message
// naming the variable and the value, and that one setting falls back to
// pass-through (no quota, no telemetry, no trace...). The README's table of
// variables is the user-facing copy of the rules below.
#ifndef IASHIM_CONFIG_H_
#define IASHIM_CONFIG_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/text/priority.h"

namespace iashim {

enum class LogLevel { kWarn, kInfo, kDebug };

struct Config {
  bool disabled = false;          // IASHIM_DISABLE: forward everything, record nothing
  uint64_t mem_limit_bytes = 0;   // IASHIM_MEM_LIMIT: per-device quota, 0 = none
  std::string coordinator;        // IASHIM_COORDINATOR: ZeroMQ endpoint, empty = none
  // IASHIM_COORDINATOR_KEY: the coordinator's CurveZMQ public key (Z85),
  // empty = plain text, which only a loopback coordinator is sent.
  std::string coordinator_key;
  std::string job;                // IASHIM_JOB: the job's name, for the coordinator
  std::string job_token;          // IASHIM_JOB_TOKEN: proves to the coordinator this is the job's process
  // Which process of a multi-process (data-parallel) job this is:
  // IASHIM_RANK (the Slurm plugin sets it), else RANK, else LOCAL_RANK, as
  // torchrun sets them; -1 = not said.
  int rank = -1;
  std::string trace_path;         // IASHIM_TRACE: binary launch trace, empty = none
  uint32_t window_ms = 100;       // IASHIM_WINDOW_MS: telemetry window
  uint32_t sample_every = 64;     // IASHIM_SAMPLE_EVERY: time 1 in N launches (at least)
  uint32_t queue_batches = 64;    // IASHIM_QUEUE_BATCHES: batches kept while unsent
  LogLevel log_level = LogLevel::kWarn;  // IASHIM_LOG
  double share = 1.0;             // IASHIM_SHARE: fraction of GPU time, 1 = unthrottled
  uint32_t max_inflight = 0;      // IASHIM_MAX_INFLIGHT: kernels in flight, 0 = no cap
  Priority priority = Priority::kGuaranteed;  // IASHIM_PRIORITY
  bool share_feedback = true;     // IASHIM_SHARE_FEEDBACK: correct charges from NVML readings
  bool pace_collectives = true;   // IASHIM_PACE_COLLECTIVES: throttled, arrive at collectives late
  std::string real_libcuda = "libcuda.so.1";  // IASHIM_REAL_LIBCUDA
};

using EnvLookup = std::function<const char*(const char* name)>;

// Reads every IASHIM_* variable through `env`; set-but-empty counts as unset.
// Each invalid value appends one human-readable line (without the "iashim: "
// prefix) to `errors`.
Config ParseConfig(const EnvLookup& env, std::vector<std::string>* errors);

// IASHIM_TRACE with "%p" replaced by `pid`.
std::string ExpandTracePath(const std::string& pattern, int pid);

}  // namespace iashim

#endif  // IASHIM_CONFIG_H_
