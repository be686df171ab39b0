// Pending placements ("reservations"): where a dry run said a job would go,
// held for that job until it asks for real.
//
// Slurm's job_submit.lua asks `iashim place --dry-run` when a job is submitted
// and binds the job to the node in the answer; the job's task asks for a real
// placement only when Slurm starts it, a second or two later. Without
// reservations, every dry run of a burst of submissions sees the same cluster
// and gets the same GPU. So a dry run answered "placed" leaves a reservation
// (unless it named its GPU: that is a question about the GPU, not a job),
// and until it ends it occupies its GPUs in every later placement decision
// (dry run or real) as a job of its priority, kind and memory would
// (Coordinator::PlacementView). It ends when
//  - a real request on its host with the same priority, kind and GPU count
//    consumes it (the oldest such first), before that request is decided: the
//    job takes its reservation's place instead of seeing itself there; or
//  - it expires, --reservation-ttl-s after the dry run. A job that pends in
//    Slurm longer than that keeps its node (Slurm bound it) but its GPUs are no
//    longer held for it: it is then placed on the node by the normal rules; or
//  - a job that Slurm started on its host would otherwise wait there for
//    GPUs held only by reservations: Slurm, which counts the node's slots
//    too, started this job and holds the pending ones back, so the running
//    job takes the GPUs (YieldTo) and the pending ones are placed by the
//    normal rules when they start, as after an expiry. Without this, a burst
//    of submissions left jobs idle in their allocations while the jobs their
//    GPUs were held for pended in Slurm behind them (a live replay: 20-64 s
//    of waiting in the allocation).
// A reservation names no job (job_submit.lua's dry run has none), so a real
// request of the same shape on the host may consume another job's
// reservation: what is held is the capacity, which is what matters.
// Not persisted: a restarted coordinator holds none (they last seconds).
//
//   Reservations r(30 * kSecond);
//   r.Add({.host = "node1", .gpus = {0}, .priority = kGuaranteed}, now_ns);
//   r.Consume({.host = "node1", .priority = kGuaranteed}, later_ns);  // true
//
// Pure state over the coordinator's clock (now_ns), tested with injected time.
#ifndef IASHIM_COORDINATOR_DAEMON_RESERVATIONS_H_
#define IASHIM_COORDINATOR_DAEMON_RESERVATIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "coordinator/policy/priority.h"

namespace iashim::daemon {

struct Reservation {
  std::string host;
  std::vector<int> gpus;  // GPU indexes on host, in rank order
  policy::Priority priority = policy::Priority::kGuaranteed;
  std::string kind;        // as the dry run asked; empty: not said
  uint64_t mem_bytes = 0;  // per GPU; 0 = the whole GPU
  double slowdown_target = 0.10;
  // Set by Reservations::Add.
  uint64_t seq = 0;        // order made: the lower, the older
  int64_t expires_ns = 0;  // expired from this time on
};

// What a real request must match to consume a reservation.
struct ReservationMatch {
  std::string host;
  policy::Priority priority = policy::Priority::kGuaranteed;
  std::string kind;
  int gpu_count = 1;
};

class Reservations {
 public:
  // ttl_ns 0: disabled, Add records nothing.
  explicit Reservations(int64_t ttl_ns) : ttl_ns_(ttl_ns) {}

  bool enabled() const { return ttl_ns_ > 0; }

  // Records `r`, expiring ttl after now_ns.
  void Add(Reservation r, int64_t now_ns);
  // Drops every reservation expired at now_ns; returns how many.
  size_t Expire(int64_t now_ns);
  // Removes the oldest reservation unexpired at now_ns that `m` matches (host,
  // priority, kind and GPU count equal); whether there was one.
  bool Consume(const ReservationMatch& m, int64_t now_ns);
  // Drops every reservation on `host` that holds any of `gpus` (indexes):
  // a job Slurm started there is placed on them (Coordinator::OnPlace);
  // returns how many.
  size_t YieldTo(const std::string& host, const std::vector<int>& gpus);

  // Those held, oldest first; some may have expired since the last Expire.
  const std::vector<Reservation>& held() const { return held_; }
  // Those unexpired at now_ns.
  size_t LiveCount(int64_t now_ns) const;
  // Reservations that expired (or have by now_ns, though Expire has not yet
  // dropped them) and that were consumed, since start.
  uint64_t expired_total(int64_t now_ns) const;
  uint64_t consumed_total() const { return consumed_; }
  uint64_t yielded_total() const { return yielded_; }

 private:
  int64_t ttl_ns_;
  std::vector<Reservation> held_;  // by seq
  uint64_t next_seq_ = 0;
  uint64_t expired_ = 0;
  uint64_t consumed_ = 0;
  uint64_t yielded_ = 0;
};

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_RESERVATIONS_H_
