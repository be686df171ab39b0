// iashim-loadgen: many simulated shims against one running coordinator
// (README.md in this folder). Prints figures every --report-every seconds and
// at the end; exit 0 when the run completed (the figures say how it went),
// 1 when it could not run, 2 on a bad command line.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "absl/strings/str_format.h"
#include "bench/load/cluster_layout.h"
#include "bench/load/coordinator_probe.h"
#include "bench/load/load_options.h"
#include "bench/load/load_stats.h"
#include "bench/load/rss_sampler.h"
#include "bench/load/shim_worker.h"

namespace iashim::load {
namespace {

constexpr int kProbeTimeoutMs = 2000;

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}

double Mib(uint64_t kib) { return double(kib) / 1024.0; }

// Each shim holds a socket: a few descriptors each.
void RaiseFileLimit(int shims) {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t want = std::min<rlim_t>(limit.rlim_max, rlim_t(shims) * 4 + 256);
  if (limit.rlim_cur < want) {
    limit.rlim_cur = want;
    (void)setrlimit(RLIMIT_NOFILE, &limit);
  }
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < rlim_t(shims) * 3 + 64) {
    std::fprintf(stderr, "iashim-loadgen: warning: %llu open files allowed, %d shims need about %d\n",
                 (unsigned long long)limit.rlim_cur, shims, shims * 3 + 64);
  }
}

