// One simulated shim process: a DEALER socket to the coordinator and the
// protocol libiashim's drainer speaks (libiashim/src/drainer.cc), with the
// shim's own encoder (telemetry_encoder.h):
//  - Hello at start and every 10 s, KernelNames at start and every 30 s;
//  - a TelemetryBatch every window, from a SimTrainingLoop;
//  - Budgets applied as the shim applies them (a seq not above the one in
//    force is ignored, the budget expires ttl_ms after it arrived);
//  - Advice Token kept and sent in every later Hello (the job this shim's
//    first Hello created is bound to it);
//  - Advice SendHello answered with a Hello at once; Advice Refused: the
//    process runs on unmanaged and stops talking (the registration is lost);
//  - Goodbye when it leaves;
//  - the shim's socket options and queue (libiashim/src/transport.cc): send
//    and receive high-water marks 16 and 64, 64 messages queued while the
//    coordinator does not take them, the oldest dropped first.
// Not thread-safe: one polling thread owns it.
#ifndef IASHIM_BENCH_LOAD_SIM_SHIM_H_
#define IASHIM_BENCH_LOAD_SIM_SHIM_H_

#include <cstdint>
#include <deque>
#include <string>
#include <zmq.hpp>

#include "bench/load/load_stats.h"
#include "bench/load/sim_workload.h"
#include "libiashim/src/telemetry_encoder.h"

namespace iashim::load {

struct ShimSpec {
  std::string host;
  int pid = 0;
  bool opportunistic = false;
  int model = 0;
  uint32_t window_ms = 100;
};

class SimShim {
 public:
  // Connects and says Hello (and names its kernels) at `now_ns` (CLOCK_MONOTONIC).
  SimShim(zmq::context_t& context, const std::string& endpoint, const ShimSpec& spec,
          uint64_t now_ns, uint64_t unix_ns, LoadStats* stats);
  SimShim(const SimShim&) = delete;
  SimShim& operator=(const SimShim&) = delete;

  // Sends what is due at `now_ns`: the window's batch, the Hello heartbeat,
  // the names. `gpu_opportunistic_share`: the sum of the shares in force of
  // the opportunistic shims on this GPU (what slows a guaranteed job down).
  void Tick(uint64_t now_ns, double gpu_opportunistic_share);
  // Reads everything waiting on the socket.
  void Receive(uint64_t now_ns);
  // Sends what is still queued (the run is ending).
  void Flush() { Pump(); }
  // Goodbye, then the socket closes.
  void Leave();

  // The share of GPU time in force (1 = unthrottled).
  double ShareAt(uint64_t now_ns) const;
  uint64_t NextDueNs() const { return next_window_ns_; }
  void* socket_handle() { return socket_.handle(); }

  const ShimSpec& spec() const { return spec_; }
  uint64_t started_ns() const { return started_ns_; }
  bool refused() const { return refused_; }
  uint64_t budgets() const { return budgets_; }
  // Seen connected in a coordinator snapshot (set by the prober's results).
  bool registered = false;
  bool connected_in_last_snapshot = false;

 private:
  // As the shim's Transport: queue (at most kMaxQueued, the oldest dropped
  // first), then send what the socket takes without blocking.
  void Send(Message m);
  void Pump();
  void SendHello(uint64_t now_ns);

  ShimSpec spec_;
  LoadStats* stats_;
  zmq::socket_t socket_;
  HelloInfo hello_;
  SimTrainingLoop loop_;
  uint64_t started_ns_;
  uint64_t window_start_ns_;
  uint64_t next_window_ns_;
  uint64_t next_hello_ns_;
  uint64_t next_names_ns_;
  uint64_t seq_ = 0;
  bool refused_ = false;
  // The budget in force.
  uint64_t budget_seq_ = 0;
  double budget_share_ = 1.0;
  uint64_t budget_expires_ns_ = 0;  // 0 = never
  uint64_t budgets_ = 0;
  std::vector<uint64_t> aligned_;  // an unaligned message, copied (wire::OpenEnvelope)
  std::deque<Message> queue_;
  uint64_t dropped_ = 0;  // batches lost to a full queue, reported in every batch
};

}  // namespace iashim::load

#endif  // IASHIM_BENCH_LOAD_SIM_SHIM_H_
