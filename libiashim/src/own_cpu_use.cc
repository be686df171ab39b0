#include "libiashim/src/own_cpu_use.h"

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

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

std::optional<int> ParseCpuList(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  int count = 0;
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view range = text.substr(0, comma);
    const size_t dash = range.find('-');
    const std::string_view first = range.substr(0, dash);
    const std::string_view last = dash == std::string_view::npos ? first : range.substr(dash + 1);
    int a = 0;
    int b = 0;
    const auto [ae, aec] = std::from_chars(first.data(), first.data() + first.size(), a);
    const auto [be, bec] = std::from_chars(last.data(), last.data() + last.size(), b);
    if (aec != std::errc() || ae != first.data() + first.size() || first.empty())
      return std::nullopt;
    if (bec != std::errc() || be != last.data() + last.size() || last.empty()) return std::nullopt;
    if (a < 0 || b < a) return std::nullopt;
    count += b - a + 1;
    if (comma == std::string_view::npos) return count;
    text.remove_prefix(comma + 1);
  }
}

std::optional<uint64_t> ParseUsageUsec(std::string_view text) {
  constexpr std::string_view kKey = "usage_usec ";
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    if (line.substr(0, kKey.size()) == kKey) {
      const std::string_view value = line.substr(kKey.size());
      uint64_t usec = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), usec);
      if (ec != std::errc() || end != value.data() + value.size()) return std::nullopt;
      return usec;
    }
    if (eol == std::string_view::npos) break;
    text.remove_prefix(eol + 1);
  }
  return std::nullopt;
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
  const std::optional<std::string> leaf = self ? CgroupV2Path(*self) : std::nullopt;
  if (!leaf.has_value()) return allowance;
  bool confined = false;
  if (const auto text = ReadSmallFile(cgroup_root + *leaf + "/cpuset.cpus.effective")) {
    if (const auto cpus = ParseCpuList(*text); cpus && *cpus < online_cpus) confined = true;
  }
  // The quota in force is the least of the cgroup's and its ancestors'.
  std::string path = *leaf;
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
  if (confined && ReadSmallFile(cgroup_root + *leaf + "/cpu.stat")) {
    allowance.job_cgroup = cgroup_root + *leaf;
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
