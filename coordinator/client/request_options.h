// What a job asks the coordinator for, and where the coordinator is: the
// vocabulary the `iashim` command line and a batch system's plugin (Slurm)
// share when they place a job and prepare its environment.
#ifndef IASHIM_COORDINATOR_CLIENT_REQUEST_OPTIONS_H_
#define IASHIM_COORDINATOR_CLIENT_REQUEST_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/security/curve_socket.h"
#include "common/text/priority.h"

namespace iashim::client {

inline constexpr std::string_view kDefaultCoordinator = "tcp://127.0.0.1:5555";
inline constexpr double kDefaultTimeoutS = 2.0;
// PlaceRequest.command is for display; the schema caps it at 256 bytes.
inline constexpr size_t kMaxCommandBytes = 256;

using ::iashim::Priority;  // common/text/priority.h
using ::iashim::PriorityName;

// The batch system's ids of a job (wire BatchJob), e.g. {"slurm", "1234", "0", 0}
// for task 0 of step 0 of Slurm job 1234. Sent only when `system` is set; the
// command line does not set them (a batch system's plugin does).
struct BatchIds {
  std::string system, job, step;
  int task = -1;  // the local task id; -1 = none
};

// What `run` and `place` ask the coordinator for.
struct PlacementOptions {
  std::string job;  // empty: the coordinator assigns one
  Priority priority = Priority::kGuaranteed;
  uint64_t mem_bytes = 0;        // 0: the whole GPU
  int gpu = -1;                  // -1: the coordinator chooses
  int gpus = 1;                  // GPUs used at once (1..64); more than 1: a gang on one node
  double slowdown_target = 0.0;  // 0: the coordinator's default
  std::string kind;              // empty: unknown (learned from the job's kernels)
  std::vector<int> allowed_gpus;  // GPU indexes on the host the job may use; empty: any
  bool dry_run = false;          // place --dry-run: where it would go; nothing registered
  bool guaranteed_gres = false;  // place --guaranteed-gres: nodes count their guaranteed GPUs
  bool movable = false;          // it resumes from a checkpoint when requeued (wire PlaceRequest)
  BatchIds batch;                // system empty: none
};

// A job's request with the coordinator it goes to: what the job's environment
// is made from (job_environment.h).
struct JobRequest {
  PlacementOptions placement;
  std::string coordinator = std::string(kDefaultCoordinator);
  security::ClientKeys keys;  // CurveZMQ keys for `coordinator`; none: plain text
};

}  // namespace iashim::client

#endif  // IASHIM_COORDINATOR_CLIENT_REQUEST_OPTIONS_H_
