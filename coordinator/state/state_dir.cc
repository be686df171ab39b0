#include "coordinator/state/state_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"

namespace iashim::state {
namespace {

// mkdir -p: each missing component is created with `mode`, and made durable
// (its parent synced). Another process creating the same directory at the
// same time is not an error.
absl::Status MakeDirs(const std::string& path, mode_t mode) {
  size_t parent_end = 0;  // the parent of `prefix` is path.substr(0, parent_end)
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    if (mkdir(prefix.c_str(), mode) == 0) {
      const std::string parent =
          parent_end == 0 ? (path[0] == '/' ? "/" : ".") : path.substr(0, parent_end);
      if (absl::Status s = SyncDir(parent); !s.ok()) return s;
    } else if (errno != EEXIST) {
      return PathError(errno, "cannot create state dir: mkdir", prefix);
    }
    if (slash == std::string::npos) return absl::OkStatus();
    parent_end = slash;
  }
}

}  // namespace

absl::StatusOr<LockedDir> OpenStateDir(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("state dir: empty path");
  std::string dir = path;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();

  if (absl::Status s = MakeDirs(dir, 0700); !s.ok()) return s;
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return PathError(errno, "state dir: stat", dir);
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("state dir ", dir, " exists and is not a directory"));
  }

  // Creating the lock file is also the check that we may write here.
  const std::string lock_path = absl::StrCat(dir, "/LOCK");
  absl::StatusOr<Fd> lock = OpenFile(lock_path, O_RDWR | O_CREAT);
  if (!lock.ok()) {
    return absl::Status(
        lock.status().code(),
        absl::StrCat("state dir ", dir, " is not writable: ", lock.status().message()));
  }
  if (flock(lock->get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return absl::UnavailableError(absl::StrCat(
          "state dir ", dir, " is in use by another process (it holds ", lock_path, ")"));
    }
    return PathError(errno, "flock", lock_path);
  }
  return LockedDir{std::move(dir), std::move(*lock)};
}

}  // namespace iashim::state
