// Builds the FlatBuffers messages (schemas/telemetry.fbs) the shim sends.
#ifndef IASHIM_TELEMETRY_ENCODER_H_
#define IASHIM_TELEMETRY_ENCODER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "libiashim/src/window_aggregator.h"

namespace iashim {

using Message = std::vector<uint8_t>;

struct HelloInfo {
  int pid = 0;
  std::string host;
  std::string job;
  std::string command;
  uint32_t window_ms = 0;
  uint64_t mem_limit_bytes = 0;
  uint64_t start_unix_ns = 0;
  uint64_t start_monotonic_ns = 0;
  bool opportunistic = false;  // IASHIM_PRIORITY
  double share = 1.0;          // IASHIM_SHARE
  std::string token;           // IASHIM_JOB_TOKEN, or the one the coordinator's Advice Token gave
  int rank = -1;               // RANK / LOCAL_RANK; -1 = not said
};

struct DeviceMemoryInfo {
  int device = 0;
  uint64_t used = 0;
  uint64_t peak = 0;
  uint64_t limit = 0;
  uint32_t refused = 0;  // in this window
};

struct BatchExtras {
  uint64_t seq = 0;
  uint32_t sample_every = 0;
  uint64_t batches_dropped = 0;
  uint64_t records_dropped = 0;
  std::vector<DeviceMemoryInfo> memory;
  double budget_share = 1.0;   // share in force at the window's end
  uint64_t held_launches = 0;  // launches the gate held back in the window
  uint64_t held_ns = 0;        // and for how long in all
  double charge_scale = 1.0;   // share feedback's multiplier on costs
  double gpu_share = -1.0;     // last NVML reading of this process's GPU time, -1 = none
  double gpu_energy_j = -1.0;  // last NVML reading of its GPU's energy counter, -1 = none
  uint64_t cpu_wait_ns = 0;    // longest run-queue wait of one thread (run_queue_wait.h)
};

Message EncodeHello(const HelloInfo& hello);
Message EncodeKernelNames(int pid, const std::vector<std::pair<uint64_t, std::string>>& names);
// `hash_of` maps a process-local kernel id to its wire id (name hash).
Message EncodeBatch(int pid, const WindowSummary& window, const BatchExtras& extras,
                    const std::function<uint64_t(uint32_t)>& hash_of);
Message EncodeGoodbye(int pid, uint64_t launches, int exit_code);

// The shim's version string, as sent in Hello.
const char* ShimVersion();

}  // namespace iashim

#endif  // IASHIM_TELEMETRY_ENCODER_H_
