#include "libiashim/src/own_cpu_use.h"

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

namespace iashim {
namespace {

// A small file's text (cgroup files are a line), or nullopt.
std::optional<std::string> ReadSmallFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n < 0 || n == ssize_t(sizeof buf)) return std::nullopt;
  return std::string(buf, size_t(n));
}

// The v2 path in a /proc/PID/cgroup text: its "0::PATH" line.
std::optional<std::string> CgroupV2Path(std::string_view text) {
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    if (line.substr(0, 3) == "0::") return std::string(line.substr(3));
    if (eol == std::string_view::npos) break;
    text.remove_prefix(eol + 1);
  }
  return std::nullopt;
}

uint64_t ProcessCpuTimeNs() {
  timespec t{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return 0;
  return uint64_t(t.tv_sec) * 1'000'000'000ULL + uint64_t(t.tv_nsec);
}

}  // namespace

uint64_t WaitOthersCaused(uint64_t wait_ns, std::optional<double> busy_fraction) {
  if (busy_fraction.has_value() && *busy_fraction >= kOwnCpusBusy) return 0;
  return wait_ns;
}

std::optional<double> ParseCpuMax(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  const size_t space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view quota = text.substr(0, space);
  const std::string_view period = text.substr(space + 1);
  uint64_t q = 0;
  uint64_t p = 0;
  const auto [qe, qec] = std::from_chars(quota.data(), quota.data() + quota.size(), q);
  const auto [pe, pec] = std::from_chars(period.data(), period.data() + period.size(), p);
  if (qec != std::errc() || qe != quota.data() + quota.size() || q == 0) return std::nullopt;
  if (pec != std::errc() || pe != period.data() + period.size() || p == 0) return std::nullopt;
  return double(q) / double(p);
}

double AllowedCpus(const std::string& proc_cgroup, const std::string& cgroup_root) {
  cpu_set_t set;
  CPU_ZERO(&set);
  double allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
  if (allowed <= 0) allowed = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  const std::optional<std::string> self = ReadSmallFile(proc_cgroup);
  std::optional<std::string> path = self ? CgroupV2Path(*self) : std::nullopt;
  // The quota in force is the least of the cgroup's and its ancestors'.
  while (path.has_value() && !path->empty()) {
    if (const auto text = ReadSmallFile(cgroup_root + *path + "/cpu.max")) {
      if (const auto cpus = ParseCpuMax(*text)) allowed = std::min(allowed, *cpus);
    }
    const size_t slash = path->find_last_of('/');
    if (slash == std::string::npos || *path == "/") break;
    path->resize(slash == 0 ? 1 : slash);
  }
  return allowed;
}

OwnCpuUse::OwnCpuUse() : OwnCpuUse(0, &ProcessCpuTimeNs) {}

OwnCpuUse::OwnCpuUse(double allowed_cpus, std::function<uint64_t()> cpu_time_ns)
    : allowed_cpus_(allowed_cpus), cpu_time_ns_(std::move(cpu_time_ns)) {}

std::optional<double> OwnCpuUse::TakeBusyFraction(uint64_t now_ns) {
  // Read on the first call, off the process's start: the files are read once.
  if (allowed_cpus_ <= 0) allowed_cpus_ = AllowedCpus();
  const uint64_t cpu_ns = cpu_time_ns_();
  std::optional<double> busy;
  if (last_now_ns_.has_value() && now_ns > *last_now_ns_) {
    const double used = double(cpu_ns >= last_cpu_ns_ ? cpu_ns - last_cpu_ns_ : 0);
    busy = used / (double(now_ns - *last_now_ns_) * allowed_cpus_);
  }
  last_now_ns_ = now_ns;
  last_cpu_ns_ = cpu_ns;
  return busy;
}

}  // namespace iashim
