// What the coordinator shows: the state snapshot (PUB stream, `iashim status`)
// and the Prometheus metrics.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "daemon/coordinator.h"
#include "daemon/wire_convert.h"
#include "metrics/prometheus_text.h"
#include "policy/cluster_state.h"

namespace iashim::daemon {
namespace {

constexpr const char* kVersion = "0.1.0";

double SlowdownOrUnknown(const Job& job) {
  const std::optional<double> s = job.profile.slowdown();
  return s && std::isfinite(*s) ? std::max(*s, -0.99) : -1.0;
}

}  // namespace

std::string Coordinator::EncodeSnapshot(int64_t now_ns, int64_t unix_ns) {
  flatbuffers::FlatBufferBuilder fbb(4096);
  // Each cluster GPU in order, then one pseudo-GPU (id -1) for unplaced jobs.
  std::vector<std::pair<std::optional<policy::GpuId>, const policy::GpuInfo*>> gpus;
  for (const policy::GpuInfo& g : cluster_.gpus) gpus.push_back({g.id, &g});
  bool unplaced = false;
  for (const auto& [id, job] : jobs_) unplaced |= !job.gpu;
  if (unplaced) gpus.push_back({std::nullopt, nullptr});
  std::vector<flatbuffers::Offset<wire::GpuState>> gpu_states;
  for (const auto& [gid, info] : gpus) {
    std::vector<flatbuffers::Offset<wire::JobState>> job_states;
    double busy = 0;
    for (const auto& [id, job] : jobs_) {
      if (job.gpu != gid) continue;
      const double job_busy = job.connected ? job.profile.busy().value_or(0) : 0;
      busy += job_busy;
      // 0 = no budget sent; a budget sent this very millisecond shows as 1 ms.
      const uint64_t budget_age_ms =
          job.budget_sent_ns == 0
              ? 0
              : uint64_t(std::max<int64_t>(1, (now_ns - job.budget_sent_ns) / 1'000'000));
      job_states.push_back(wire::CreateJobStateDirect(
          fbb, id.c_str(), job.pid, job.host.c_str(), job.command.c_str(), ToWire(job.priority),
          job.share, 0, SlowdownOrUnknown(job), job.slowdown_target,
          job.profile.kernels_per_s().value_or(0), job_busy,
          uint64_t(job.profile.iteration_ns().value_or(0)),
          uint64_t(job.profile.baseline_iteration_ns().value_or(0)), job.mem_used_bytes,
          job.mem_limit_bytes ? job.mem_limit_bytes : job.mem_bytes, budget_age_ms,
          job.held_per_s, job.connected));
    }
    gpu_states.push_back(wire::CreateGpuStateDirect(
        fbb, gid ? gid->index : -1, gid ? gid->host.c_str() : "", info ? info->name.c_str() : "unplaced",
        info ? info->uuid.c_str() : "", info ? info->memory_bytes : 0, std::min(busy, 1.0),
        &job_states));
  }
  const auto snapshot = wire::CreateStateSnapshotDirect(
      fbb, ++snapshot_seq_, uint64_t(unix_ns), kVersion, double(now_ns - started_ns_) / 1e9,
      &gpu_states, counters_.invalid + counters_.wrong_version + counters_.unexpected);
  return FinishEnvelope(fbb, wire::Payload::StateSnapshot, snapshot.Union());
}

std::string Coordinator::MetricsText(int64_t now_ns) const {
  metrics::ExpositionBuilder b;
  b.Gauge("iashim_up_seconds", "Seconds since the coordinator started.");
  b.Sample(double(now_ns - started_ns_) / 1e9);
  b.Counter("iashim_messages_total", "Messages received on the ROUTER socket.");
  b.Sample(double(counters_.messages));
  b.Counter("iashim_messages_dropped_total", "Messages dropped, by reason.");
  b.Sample({{"reason", "invalid"}}, double(counters_.invalid));
  b.Sample({{"reason", "version"}}, double(counters_.wrong_version));
  b.Sample({{"reason", "unexpected"}}, double(counters_.unexpected));
  b.Sample({{"reason", "unbound_telemetry"}}, double(counters_.unbound_telemetry));
  b.Counter("iashim_refused_claims_total", "Hellos refused (job id held by another process).");
  b.Sample(double(counters_.refused_claims));
  b.Counter("iashim_budgets_sent_total", "Budget messages sent to shims.");
  b.Sample(double(counters_.budgets_sent));
  b.Counter("iashim_placements_total", "Jobs placed.");
  b.Sample(double(counters_.placements));
  b.Counter("iashim_interference_observations_total",
            "Co-locations the interference model learned from.");
  b.Sample(double(interference_.observations()));
  b.Gauge("iashim_interference_prediction_mae",
          "Mean |predicted - observed| normalised throughput, each observation predicted before "
          "it was learned (-1 = none yet).");
  const policy::PredictionError err = interference_.error();
  b.Sample(err.predictions > 0 ? err.mean_abs_error : -1.0);
  b.Counter("iashim_state_errors_total", "State store writes that failed.");
  b.Sample(double(counters_.state_errors));
  b.Gauge("iashim_jobs", "Jobs known, by connection state.");
  size_t connected = 0;
  for (const auto& [id, job] : jobs_) connected += job.connected;
  b.Sample({{"state", "connected"}}, double(connected));
  b.Sample({{"state", "disconnected"}}, double(jobs_.size() - connected));
  auto per_job = [&](const char* name, const char* help, auto value) {
    b.Gauge(name, help);
    for (const auto& [id, job] : jobs_) {
      if (!job.connected) continue;
      b.Sample({{"job", id}, {"gpu", job.gpu ? policy::GpuName(*job.gpu) : "unplaced"},
                {"priority", job.priority == policy::Priority::kGuaranteed ? "guaranteed"
                                                                           : "opportunistic"}},
               value(job));
    }
  };
  per_job("iashim_job_share", "Share of GPU time in force.", [](const Job& j) { return j.share; });
  per_job("iashim_job_slowdown", "Slowdown against the solo baseline (-1 = unknown).",
          [](const Job& j) { return SlowdownOrUnknown(j); });
  per_job("iashim_job_kernels_per_second", "Kernel launches per second.",
          [](const Job& j) { return j.profile.kernels_per_s().value_or(0); });
  per_job("iashim_job_busy", "Estimated fraction of time the job's kernels run.",
          [](const Job& j) { return j.profile.busy().value_or(0); });
  per_job("iashim_job_memory_bytes", "Device memory in use.",
          [](const Job& j) { return double(j.mem_used_bytes); });
  absl::StatusOr<std::string> text = std::move(b).Finish();
  return text.ok() ? *text : absl::StrCat("# metrics error: ", text.status().message(), "\n");
}

}  // namespace iashim::daemon
