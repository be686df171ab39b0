// The few POSIX file operations the store needs, with errors as absl::Status
// whose message names the path and the errno text ("open /x/journal.log:
// Permission denied"), so an operator can act on it without a debugger.
#ifndef IASHIM_COORDINATOR_STATE_POSIX_FILE_H_
#define IASHIM_COORDINATOR_STATE_POSIX_FILE_H_

#include <sys/types.h>

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace iashim::state {

// absl::ErrnoToStatus with "<op> <path>" as the message.
absl::Status PathError(int error_number, absl::string_view op, absl::string_view path);

// An owned file descriptor, closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release();

 private:
  int fd_ = -1;
};

// open(2) with O_CLOEXEC added.
absl::StatusOr<Fd> OpenFile(const std::string& path, int flags, mode_t mode = 0600);

// The whole file; an empty string when it does not exist.
absl::StatusOr<std::string> ReadFileOrEmpty(const std::string& path);

// write(2) until all of `data` is written, retrying on EINTR and short writes.
absl::Status WriteAll(int fd, std::string_view data, const std::string& path);

// Makes a rename or a new file in `dir` durable (fsync of the directory).
absl::Status SyncDir(const std::string& dir);

// Writes `data` to dir/name so that a crash leaves either the old file or the
// new one, whole: temp file, fsync, rename over, fsync of the directory.
absl::Status WriteFileAtomically(const std::string& dir, const std::string& name,
                                 std::string_view data);

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_POSIX_FILE_H_
