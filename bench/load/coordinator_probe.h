// Asks the coordinator what it knows: a StatusRequest on a DEALER socket of
// its own (the state snapshot `iashim status` gets), and optionally the
// counters of its /metrics endpoint.
#ifndef IASHIM_BENCH_LOAD_COORDINATOR_PROBE_H_
#define IASHIM_BENCH_LOAD_COORDINATOR_PROBE_H_

#include <cstdint>
#include <map>
#include <string>
#include <zmq.hpp>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"

namespace iashim::load {

struct SnapshotView {
  uint64_t jobs = 0;
  uint64_t connected = 0;
  absl::flat_hash_set<int> connected_pids;  // pids are unique across the simulated hosts
  uint64_t invalid_messages = 0;            // the snapshot's count
};

class CoordinatorProbe {
 public:
  CoordinatorProbe(zmq::context_t& context, const std::string& endpoint);

  // One StatusRequest; an error when no valid snapshot came within `timeout_ms`.
  absl::StatusOr<SnapshotView> Snapshot(int timeout_ms);

 private:
  zmq::context_t& context_;
  std::string endpoint_;
  std::unique_ptr<zmq::socket_t> socket_;
};

// GET http://HOST:PORT/metrics; the samples of the iashim_* counters, keyed
// as written ("iashim_messages_dropped_total{reason=\"invalid\"}").
absl::StatusOr<std::map<std::string, double>> ScrapeMetrics(const std::string& host_port,
                                                           int timeout_ms);

}  // namespace iashim::load

#endif  // IASHIM_BENCH_LOAD_COORDINATOR_PROBE_H_
