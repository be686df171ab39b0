#include "bench/load/rss_sampler.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

#include "common/text/text.h"

namespace iashim::load {

std::optional<uint64_t> ReadRssKib(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("VmRSS:")) continue;
    std::string_view v = Trim(std::string_view(line).substr(6));
    if (!v.ends_with("kB")) return std::nullopt;
    std::optional<int64_t> kib = ParseInt(Trim(v.substr(0, v.size() - 2)), 0, int64_t{1} << 40);
    if (!kib) return std::nullopt;
    return uint64_t(*kib);
  }
  return std::nullopt;
}

double SlopeKibPerMin(const std::vector<std::pair<double, uint64_t>>& points) {
  if (points.size() < 2) return 0;
  double sx = 0, sy = 0;
  for (const auto& [x, y] : points) {
    sx += x;
    sy += double(y);
  }
  const double n = double(points.size());
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0;
  for (const auto& [x, y] : points) {
    sxx += (x - mx) * (x - mx);
    sxy += (x - mx) * (double(y) - my);
  }
  return sxx > 0 ? sxy / sxx * 60.0 : 0;
}

RssSampler::RssSampler(int pid, double warmup_s)
    : pid_(pid), warmup_s_(warmup_s), thread_([this] { Run(); }) {}

RssSampler::~RssSampler() { Stop(); }

void RssSampler::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void RssSampler::Run() {
  const auto start = std::chrono::steady_clock::now();
  auto next = start;
  while (!stop_.load()) {
    const std::optional<uint64_t> kib = ReadRssKib(pid_);
    if (!kib) {
      alive_.store(false);
      return;
    }
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    {
      std::lock_guard<std::mutex> lock(mu_);
      points_.push_back({t, *kib});
    }
    next += std::chrono::seconds(1);
    while (!stop_.load() && std::chrono::steady_clock::now() < next) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

RssSummary RssSampler::Summary() {
  std::vector<std::pair<double, uint64_t>> points;
  {
    std::lock_guard<std::mutex> lock(mu_);
    points = points_;
  }
  RssSummary s;
  s.samples = points.size();
  if (points.empty()) return s;
  s.end_kib = points.back().second;
  for (const auto& [t, kib] : points) {
    s.max_kib = std::max(s.max_kib, kib);
    if (s.warmup_kib == 0 && t >= warmup_s_) s.warmup_kib = kib;
  }
  const double half = points.back().first / 2;
  std::vector<std::pair<double, uint64_t>> second_half;
  for (const auto& p : points) {
    if (p.first >= half) second_half.push_back(p);
  }
  s.second_half_slope_kib_per_min = SlopeKibPerMin(second_half);
  return s;
}

}  // namespace iashim::load
