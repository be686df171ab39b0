#include "bench/predict/trace_job.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/text/text.h"
#include "simgpu/src/module_image.h"

namespace iashim::predict {
namespace {

constexpr uint8_t kLaunch = 0;
constexpr uint8_t kSync = 2;
constexpr size_t kMinIterations = 5;

struct Iteration {
  std::vector<const TraceEvent*> launches;
  uint64_t start_ns = 0;  // the synchronising call before it returned
  uint64_t end_ns = 0;    // the one after it returned
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

absl::StatusOr<TraceJob> JobFromTrace(const Trace& trace, const TraceJobOptions& options) {
  if (options.sm_count < 1) return absl::InvalidArgumentError("the SM count must be at least 1");
  // The thread that launched the most: the training loop's.
  std::map<uint32_t, size_t> launches_by_thread;
  for (const TraceEvent& e : trace.events) {
    if (e.launch.event == kLaunch) ++launches_by_thread[e.launch.thread];
  }
  if (launches_by_thread.empty()) return absl::InvalidArgumentError("the trace has no kernel launch");
  const uint32_t thread =
      std::max_element(launches_by_thread.begin(), launches_by_thread.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; })
          ->first;
  std::vector<Iteration> iterations;
  bool synced = false;
  Iteration current;
  for (const TraceEvent& e : trace.events) {
    if (e.launch.thread != thread) continue;
    if (e.launch.event == kSync) {
      if (synced && !current.launches.empty()) {
        current.end_ns = e.launch.time_ns;
        iterations.push_back(std::move(current));
      }
      current = Iteration{};
      current.start_ns = e.launch.time_ns;
      synced = true;
    } else if (e.launch.event == kLaunch && synced) {
      current.launches.push_back(&e);
    }
  }
  const size_t first = iterations.size() / 5;
  const size_t last = iterations.size() - iterations.size() / 10;
  if (iterations.size() < 2 * kMinIterations || last - first < kMinIterations) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the trace has ", iterations.size(), " iterations (launches between two synchronising "
        "calls of one thread); at least ", kMinIterations * 2, " are needed"));
  }
  // The most common kernel sequence among the steady iterations.
  std::vector<std::vector<uint32_t>> sequences(last - first);
  std::map<std::vector<uint32_t>, size_t> seen;
  for (size_t i = first; i < last; ++i) {
    for (const TraceEvent* e : iterations[i].launches) {
      sequences[i - first].push_back(e->launch.kernel);
    }
    ++seen[sequences[i - first]];
  }
  const std::vector<uint32_t>& pattern =
      std::max_element(seen.begin(), seen.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; })
          ->first;
  const Iteration* representative = nullptr;
  std::vector<double> wall_ns;
  for (size_t i = first; i < last; ++i) {
    if (sequences[i - first] != pattern) continue;
    if (representative == nullptr) representative = &iterations[i];
    wall_ns.push_back(double(iterations[i].end_ns - iterations[i].start_ns));
  }
  // Each kernel's mean timed duration, over the whole trace.
  std::map<uint32_t, std::pair<double, size_t>> timed;
  double timed_sum = 0;
  size_t timed_count = 0;
  for (const TraceEvent& e : trace.events) {
    if (e.launch.event != kLaunch || e.gpu_ns == 0) continue;
    auto& [sum, n] = timed[e.launch.kernel];
    sum += double(e.gpu_ns);
    ++n;
    timed_sum += double(e.gpu_ns);
    ++timed_count;
  }
  if (timed_count == 0) {
    return absl::InvalidArgumentError(
        "no launch in the trace was timed (IASHIM_SAMPLE_EVERY=0?): kernel durations unknown");
  }
  std::map<uint32_t, double> mean_ns;
  for (const auto& [kernel, sum_n] : timed) mean_ns[kernel] = sum_n.first / double(sum_n.second);
  // Kernels never timed (1 launch in IASHIM_SAMPLE_EVERY is): what the
  // iteration's wall time leaves after its host time before the first launch
  // and its timed kernels, shared evenly; the mean timed duration if nothing
  // is left.
  const double wall = Median(wall_ns);
  std::vector<double> lead_ns;
  for (size_t i = first; i < last; ++i) {
    if (!iterations[i].launches.empty()) {
      lead_ns.push_back(double(iterations[i].launches.front()->launch.time_ns - iterations[i].start_ns));
    }
  }
  double known_ns = 0;
  size_t unknown = 0;
  for (const TraceEvent* e : representative->launches) {
    const auto t = mean_ns.find(e->launch.kernel);
    if (t != mean_ns.end()) {
      known_ns += t->second;
    } else {
      ++unknown;
    }
  }
  double unknown_each = timed_sum / double(timed_count);
  if (unknown > 0) {
    const double left = wall - Median(lead_ns) - known_ns;
    if (left > 0) unknown_each = left / double(unknown);
  }
  TraceJob out;
  out.unsampled_kernels = unknown;
  double gpu_ns = 0;
  for (const TraceEvent* e : representative->launches) {
    const auto t = mean_ns.find(e->launch.kernel);
    const double ns = t != mean_ns.end() ? t->second : unknown_each;
    const std::string name = trace.NameOf(e->launch.kernel);
    double mem = options.default_mem_intensity;
    for (const auto& [substring, intensity] : options.mem_rules) {
      if (name.find(substring) != std::string::npos) {
        mem = intensity;
        break;
      }
    }
    const uint64_t blocks = uint64_t(e->launch.grid[0]) * std::max(1u, e->launch.grid[1]) *
                            std::max(1u, e->launch.grid[2]);
    simgpu::Op op{};
    op.kind = simgpu::OpKind::kKernel;
    op.remaining_ns = ns;
    op.mem_intensity = float(mem);
    op.sm_fill = simgpu::KernelModel::SmFill(blocks, options.sm_count);
    op.event_slot = -1;
    out.job.iteration.push_back({0, op});
    gpu_ns += ns;
  }
  out.job.host_gap_ns = std::max(0.0, wall - gpu_ns);
  out.measured_it_per_s = wall > 0 ? 1e9 / wall : 0;
  out.iterations_used = wall_ns.size();
  out.kernels_per_iteration = representative->launches.size();
  out.gpu_ms_per_iteration = gpu_ns / 1e6;
  out.host_ms_per_iteration = out.job.host_gap_ns / 1e6;
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, double>>> ParseMemRules(const std::string& text) {
  std::vector<std::pair<std::string, double>> rules;
  if (text.empty()) return rules;
  const std::vector<std::string> parts = absl::StrSplit(text, ',');
  for (const std::string& part : parts) {
    const size_t eq = part.find('=');
    const std::optional<double> v =
        eq == std::string::npos ? std::nullopt
                                : ParseDouble(std::string_view(part).substr(eq + 1), 0, 1);
    if (eq == 0 || !v) {
      return absl::InvalidArgumentError(absl::StrCat(
          "memory rule '", part, "' is not NAME=INTENSITY with an intensity in 0..1 (e.g. triad=0.95)"));
    }
    rules.emplace_back(std::string(part.substr(0, eq)), *v);
  }
  return rules;
}

}  // namespace iashim::predict
