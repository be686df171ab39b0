// A fake training job's progress kept across restarts, as a real one keeps
// its weights: a job Slurm requeues (its node lost, or the coordinator moving
// it to a GPU that emptied) starts its script again, and with --checkpoint it
// resumes from the iterations it had done instead of from the first.
//
// The file holds one line, "iterations N". It is written to a temporary file
// beside it and renamed over it, so a job killed while writing leaves the
// last whole checkpoint, never a torn one.
#ifndef IASHIM_BENCH_FAKEJOB_CHECKPOINT_H_
#define IASHIM_BENCH_FAKEJOB_CHECKPOINT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace iashim::fakejob {

// The iterations a checkpoint at `path` records; 0 when there is none yet.
// A file that is not a checkpoint is an error naming it (resuming from a
// guess could repeat or skip work).
absl::StatusOr<int64_t> ReadCheckpoint(const std::string& path);

// Records `iterations` (>= 0) at `path`, atomically (above).
absl::Status WriteCheckpoint(const std::string& path, int64_t iterations);

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_CHECKPOINT_H_
