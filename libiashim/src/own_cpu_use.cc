#include "libiashim/src/own_cpu_use.h"

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "common/text/text.h"
#include "libiashim/src/log.h"

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

// The rest of `text`'s first line that starts with `prefix`, or nullopt.
std::optional<std::string_view> LineAfter(std::string_view text, std::string_view prefix) {
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    if (line.substr(0, prefix.size()) == prefix) return line.substr(prefix.size());
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
  text = Trim(text);
  const size_t space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto quota = ParseInt(text.substr(0, space), 1, INT64_MAX);
  const auto period = ParseInt(text.substr(space + 1), 1, INT64_MAX);
  if (!quota || !period) return std::nullopt;
  return double(*quota) / double(*period);
}

std::optional<int> ParseCpuList(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return std::nullopt;
  int count = 0;
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view range = text.substr(0, comma);
    const size_t dash = range.find('-');
    const auto first = ParseInt(range.substr(0, dash), 0, INT32_MAX);
    const auto last =
        dash == std::string_view::npos ? first : ParseInt(range.substr(dash + 1), 0, INT32_MAX);
    if (!first || !last || *last < *first) return std::nullopt;
    count += int(*last - *first + 1);
    if (comma == std::string_view::npos) return count;
    text.remove_prefix(comma + 1);
  }
}

std::optional<uint64_t> ParseUsageUsec(std::string_view text) {
  const std::optional<std::string_view> value = LineAfter(text, "usage_usec ");
  const std::optional<int64_t> usec = value ? ParseInt(*value, 0, INT64_MAX) : std::nullopt;
  if (!usec) return std::nullopt;
  return uint64_t(*usec);
}

CpuAllowance FindCpuAllowance(const std::string& proc_cgroup, const std::string& cgroup_root,
                              int online_cpus) {
  if (online_cpus <= 0) online_cpus = int(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  cpu_set_t set;
  CPU_ZERO(&set);
  CpuAllowance allowance;
  allowance.cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : online_cpus;
  if (allowance.cpus <= 0) allowance.cpus = online_cpus;
  const std::optional<std::string> self = ReadSmallFile(proc_cgroup);
  const std::optional<std::string_view> v2 = self ? LineAfter(*self, "0::") : std::nullopt;
  if (!v2.has_value()) return allowance;
  const std::string leaf(*v2);
  bool confined = false;
  if (const auto text = ReadSmallFile(cgroup_root + leaf + "/cpuset.cpus.effective")) {
    if (const auto cpus = ParseCpuList(*text); cpus && *cpus < online_cpus) confined = true;
  }
  // The quota in force is the least of the cgroup's and its ancestors'.
  std::string path = leaf;
  while (!path.empty()) {
    if (const auto text = ReadSmallFile(cgroup_root + path + "/cpu.max")) {
      if (const auto cpus = ParseCpuMax(*text)) {
        allowance.cpus = std::min(allowance.cpus, *cpus);
        confined = true;
      }
    }
    const size_t slash = path.find_last_of('/');
    if (slash == std::string::npos || path == "/") break;
    path.resize(slash == 0 ? 1 : slash);
  }
  if (confined && ReadSmallFile(cgroup_root + leaf + "/cpu.stat")) {
    allowance.job_cgroup = cgroup_root + leaf;
  }
  return allowance;
}

OwnCpuUse::OwnCpuUse() : OwnCpuUse(0, nullptr) {}

OwnCpuUse::OwnCpuUse(double allowed_cpus, std::function<uint64_t()> cpu_time_ns)
    : allowed_cpus_(allowed_cpus), cpu_time_ns_(std::move(cpu_time_ns)) {}

std::optional<double> OwnCpuUse::TakeBusyFraction(uint64_t now_ns) {
  // Found on the first call, off the process's start: the files are read once.
  if (cpu_time_ns_ == nullptr) {
    CpuAllowance allowance = FindCpuAllowance();
    allowed_cpus_ = allowance.cpus;
    job_cgroup_ = std::move(allowance.job_cgroup);
    IASHIM_DEBUG(
        "a wait for a CPU counts as the job's own from %.0f%% of its %.2f CPUs busy, "
        "counted in %s",
        kOwnCpusBusy * 100, allowed_cpus_,
        job_cgroup_.empty() ? "the process" : job_cgroup_.c_str());
    if (job_cgroup_.empty()) {
      cpu_time_ns_ = &ProcessCpuTimeNs;
    } else {
      cpu_time_ns_ = [stat = job_cgroup_ + "/cpu.stat"] {
        const std::optional<std::string> text = ReadSmallFile(stat);
        const std::optional<uint64_t> usec = text ? ParseUsageUsec(*text) : std::nullopt;
        return usec.value_or(0) * 1000;
      };
    }
  }
  const uint64_t cpu_ns = cpu_time_ns_();
  if (cpu_ns == 0) return std::nullopt;  // not readable now: unknown, and no new start
  std::optional<double> busy;
  if (last_now_ns_.has_value() && now_ns > *last_now_ns_ && allowed_cpus_ > 0) {
    const double used = double(cpu_ns >= last_cpu_ns_ ? cpu_ns - last_cpu_ns_ : 0);
    busy = used / (double(now_ns - *last_now_ns_) * allowed_cpus_);
  }
  last_now_ns_ = now_ns;
  last_cpu_ns_ = cpu_ns;
  return busy;
}

}  // namespace iashim