int Run(const LoadOptions& o) {
  RaiseFileLimit(o.shims);
  zmq::context_t context(1);
  context.set(zmq::ctxopt::max_sockets, o.shims + 256);
  LoadStats stats;
  ConnectedPids connected;
  std::atomic<int> next_pid{10000 + o.shims};
  CoordinatorProbe probe(context, o.endpoint);
  {
    absl::StatusOr<SnapshotView> first = probe.Snapshot(kProbeTimeoutMs);
    if (!first.ok()) {
      std::fprintf(stderr, "iashim-loadgen: the coordinator does not answer: %s\n",
                   std::string(first.status().message()).c_str());
      return 1;
    }
  }
  std::unique_ptr<RssSampler> rss;
  if (o.coordinator_pid != 0) {
    if (!ReadRssKib(o.coordinator_pid)) {
      std::fprintf(stderr, "iashim-loadgen: --coordinator-pid %d: no VmRSS in /proc/%d/status\n",
                   o.coordinator_pid, o.coordinator_pid);
      return 1;
    }
    rss = std::make_unique<RssSampler>(o.coordinator_pid, o.warmup_s);
  }
  const int gpus = GpuCount(o.shims, o.shims_per_gpu);
  std::printf("iashim-loadgen: %d shims on %d GPUs (%d per GPU, 1 guaranteed), %d threads, %.0f s, "
              "churn %.2f/s, window %d ms -> %s\n",
              o.shims, gpus, o.shims_per_gpu, o.threads, o.seconds, o.churn_per_s, o.window_ms,
              o.endpoint.c_str());
  std::fflush(stdout);
  // A GPU's shims share a thread: no more threads than GPUs.
  LoadOptions per_worker = o;
  per_worker.threads = std::min(o.threads, gpus);
  std::vector<std::unique_ptr<ShimWorker>> workers;
  for (int t = 0; t < per_worker.threads; ++t) {
    workers.push_back(
        std::make_unique<ShimWorker>(context, per_worker, &stats, &connected, &next_pid, t));
  }
  const uint64_t start = MonotonicNs();
  for (auto& w : workers) w->Start(start);

  const uint64_t end = start + uint64_t(o.seconds * 1e9);
  uint64_t next_report = start + uint64_t(o.report_every_s * 1e9);
  uint64_t last_report = start, last_sent = 0, last_received = 0, last_budgets = 0;
  uint64_t probe_failures = 0, last_connected = 0;
  for (uint64_t now = start; now < end; now = MonotonicNs()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<uint64_t>(1000, (end - now) / 1'000'000 + 1)));
    absl::StatusOr<SnapshotView> view = probe.Snapshot(kProbeTimeoutMs);
    if (view.ok()) {
      last_connected = view->connected;
      connected.Publish(std::move(view->connected_pids));
    } else {
      ++probe_failures;
    }
    now = MonotonicNs();
    if (now >= next_report && now < end) {
      const double dt = double(now - last_report) / 1e9;
      const uint64_t sent = stats.sent.load(), received = stats.received.load(),
                     budgets = stats.budgets.load();
      const Percentiles p = stats.TakeInterval();
      uint64_t dropped = 0;
      for (auto& w : workers) dropped += w->ended_unregistered();
      std::string rss_text;
      if (rss) {
        const RssSummary r = rss->Summary();
        rss_text = absl::StrFormat(" | coordinator RSS %.1f MiB (max %.1f)", Mib(r.end_kib), Mib(r.max_kib));
      }
      std::printf("[%5.0fs] sent %.0f/s received %.0f/s budgets %.0f/s | budget latency p50 %.2f "
                  "p99 %.2f max %.2f ms (%zu) | connected %llu, dropped so far %llu%s\n",
                  double(now - start) / 1e9, double(sent - last_sent) / dt,
                  double(received - last_received) / dt, double(budgets - last_budgets) / dt, p.p50_ms,
                  p.p99_ms, p.max_ms, p.count, (unsigned long long)last_connected,
                  (unsigned long long)dropped, rss_text.c_str());
      std::fflush(stdout);
      last_report = now;
      last_sent = sent;
      last_received = received;
      last_budgets = budgets;
      next_report += uint64_t(o.report_every_s * 1e9);
    }
  }
  for (auto& w : workers) w->Stop();
  for (auto& w : workers) w->Flush();
  const uint64_t stopped = MonotonicNs();
  const double elapsed_s = double(stopped - start) / 1e9;

  // The final snapshot, retried briefly: a Hello sent just before the end may
  // still be queued behind other shims' messages.
  EndFigures f;
  uint64_t invalid_in_snapshot = 0;
  bool final_ok = false;
  for (int attempt = 0; attempt < 8; ++attempt) {
    absl::StatusOr<SnapshotView> view = probe.Snapshot(kProbeTimeoutMs);
    if (!view.ok()) continue;
    final_ok = true;
    invalid_in_snapshot = view->invalid_messages;
    for (auto& w : workers) w->MarkConnected(view->connected_pids, true);
    f = {};
    for (auto& w : workers) {
      const EndFigures g = w->Figures(stopped);
      f.live += g.live;
      f.live_registered += g.live_registered;
      f.live_connected += g.live_connected;
      f.refused += g.refused;
      f.budget_eligible += g.budget_eligible;
      f.budget_never += g.budget_never;
    }
    if (f.live_connected == f.live) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  uint64_t dropped = f.live - f.live_registered;
  for (auto& w : workers) dropped += w->ended_unregistered();
  std::map<std::string, double> counters;
  std::string metrics_error;
  if (!o.metrics.empty()) {
    absl::StatusOr<std::map<std::string, double>> m = ScrapeMetrics(o.metrics, 3000);
    if (m.ok()) {
      counters = *std::move(m);
    } else {
      metrics_error = std::string(m.status().message());
    }
  }
  for (auto& w : workers) w->LeaveAll();
  RssSummary r;
  if (rss) {
    rss->Stop();
    r = rss->Summary();
  }
  const Percentiles p = stats.Overall();
  const double sent_per_s = double(stats.sent.load()) / elapsed_s;
  const double received_per_s = double(stats.received.load()) / elapsed_s;

  std::printf("\n== iashim-loadgen: %.1f s, %d shims, churn %.2f/s ==\n", elapsed_s, o.shims,
              o.churn_per_s);
  std::printf("messages: sent %.0f/s, received %.0f/s (%llu sent, %llu received, %llu dropped by "
              "the shims' full queues)\n",
              sent_per_s, received_per_s, (unsigned long long)stats.sent.load(),
              (unsigned long long)stats.received.load(), (unsigned long long)stats.shim_dropped.load());
  std::printf("budgets: %llu received (%llu stale), delivery latency p50 %.3f ms, p99 %.3f ms, max "
              "%.3f ms over %zu\n",
              (unsigned long long)stats.budgets.load(), (unsigned long long)stats.budgets_stale.load(),
              p.p50_ms, p.p99_ms, p.max_ms, p.count);
  std::printf("registrations: %llu shim processes started, %llu left by churn; %llu live, %llu "
              "connected in the final snapshot; dropped %llu (refused %llu)%s\n",
              (unsigned long long)stats.joins.load(), (unsigned long long)stats.leaves.load(),
              (unsigned long long)f.live, (unsigned long long)f.live_connected,
              (unsigned long long)dropped, (unsigned long long)stats.advice_refused.load(),
              final_ok ? "" : " [NO FINAL SNAPSHOT]");
  std::printf("advice: %llu SendHello answered; %llu invalid or unexpected messages received\n",
              (unsigned long long)stats.advice_send_hello.load(),
              (unsigned long long)stats.received_invalid.load());
  std::printf("opportunistic shims on a shared GPU (>= %.0f s old): %llu, without any budget: %llu\n",
              kBudgetGraceS, (unsigned long long)f.budget_eligible, (unsigned long long)f.budget_never);
  std::printf("coordinator: %llu invalid messages (snapshot); %llu snapshot probes failed\n",
              (unsigned long long)invalid_in_snapshot, (unsigned long long)probe_failures);
  for (const auto& [name, value] : counters) std::printf("  %s %.0f\n", name.c_str(), value);
  if (!metrics_error.empty()) std::printf("  /metrics: %s\n", metrics_error.c_str());
  if (rss) {
    std::printf("coordinator RSS: after warm-up (%.0f s) %.1f MiB, end %.1f MiB, max %.1f MiB, "
                "second-half slope %.1f KiB/min (%zu samples)%s\n",
                o.warmup_s, Mib(r.warmup_kib), Mib(r.end_kib), Mib(r.max_kib),
                r.second_half_slope_kib_per_min, r.samples,
                rss->alive() ? "" : " [COORDINATOR WENT AWAY]");
  }
  if (o.json) {
    std::printf("{\n");
    std::printf("  \"seconds\": %.1f,\n  \"shims\": %d,\n  \"churn_per_s\": %.3f,\n", elapsed_s,
                o.shims, o.churn_per_s);
    std::printf("  \"sent_per_s\": %.1f,\n  \"received_per_s\": %.1f,\n", sent_per_s, received_per_s);
    std::printf("  \"shim_dropped\": %llu,\n", (unsigned long long)stats.shim_dropped.load());
    std::printf("  \"budgets\": %llu,\n  \"latency_count\": %zu,\n", (unsigned long long)stats.budgets.load(),
                p.count);
    std::printf("  \"latency_p50_ms\": %.3f,\n  \"latency_p99_ms\": %.3f,\n  \"latency_max_ms\": %.3f,\n",
                p.p50_ms, p.p99_ms, p.max_ms);
    std::printf("  \"joins\": %llu,\n  \"leaves\": %llu,\n", (unsigned long long)stats.joins.load(),
                (unsigned long long)stats.leaves.load());
    std::printf("  \"live\": %llu,\n  \"connected\": %llu,\n  \"dropped_registrations\": %llu,\n",
                (unsigned long long)f.live, (unsigned long long)f.live_connected,
                (unsigned long long)dropped);
    std::printf("  \"refused\": %llu,\n  \"final_snapshot\": %s,\n",
                (unsigned long long)stats.advice_refused.load(), final_ok ? "true" : "false");
    std::printf("  \"opportunistic_shared\": %llu,\n  \"opportunistic_without_budget\": %llu,\n",
                (unsigned long long)f.budget_eligible, (unsigned long long)f.budget_never);
    std::printf("  \"coordinator_invalid_messages\": %llu,\n", (unsigned long long)invalid_in_snapshot);
    std::printf("  \"rss_samples\": %zu,\n  \"rss_warmup_kib\": %llu,\n  \"rss_end_kib\": %llu,\n",
                r.samples, (unsigned long long)r.warmup_kib, (unsigned long long)r.end_kib);
    std::printf("  \"rss_max_kib\": %llu,\n  \"rss_slope_kib_per_min\": %.1f\n}\n",
                (unsigned long long)r.max_kib, r.second_half_slope_kib_per_min);
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace
}  // namespace iashim::load

int main(int argc, char** argv) {
  using namespace iashim::load;
  absl::StatusOr<LoadOptions> options = ParseLoadOptions(std::vector<std::string>(argv + 1, argv + argc));
  if (!options.ok()) {
    std::fprintf(stderr, "iashim-loadgen: %s\n", std::string(options.status().message()).c_str());
    return 2;
  }
  if (options->help) {
    std::printf("%s", LoadUsage().c_str());
    return 0;
  }
  if (!options->write_cluster.empty()) {
    if (absl::Status s = WriteClusterFile(options->write_cluster, options->shims, options->shims_per_gpu);
        !s.ok()) {
      std::fprintf(stderr, "iashim-loadgen: %s\n", std::string(s.message()).c_str());
      return 1;
    }
    return 0;
  }
  try {
    return Run(*options);
  } catch (const zmq::error_t& e) {
    std::fprintf(stderr, "iashim-loadgen: ZeroMQ: %s\n", e.what());
    return 1;
  }
}
