// What the coordinator shows: the state snapshot (PUB stream, `iashim status`)
// and the Prometheus metrics.
#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/wire_convert.h"
#include "coordinator/metrics/prometheus_text.h"
#include "coordinator/policy/cluster_state.h"

namespace iashim::daemon {
namespace {

constexpr const char* kVersion = "0.1.0";

double SlowdownOrUnknown(const Job& job) {
  const std::optional<double> s = Slowdown(job);
  return s && std::isfinite(*s) ? std::max(*s, -0.99) : -1.0;
}

// A guaranteed job's run slowdown so far; -1 when unknown or opportunistic.
double RunSlowdownOrUnknown(const Job& job) {
  return job.priority == policy::Priority::kGuaranteed ? job.run.Slowdown().value_or(-1.0) : -1.0;
}

// Busy fraction each gang's ranks add to their GPUs: a gang is listed once,
// but runs on all of them.
std::map<policy::GpuId, double> GangBusy(const std::map<std::string, Job>& jobs) {
  std::map<policy::GpuId, double> busy;
  for (const auto& [id, job] : jobs) {
    if (!job.is_gang() || !job.connected) continue;
    for (const auto& [rank, r] : job.ranks) {
      const std::optional<policy::GpuId> gpu = RankGpu(job, rank);
      if (r.connected && gpu) busy[*gpu] += r.profile.busy().value_or(0);
    }
  }
  return busy;
}

// Device memory in use on each GPU: a one-GPU job's on its GPU, each rank's of
// a gang on the rank's (its row, under its first GPU, shows its lead's).
std::map<policy::GpuId, uint64_t> MemoryUsed(const std::map<std::string, Job>& jobs) {
  std::map<policy::GpuId, uint64_t> used;
  for (const auto& [id, job] : jobs) {
    if (!job.is_gang()) {
      if (job.gpu) used[*job.gpu] += job.mem_used_bytes;
      continue;
    }
    for (const auto& [rank, r] : job.ranks) {
      if (const std::optional<policy::GpuId> gpu = RankGpu(job, rank)) used[*gpu] += r.mem_used_bytes;
    }
  }
  return used;
}

// A gang's GPU indexes and its ranks, for JobState (empty for a one-GPU job).
struct GangFields {
  std::vector<int32_t> gpus;
  std::vector<flatbuffers::Offset<wire::RankState>> ranks;
};
GangFields EncodeGang(flatbuffers::FlatBufferBuilder& fbb, const Job& job) {
  GangFields g;
  if (!job.is_gang()) return g;
  for (const policy::GpuId& id : job.gang_gpus) g.gpus.push_back(id.index);
  for (const auto& [rank, r] : job.ranks) {
    const std::optional<policy::GpuId> gpu = RankGpu(job, rank);
    g.ranks.push_back(wire::CreateRankState(fbb, rank, r.pid, gpu ? gpu->index : -1, r.connected,
                                            uint64_t(r.profile.iteration_ns().value_or(0)),
                                            r.profile.kernels_per_s().value_or(0),
                                            RankSlack(job, rank).value_or(-1)));
  }
  return g;
}

}  // namespace

std::optional<double> Coordinator::JoulesPerIteration(const Job& job) const {
  const std::optional<double> iteration_ns = IterationNs(job);
  if (!iteration_ns) return std::nullopt;
  return energy_.JoulesPerIteration(job.id, *iteration_ns / 1e9);
}

std::string Coordinator::EncodeSnapshot(int64_t now_ns, int64_t unix_ns,
                                        const SnapshotExtras& extras) {
  flatbuffers::FlatBufferBuilder fbb(4096);
  // Each cluster GPU in order, then one pseudo-GPU (id -1) for unplaced jobs.
  std::vector<std::pair<std::optional<policy::GpuId>, const policy::GpuInfo*>> gpus;
  for (const policy::GpuInfo& g : cluster_.gpus) gpus.push_back({g.id, &g});
  // Jobs by GPU in one pass (in id order, as before): with thousands of jobs,
  // one pass per GPU made each snapshot GPUs x jobs (bench/load/README.md).
  std::map<std::optional<policy::GpuId>, std::vector<const Job*>> jobs_by_gpu;
  for (const auto& [id, job] : jobs_) jobs_by_gpu[job.gpu].push_back(&job);
  if (jobs_by_gpu.contains(std::nullopt)) gpus.push_back({std::nullopt, nullptr});
  const std::map<policy::GpuId, double> gang_busy = GangBusy(jobs_);
  const std::map<policy::GpuId, uint64_t> memory_used = MemoryUsed(jobs_);
  std::vector<flatbuffers::Offset<wire::GpuState>> gpu_states;
  for (const auto& [gid, info] : gpus) {
    std::vector<flatbuffers::Offset<wire::JobState>> job_states;
    double busy = 0;
    if (gid) {
      if (const auto it = gang_busy.find(*gid); it != gang_busy.end()) busy += it->second;
    }
    for (const Job* j : jobs_by_gpu[gid]) {
      const Job& job = *j;
      const std::string& id = job.id;
      const double job_busy = job.connected ? job.profile.busy().value_or(0) : 0;
      if (!job.is_gang()) busy += job_busy;  // a gang's is in gang_busy, GPU by GPU
      // 0 = no budget sent; a budget sent this very millisecond shows as 1 ms.
      const uint64_t budget_age_ms =
          job.budget_sent_ns == 0
              ? 0
              : uint64_t(std::max<int64_t>(1, (now_ns - job.budget_sent_ns) / 1'000'000));
      flatbuffers::Offset<wire::BatchJob> batch;
      if (!job.batch.system.empty()) {
        batch = wire::CreateBatchJobDirect(fbb, job.batch.system.c_str(), job.batch.job.c_str(),
                                           job.batch.step.c_str(), job.batch.task);
      }
      const GangFields gang = EncodeGang(fbb, job);
      std::vector<flatbuffers::Offset<flatbuffers::String>> beside_guaranteed;
      for (const std::string& y : GuaranteedBeside(job))
        beside_guaranteed.push_back(fbb.CreateString(y));
      flatbuffers::Offset<wire::ShareSource> share_set_by;
      if (job.share_set_by) {
        std::vector<flatbuffers::Offset<flatbuffers::String>> defends;
        for (const std::string& g : job.share_set_by->defends)
          defends.push_back(fbb.CreateString(g));
        share_set_by = wire::CreateShareSourceDirect(fbb, job.share_set_by->gpu.host.c_str(),
                                                     job.share_set_by->gpu.index, &defends);
      }
      job_states.push_back(wire::CreateJobStateDirect(
          fbb, id.c_str(), job.pid, job.host.c_str(), job.command.c_str(), ToWire(job.priority),
          job.share, 0, SlowdownOrUnknown(job), job.slowdown_target,
          job.profile.kernels_per_s().value_or(0), job_busy, uint64_t(IterationNs(job).value_or(0)),
          uint64_t(job.profile.baseline_iteration_ns().value_or(0)), job.mem_used_bytes,
          job.mem_limit_bytes ? job.mem_limit_bytes : job.mem_bytes, budget_age_ms, job.held_per_s,
          job.connected, batch, ToWire(job.profile.baseline_source()), job.probe.active(),
          energy_.Joules(id).value_or(-1.0), JoulesPerIteration(job).value_or(-1.0),
          job.is_gang() ? &gang.gpus : nullptr, job.is_gang() ? &gang.ranks : nullptr, job.lost,
          RunSlowdownOrUnknown(job), beside_guaranteed.empty() ? nullptr : &beside_guaranteed,
          LoopTargetOrUnknown(job), share_set_by, job.profile.cpu_wait().value_or(-1.0),
          job.profile.baseline_contended()));
    }
    flatbuffers::Offset<wire::LoopState> loop;
    if (gid) {
      if (const auto d = loop_decisions_.find(*gid); d != loop_decisions_.end()) {
        loop = wire::CreateLoopStateDirect(fbb, d->second.action.c_str(),
                                           d->second.worst_ratio.value_or(-1.0),
                                           d->second.calm_below, d->second.aim);
      }
    }
    gpu_states.push_back(wire::CreateGpuStateDirect(
        fbb, gid ? gid->index : -1, gid ? gid->host.c_str() : "", info ? info->name.c_str() : "unplaced",
        info ? info->uuid.c_str() : "", info ? info->memory_bytes : 0, std::min(busy, 1.0),
        &job_states, gid && drained_.contains(*gid),
        gid ? energy_.PowerWatts(*gid).value_or(-1.0) : -1.0,
        gid && memory_used.contains(*gid) ? int64_t(memory_used.at(*gid)) : (gid ? 0 : -1),
        gid ? nodes_.LostForS(gid->host, now_ns).value_or(-1.0) : -1.0, loop));
  }
  // Expired ones are dropped first: a snapshot never shows one.
  reservations_.Expire(now_ns);
  std::vector<flatbuffers::Offset<wire::Reservation>> reservations;
  for (const Reservation& r : reservations_.held()) {
    reservations.push_back(wire::CreateReservationDirect(
        fbb, r.host.c_str(), &r.gpus, ToWire(r.priority), r.kind.c_str(), r.mem_bytes,
        double(r.expires_ns - now_ns) / 1e9));
  }
  std::vector<flatbuffers::Offset<wire::LearnedPair>> learned;
  if (extras.pairs) {
    for (const policy::LearnedPair& p : interference_.LearnedPairs()) {
      learned.push_back(wire::CreateLearnedPairDirect(
          fbb, p.victim.c_str(), p.aggressor.c_str(), uint64_t(p.observations), p.measured,
          p.predicted, p.model_only, p.uncertainty));
    }
  }
  std::vector<flatbuffers::Offset<wire::LoggedEvent>> events;
  if (extras.events) {
    for (const Event* e : events_.Recent(extras.events_of)) {
      std::vector<flatbuffers::Offset<flatbuffers::String>> jobs;
      for (const std::string& j : e->jobs) jobs.push_back(fbb.CreateString(j));
      events.push_back(
          wire::CreateLoggedEventDirect(fbb, uint64_t(e->unix_ns), &jobs, e->text.c_str()));
    }
  }
  const auto snapshot = wire::CreateStateSnapshotDirect(
      fbb, ++snapshot_seq_, uint64_t(unix_ns), kVersion, double(now_ns - started_ns_) / 1e9,
      &gpu_states, counters_.invalid + counters_.wrong_version + counters_.unexpected,
      store_ != nullptr && !store_->write_error().ok()
          ? std::string(store_->write_error().message()).c_str()
          : nullptr,
      extras.pairs ? &learned : nullptr, &reservations, extras.events ? &events : nullptr);
  return EnvelopeBytes(fbb, wire::Payload::StateSnapshot, snapshot.Union());
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
  b.Counter("iashim_refused_claims_total",
            "Hellos refused (job id held by another process, or without the job's token).");
  b.Sample(double(counters_.refused_claims));
  b.Counter("iashim_refused_tokens_total",
            "Hellos and releases refused for a missing or wrong job token.");
  b.Sample(double(counters_.refused_tokens));
  b.Counter("iashim_admin_requests_total", "Admin requests (drain, undrain, priority), by outcome.");
  b.Sample({{"outcome", "applied"}}, double(counters_.admin_actions));
  b.Sample({{"outcome", "refused_no_admin_key"}}, double(counters_.admin_refused));
  b.Gauge("iashim_gpus_drained", "GPUs placement puts no new job on (iashim drain).");
  b.Sample(double(drained_.size()));
  b.Gauge("iashim_nodes_lost", "Nodes whose every job fell silent without a Goodbye.");
  b.Sample(double(nodes_.lost_count()));
  b.Counter("iashim_events_dropped_total",
            "Event log lines dropped before the daemon wrote them (more than it buffers).");
  b.Sample(double(events_.dropped()));
  b.Counter("iashim_solo_probes_total",
            "Solo probes of guaranteed jobs that never ran alone, by outcome.");
  b.Sample({{"outcome", "started"}}, double(counters_.probes_started));
  b.Sample({{"outcome", "measured"}}, double(counters_.probes_measured));
  b.Sample({{"outcome", "timed_out"}}, double(counters_.probes_timed_out));
  b.Sample({{"outcome", "aborted"}}, double(counters_.probes_aborted));
  b.Sample({{"outcome", "cpu_contended"}}, double(counters_.probes_cpu_contended));
  b.Counter("iashim_budgets_sent_total", "Budget messages sent to shims.");
  b.Sample(double(counters_.budgets_sent));
  b.Counter("iashim_placements_total", "Jobs placed.");
  b.Sample(double(counters_.placements));
  b.Counter("iashim_dry_runs_total", "Placement requests answered as dry runs (nothing placed).");
  b.Sample(double(counters_.dry_runs));
  b.Gauge("iashim_reservations",
          "GPU holds of placed dry runs awaiting their job's real request (--reservation-ttl-s).");
  b.Sample(double(reservations_.LiveCount(now_ns)));
  b.Counter("iashim_reservations_expired_total",
            "Reservations that expired before a real request took them over.");
  b.Sample(double(reservations_.expired_total(now_ns)));
  b.Counter("iashim_reservations_consumed_total",
            "Reservations taken over by a real placement request on their host.");
  b.Sample(double(reservations_.consumed_total()));
  b.Counter("iashim_reservations_yielded_total",
            "Reservations dropped for a job Slurm started on their host that would otherwise "
            "wait there for their GPUs.");
  b.Sample(double(reservations_.yielded_total()));
  b.Counter("iashim_releases_total", "Release requests (a job is over), by outcome.");
  b.Sample({{"outcome", "released"}}, double(counters_.releases));
  b.Sample({{"outcome", "unknown_job"}}, double(counters_.release_unknown));
  b.Sample({{"outcome", "wrong_token"}}, double(counters_.release_refused));
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
  if (store_ != nullptr) {
    b.Gauge("iashim_state_write_failing",
            "1 while the state dir refuses writes (e.g. full): changes are kept in memory and "
            "written when it has room; else 0.");
    b.Sample(store_->write_error().ok() ? 0.0 : 1.0);
    b.Gauge("iashim_state_records", "What the state store holds (in memory), by kind.");
    b.Sample({{"kind", "jobs"}}, double(store_->state().jobs.size()));
    b.Sample({{"kind", "baselines"}}, double(store_->state().baselines.size()));
    b.Sample({{"kind", "observations"}}, double(store_->state().observations.size()));
    b.Gauge("iashim_state_budget_seq", "The highest budget sequence number handed out.");
    b.Sample(double(store_->state().budget_seq));
  }
  b.Gauge("iashim_jobs", "Jobs known, by connection state.");
  size_t connected = 0;
  for (const auto& [id, job] : jobs_) connected += job.connected;
  b.Sample({{"state", "connected"}}, double(connected));
  b.Sample({{"state", "disconnected"}}, double(jobs_.size() - connected));
  auto per_job = [&](const char* name, const char* help, auto value) {
    b.Gauge(name, help);
    for (const auto& [id, job] : jobs_) {
      if (!job.connected) continue;
      b.Sample({{"job", id},
                {"gpu", GpusName(job)},
                {"priority",
                 job.priority == policy::Priority::kGuaranteed ? "guaranteed" : "opportunistic"}},
               value(job));
    }
  };
  per_job("iashim_job_share", "Share of GPU time in force.", [](const Job& j) { return j.share; });
  per_job("iashim_job_slowdown", "Slowdown against the solo baseline (-1 = unknown).",
          [](const Job& j) { return SlowdownOrUnknown(j); });
  per_job("iashim_job_run_slowdown",
          "A guaranteed job's run so far: wall time over time alone, minus 1 (-1 = unknown or "
          "opportunistic).",
          [](const Job& j) { return RunSlowdownOrUnknown(j); });
  per_job("iashim_job_loop_target",
          "The slowdown the control loop holds a guaranteed job to now: its target, or less "
          "while its run is repaid (-1 = not held as a guaranteed job).",
          [this](const Job& j) { return LoopTargetOrUnknown(j); });
  per_job("iashim_job_kernels_per_second", "Kernel launches per second.",
          [](const Job& j) { return j.profile.kernels_per_s().value_or(0); });
  per_job("iashim_job_busy", "Estimated fraction of time the job's kernels run.",
          [](const Job& j) { return j.profile.busy().value_or(0); });
  per_job("iashim_job_memory_bytes", "Device memory in use.",
          [](const Job& j) { return double(j.mem_used_bytes); });
  per_job("iashim_job_energy_joules",
          "Energy of its GPU attributed to the job by GPU time since it connected (-1 = unknown).",
          [this](const Job& j) { return energy_.Joules(j.id).value_or(-1.0); });
  per_job("iashim_job_energy_per_iteration_joules",
          "Attributed energy per training iteration (-1 = unknown).",
          [this](const Job& j) { return JoulesPerIteration(j).value_or(-1.0); });
  absl::StatusOr<std::string> text = std::move(b).Finish();
  return text.ok() ? *text : absl::StrCat("# metrics error: ", text.status().message(), "\n");
}

}  // namespace iashim::daemon
