// The --state-dir itself: created when missing (0700: it holds job commands),
// checked to be a writable directory, and locked, so that two coordinators
// pointed at one directory cannot interleave their journals. The lock is an
// flock(2) on dir/LOCK, which the kernel drops when the holder dies, kill -9
// included, so a crash never leaves a stale lock behind.
#ifndef IASHIM_COORDINATOR_STATE_STATE_DIR_H_
#define IASHIM_COORDINATOR_STATE_STATE_DIR_H_

#include <string>

#include "absl/status/statusor.h"
#include "coordinator/state/posix_file.h"

namespace iashim::state {

struct LockedDir {
  std::string path;
  Fd lock;  // holds the lock while open
};

// Creates `path` and missing parents (mode 0700) and takes its lock.
// FailedPrecondition when it is not a directory; Unavailable when another
// process holds it (most likely another coordinator: a caller can say so);
// the errno's code (PermissionDenied, ...) when it cannot be created or
// written. Every message names the path.
absl::StatusOr<LockedDir> OpenStateDir(const std::string& path);

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_STATE_DIR_H_
