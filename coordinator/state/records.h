// What the coordinator persists, as plain values: the jobs it accepted, the
// models' solo baselines, the co-locations it observed, the budget sequence
// number, and opaque per-component entries. `State` is all of it at once;
// StateStore::state() returns it and every mutation keeps it current.
#ifndef IASHIM_COORDINATOR_STATE_RECORDS_H_
#define IASHIM_COORDINATOR_STATE_RECORDS_H_

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "common/text/priority.h"

namespace iashim::state {

// The one Priority type; its numbering is state.fbs's too.
using ::iashim::Priority;

struct JobRecord {
  std::string job;  // the job id; non-empty
  int32_t pid = 0;
  std::string host;  // the node the process runs on
  std::string command;
  Priority priority = Priority::kGuaranteed;
  uint64_t mem_bytes = 0;
  // Placement. An empty gpu_host with gpu_index -1 means not placed (queued).
  std::string gpu_host;
  int32_t gpu_index = -1;
  double slowdown_target = 0;
  double share = 1.0;
  uint64_t fingerprint = 0;  // model fingerprint (hash of its kernel-name set)
  int64_t registered_unix_ns = 0;
  std::string kind;  // the interference model's name for the job's model; may be empty
  std::string token;  // the job's token (32 hex digits); empty for records written before tokens
  // The batch system's ids (e.g. "slurm", "1234", "0", 0); batch_system empty = none.
  std::string batch_system;
  std::string batch_job;
  std::string batch_step;
  int32_t batch_task = -1;  // -1 = none
  // A gang's GPU indexes on gpu_host, in rank order (gang_gpus[0] ==
  // gpu_index); empty for a one-GPU job.
  std::vector<int32_t> gang_gpus;

  friend bool operator==(const JobRecord&, const JobRecord&) = default;
};

// A model's solo profile: what a job's slowdown is measured against.
struct BaselineRecord {
  uint64_t fingerprint = 0;
  double iteration_ns = 0;
  double kernels_per_s = 0;
  double busy = 0;
  uint64_t samples = 0;

  friend bool operator==(const BaselineRecord&, const BaselineRecord&) = default;
};

// One observed co-location of models a and b on a GPU of `gpu_type`.
struct ObservationRecord {
  std::string gpu_type;
  uint64_t fingerprint_a = 0;
  uint64_t fingerprint_b = 0;
  double slowdown_a = 0;
  double slowdown_b = 0;
  double share_a = 0;
  double share_b = 0;
  int64_t unix_ns = 0;
  std::string kind_a;  // the jobs' kinds (JobRecord::kind); may be empty
  std::string kind_b;

  friend bool operator==(const ObservationRecord&, const ObservationRecord&) = default;
};

// Ordered maps, so that equal states compare equal and snapshots of equal
// states are identical bytes.
struct State {
  std::map<std::string, JobRecord> jobs;         // by JobRecord::job
  std::map<uint64_t, BaselineRecord> baselines;  // by fingerprint
  // Oldest first; bounded (StateStore::Options::max_observations), the oldest
  // dropped first. A deque because the bound drops from the front.
  std::deque<ObservationRecord> observations;
  uint64_t budget_seq = 0;                // never decreases
  std::map<std::string, std::string> kv;  // values are bytes

  friend bool operator==(const State&, const State&) = default;
};

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_RECORDS_H_
