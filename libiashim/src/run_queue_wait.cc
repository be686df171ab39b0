#include "libiashim/src/run_queue_wait.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "libiashim/src/cycle_clock.h"

namespace iashim {

std::optional<Schedstat> ParseSchedstat(std::string_view text) {
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
  return Schedstat{fields[0], fields[1]};
}

RunQueueWait::RunQueueWait(std::string task_dir, size_t max_reads)
    : task_dir_(std::move(task_dir)), max_reads_(std::max<size_t>(1, max_reads)) {}

std::optional<Schedstat> RunQueueWait::Read(int dir_fd, int tid) const {
  char path[32];
  const auto [end, ec] = std::to_chars(path, path + sizeof path, tid);
  if (ec != std::errc() || size_t(end - path) + sizeof "/schedstat" > sizeof path)
    return std::nullopt;
  std::memcpy(end, "/schedstat", sizeof "/schedstat");
  const int fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[128];
  const ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n <= 0 || n == ssize_t(sizeof buf)) return std::nullopt;
  return ParseSchedstat(std::string_view(buf, size_t(n)));
}

void RunQueueWait::Choose() {
  chosen_.clear();
  if (tids_.size() <= max_reads_) {
    chosen_ = tids_;
    return;
  }
  // The threads that ran, leaving a quarter of the reads to the turn below so
  // that a thread that slept when last read is not left unread for ever.
  const size_t in_turn = std::max<size_t>(1, max_reads_ / 4);
  for (const int tid : tids_) {
    if (chosen_.size() + in_turn >= max_reads_) break;
    const auto r = readings_.find(tid);
    if (r != readings_.end() && r->second.ran) chosen_.push_back(tid);
  }
  // The others in turn, from where the last call's turn stopped.
  const size_t ran = chosen_.size();  // ascending, as tids_ is
  const size_t n = tids_.size();
  const size_t start =
      size_t(std::upper_bound(tids_.begin(), tids_.end(), rotation_after_) - tids_.begin());
  for (size_t i = 0; i < n && chosen_.size() < max_reads_; ++i) {
    const int tid = tids_[(start + i) % n];
    if (std::binary_search(chosen_.begin(), chosen_.begin() + ptrdiff_t(ran), tid)) continue;
    chosen_.push_back(tid);
    rotation_after_ = tid;
  }
}

uint64_t RunQueueWait::TakeLongestWaitNs() { return TakeLongestWaitNs(MonotonicNs()); }

uint64_t RunQueueWait::TakeLongestWaitNs(uint64_t now_ns) {
  last_reads_ = 0;
  DIR* dir = opendir(task_dir_.c_str());
  if (dir == nullptr) return 0;
  tids_.clear();
  while (const dirent* e = readdir(dir)) {
    const std::string_view name = e->d_name;
    int tid = 0;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), tid);
    if (ec == std::errc() && end == name.data() + name.size()) tids_.push_back(tid);  // not "."
  }
  std::sort(tids_.begin(), tids_.end());
  std::erase_if(readings_, [this](const auto& r) {
    return !std::binary_search(tids_.begin(), tids_.end(), r.first);  // gone
  });
  Choose();

  const uint64_t window_ns = last_call_ns_ && now_ns > *last_call_ns_ ? now_ns - *last_call_ns_ : 0;
  uint64_t longest = 0;
  for (const int tid : chosen_) {
    const std::optional<Schedstat> now = Read(dirfd(dir), tid);
    ++last_reads_;
    if (!now) {
      readings_.erase(tid);  // unreadable: counts from its next reading
      continue;
    }
    auto [it, fresh] = readings_.try_emplace(tid);
    Reading& last = it->second;
    // A reused thread id starts its counts again: below the last reading.
    const bool same_thread = !fresh && now->wait_ns >= last.counters.wait_ns &&
                             now->on_cpu_ns >= last.counters.on_cpu_ns;
    if (same_thread) {
      uint64_t waited = now->wait_ns - last.counters.wait_ns;
      const uint64_t since_ns = now_ns > last.at_ns ? now_ns - last.at_ns : 0;
      if (since_ns > window_ns)
        waited = uint64_t(double(waited) * double(window_ns) / double(since_ns));
      longest = std::max(longest, waited);
    }
    // A thread first seen is read again next time, so its wait is known soon.
    last.ran = !same_thread || now->on_cpu_ns > last.counters.on_cpu_ns;
    last.counters = *now;
    last.at_ns = now_ns;
  }
  closedir(dir);
  last_call_ns_ = now_ns;
  return longest;
}

}  // namespace iashim
