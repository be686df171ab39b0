#include "coordinator/state/posix_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace iashim::state {

absl::Status PathError(int error_number, absl::string_view op, absl::string_view path) {
  return absl::ErrnoToStatus(error_number, absl::StrCat(op, " ", path));
}

Fd::~Fd() {
  if (fd_ >= 0) close(fd_);
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.release();
  }
  return *this;
}

int Fd::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

absl::StatusOr<Fd> OpenFile(const std::string& path, int flags, mode_t mode) {
  int fd;
  do {
    fd = open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return PathError(errno, "open", path);
  return Fd(fd);
}

absl::StatusOr<std::string> ReadFileOrEmpty(const std::string& path) {
  absl::StatusOr<Fd> fd = OpenFile(path, O_RDONLY);
  if (!fd.ok()) {
    if (absl::IsNotFound(fd.status())) return std::string();
    return fd.status();
  }
  std::string data;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = read(fd->get(), buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return PathError(errno, "read", path);
    if (n == 0) return data;
    data.append(buffer, static_cast<size_t>(n));
  }
}

absl::Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return PathError(errno, "write", path);
    if (n == 0) return PathError(EIO, "write (no progress)", path);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::Status SyncDir(const std::string& dir) {
  absl::StatusOr<Fd> fd = OpenFile(dir, O_RDONLY | O_DIRECTORY);
  if (!fd.ok()) return fd.status();
  if (fsync(fd->get()) != 0) return PathError(errno, "fsync", dir);
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& dir, const std::string& name,
                                 std::string_view data) {
  const std::string path = absl::StrCat(dir, "/", name);
  const std::string temp = absl::StrCat(path, ".tmp");
  absl::Status status = [&]() -> absl::Status {
    absl::StatusOr<Fd> fd = OpenFile(temp, O_WRONLY | O_CREAT | O_TRUNC);
    if (!fd.ok()) return fd.status();
    if (absl::Status s = WriteAll(fd->get(), data, temp); !s.ok()) return s;
    if (fsync(fd->get()) != 0) return PathError(errno, "fsync", temp);
    if (rename(temp.c_str(), path.c_str()) != 0)
      return PathError(errno, absl::StrCat("rename ", temp, " to"), path);
    return SyncDir(dir);
  }();
  if (!status.ok()) unlink(temp.c_str());  // may not exist; nothing to report
  return status;
}

}  // namespace iashim::state
