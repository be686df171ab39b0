// One polling thread and the simulated GPUs it owns, each with its shims
// (all shims of a GPU on one thread, so a guaranteed shim reads its GPU's
// opportunistic shares without locks). The thread starts each shim at its
// time, sends what is due, polls all its sockets at once, replaces shims
// when churning, and marks shims the coordinator's snapshots show connected.
#ifndef IASHIM_BENCH_LOAD_SHIM_WORKER_H_
#define IASHIM_BENCH_LOAD_SHIM_WORKER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "absl/container/flat_hash_set.h"
#include "bench/load/load_options.h"
#include "bench/load/load_stats.h"
#include "bench/load/sim_shim.h"

namespace iashim::load {

// The latest snapshot's connected pids, handed from the prober to the workers.
class ConnectedPids {
 public:
  void Publish(absl::flat_hash_set<int> pids);
  // The latest set when it is newer than `*generation` (updated), else null.
  std::shared_ptr<const absl::flat_hash_set<int>> IfNewer(uint64_t* generation);

 private:
  std::mutex mu_;
  uint64_t generation_ = 0;
  std::shared_ptr<const absl::flat_hash_set<int>> pids_;
};

struct ShimSlot {
  ShimSpec spec;
  uint64_t join_at_ns = 0;  // when the next process starts in this slot
  bool rejoin = false;      // the next process replaces one that left (churn)
  std::unique_ptr<SimShim> shim;
};

struct SimGpu {
  std::vector<ShimSlot> slots;  // [0] guaranteed
};

// Figures over the shims a worker holds at the end.
struct EndFigures {
  uint64_t live = 0;
  uint64_t live_registered = 0;
  uint64_t live_connected = 0;
  uint64_t refused = 0;
  // Opportunistic shims that lived at least kBudgetGraceS on a GPU with a
  // live guaranteed shim, and how many of them never received a Budget.
  uint64_t budget_eligible = 0;
  uint64_t budget_never = 0;
};

inline constexpr double kBudgetGraceS = 15;

class ShimWorker {
 public:
  ShimWorker(zmq::context_t& context, const LoadOptions& options, LoadStats* stats,
             ConnectedPids* connected, std::atomic<int>* next_pid, int worker_index);
  ~ShimWorker();

  // Runs shims from `start_ns` (CLOCK_MONOTONIC) on its own thread until Stop.
  void Start(uint64_t start_ns);
  void Stop();

  // After Stop: sends what the shims still queue, for the final snapshot.
  void Flush();
  // After Stop: marks the shims from a final snapshot, and counts.
  void MarkConnected(const absl::flat_hash_set<int>& pids, bool final_snapshot);
  EndFigures Figures(uint64_t now_ns) const;
  // After Stop: every live shim says Goodbye.
  void LeaveAll();
  // Shim processes that ended (churn) without ever being seen connected.
  uint64_t ended_unregistered() const { return ended_unregistered_.load(); }

 private:
  void Run(uint64_t start_ns);
  void Churn(uint64_t now_ns);
  void EndShim(ShimSlot& slot);

  zmq::context_t& context_;
  const LoadOptions options_;
  LoadStats* stats_;
  ConnectedPids* connected_;
  std::atomic<int>* next_pid_;
  std::vector<SimGpu> gpus_;
  uint64_t rng_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> ended_unregistered_{0};
  std::thread thread_;
};

}  // namespace iashim::load

#endif  // IASHIM_BENCH_LOAD_SHIM_WORKER_H_
