#include "bench/fakejob/stop_agreement.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace iashim::fakejob {
namespace {

bool Before(const timespec& a, const timespec& b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

// The number in an open file, or -1.
int64_t ReadNumber(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return -1;
  char* end = nullptr;
  const long long v = std::strtoll(buf, &end, 10);
  return end != buf && v >= 0 ? v : -1;
}

}  // namespace

std::string StopAgreement::PathFor(const std::string& group) {
  // Ranks on several simulated nodes (each its own /dev/shm) share only
  // simgpu's fabric directory, as their collectives do.
  const char* fabric = std::getenv("SIMGPU_FABRIC");
  if (fabric != nullptr && fabric[0] == '/') return std::string(fabric) + "/" + group + ".stop";
  return "/dev/shm/" + group + ".stop";
}

StopAgreement::StopAgreement(const std::string& group)
    : path_(group.empty() ? std::string() : PathFor(group)) {
  clock_gettime(CLOCK_REALTIME, &started_);
  // A file's mtime has the filesystem's granularity: allow one second.
  started_.tv_sec -= 1;
}

int64_t StopAgreement::Agreed() const {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  int64_t agreed = -1;
  if (::fstat(fd, &st) == 0 && !Before(st.st_mtim, started_)) {
    ::flock(fd, LOCK_SH);
    agreed = ReadNumber(fd);
    ::flock(fd, LOCK_UN);
  }
  ::close(fd);
  return agreed;
}

void StopAgreement::Propose(int64_t iterations) {
  const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ::flock(fd, LOCK_EX);
  struct stat st;
  int64_t current = -1;
  if (::fstat(fd, &st) == 0 && st.st_size > 0 && !Before(st.st_mtim, started_)) {
    current = ReadNumber(fd);
  }
  if (current < 0 || iterations < current) {
    const std::string text = std::to_string(iterations) + "\n";
    if (::ftruncate(fd, 0) == 0) {
      [[maybe_unused]] const ssize_t written = ::pwrite(fd, text.data(), text.size(), 0);
    }
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
}

bool StopAgreement::ShouldStop(int64_t completed, bool wants_to_stop) {
  if (path_.empty()) return wants_to_stop;
  if (wants_to_stop) Propose(completed + 1);
  const int64_t agreed = Agreed();
  return agreed >= 0 && completed >= agreed;
}

}  // namespace iashim::fakejob
