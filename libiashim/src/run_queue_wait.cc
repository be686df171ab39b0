#include "libiashim/src/run_queue_wait.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace iashim {

std::optional<uint64_t> ParseSchedstatWait(std::string_view text) {
  uint64_t fields[3] = {};
  const char* p = text.data();
  const char* const end = text.data() + text.size();
  for (uint64_t& field : fields) {
    while (p < end && *p == ' ') ++p;
    auto [next, ec] = std::from_chars(p, end, field);
    if (ec != std::errc() || next == p) return std::nullopt;
    p = next;
  }
  while (p < end && (*p == ' ' || *p == '\n')) ++p;
  if (p != end) return std::nullopt;
  return fields[1];
}

RunQueueWait::RunQueueWait(std::string task_dir) : task_dir_(std::move(task_dir)) {}

std::optional<uint64_t> RunQueueWait::ReadWaitNs(int dir_fd, std::string_view tid) const {
  char path[64];
  if (tid.size() + sizeof "/schedstat" > sizeof path) return std::nullopt;
  std::memcpy(path, tid.data(), tid.size());
  std::memcpy(path + tid.size(), "/schedstat", sizeof "/schedstat");
  const int fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[128];
  const ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n <= 0 || n == ssize_t(sizeof buf)) return std::nullopt;
  return ParseSchedstatWait(std::string_view(buf, size_t(n)));
}

uint64_t RunQueueWait::TakeLongestWaitNs() {
  DIR* dir = opendir(task_dir_.c_str());
  if (dir == nullptr) return 0;
  now_.clear();
  uint64_t longest = 0;
  while (const dirent* e = readdir(dir)) {
    const std::string_view name = e->d_name;
    int tid = 0;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), tid);
    if (ec != std::errc() || end != name.data() + name.size()) continue;  // ".", ".."
    const std::optional<uint64_t> wait = ReadWaitNs(dirfd(dir), name);
    if (!wait) continue;
    const auto last = last_wait_ns_.find(tid);
    // A reused thread id starts its count again: below the last reading.
    if (last != last_wait_ns_.end() && *wait >= last->second) {
      longest = std::max(longest, *wait - last->second);
    }
    now_.emplace(tid, *wait);
  }
  closedir(dir);
  last_wait_ns_.swap(now_);
  return longest;
}

}  // namespace iashim
