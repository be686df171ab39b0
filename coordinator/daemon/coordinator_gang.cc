// A gang job's processes: one per rank. A torchrun-style gang starts a process
// per GPU, each under the same IASHIM_JOB and token; a process driving every
// GPU of the gang is its rank 0. The rank a process says (Hello.rank, from
// RANK or LOCAL_RANK) is its own; a process that says none takes the lowest
// rank no live process holds, so ranks follow the order of arrival.
//
// The job-level fields (identity, pid, host, connected) are the lead's: the
// lowest connected rank, whose windows feed the job's profile (baselines,
// fingerprint, kind, energy per iteration). Budgets go to every rank.
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/wire_convert.h"

namespace iashim::daemon {
namespace {

// The rank a Hello from `identity` (pid on host) takes in `job`, or why none.
absl::StatusOr<int> ChooseRank(const Job& job, std::string_view identity, int pid,
                               const std::string& host, int asked) {
  const int size = static_cast<int>(job.gang_gpus.size());
  if (asked < -1 || asked >= size) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "rank %d is not a rank of job '%s' (a gang of %d GPUs: ranks 0..%d)", asked, job.id, size,
        size - 1));
  }
  auto same_process = [&](const RankProcess& r) {
    return r.identity == identity || (r.pid == pid && r.host == host);
  };
  if (asked >= 0) {
    const auto it = job.ranks.find(asked);
    if (it != job.ranks.end() && it->second.connected && !same_process(it->second)) {
      return absl::AlreadyExistsError(absl::StrFormat("rank %d of job '%s' belongs to pid %d on %s",
                                                      asked, job.id, it->second.pid,
                                                      it->second.host));
    }
    return asked;
  }
  for (const auto& [rank, r] : job.ranks) {
    if (r.connected && same_process(r)) return rank;  // a reconnect keeps its rank
  }
  for (int rank = 0; rank < size; ++rank) {
    const auto it = job.ranks.find(rank);
    if (it == job.ranks.end() || !it->second.connected) return rank;
  }
  return absl::ResourceExhaustedError(absl::StrFormat(
      "job '%s' already has a live process for each of its %d ranks", job.id, size));
}

// The job-level process fields follow the lowest connected rank.
void FollowLead(Job& job) {
  for (const auto& [rank, r] : job.ranks) {
    if (!r.connected) continue;
    job.identity = r.identity;
    job.pid = r.pid;
    job.host = r.host;
    return;
  }
  job.identity.clear();
}

}  // namespace

int Coordinator::RankOf(const Job& job, std::string_view identity) {
  for (const auto& [rank, r] : job.ranks) {
    if (r.connected && r.identity == identity) return rank;
  }
  return -1;
}

void Coordinator::HelloFromRank(std::string_view identity, Job& job, int pid,
                                const std::string& host, const wire::Hello& hello, int64_t now_ns,
                                std::vector<Outgoing>* out) {
  const absl::StatusOr<int> rank = ChooseRank(job, identity, pid, host, hello.rank());
  if (!rank.ok()) {
    ++counters_.refused_claims;
    out->push_back({std::string(identity),
                    EncodeAdvice(wire::AdviceKind::Refused,
                                 absl::StrCat(rank.status().message(), "; running unmanaged"))});
    return;
  }
  // A shim says Hello every 10 s: logged only when the rank's process is new.
  const auto known = job.ranks.find(*rank);
  const bool again = known != job.ranks.end() && known->second.connected &&
                     known->second.identity == identity && known->second.pid == pid;
  // One routing id is one process: bound to another job, it is that job's no
  // more. Bound to this one, it says Hello again (every 10 s) and keeps every
  // rank it holds: a process driving several GPUs holds one per device, which
  // only its next telemetry would give back.
  if (Job* previous = BoundJob(identity); previous != nullptr && previous != &job) {
    DisconnectProcess(*previous, identity);
  }
  RankProcess& r = job.ranks.try_emplace(*rank, RankProcess{.profile = NewJobProfile()})
                       .first->second;
  if (r.connected && r.identity != identity) identity_to_job_.erase(r.identity);
  r.identity = std::string(identity);
  r.pid = pid;
  r.host = host;
  r.connected = true;
  r.last_seen_ns = now_ns;
  if (!job.connected) {
    for (const policy::GpuId& g : GpusOf(job)) ++connected_on_gpu_[g];
  }
  job.connected = true;
  if (!again) {
    events_.Add({job.id}, absl::StrFormat("%s rank %d %s: pid %d on %s", job.id, *rank,
                                          job.lost ? "heard again" : "connected", pid, host));
  }
  job.lost = false;
  job.last_seen_ns = now_ns;
  NodeHeard(host, now_ns);
  job.command = Clean(hello.command(), 256);
  if (hello.mem_limit_bytes() != 0) job.mem_limit_bytes = hello.mem_limit_bytes();
  identity_to_job_[r.identity] = job.id;
  hello_asked_ns_.erase(r.identity);
  const int lead_pid = job.pid;
  const std::string lead_host = job.host;
  FollowLead(job);
  if (job.pid != lead_pid || job.host != lead_host) Persist(job);
}

void Coordinator::DisconnectRank(Job& job, int rank) {
  const auto it = job.ranks.find(rank);
  if (it == job.ranks.end() || !it->second.connected) return;
  // With it go the other ranks its process held (the GPUs it drove).
  const std::string identity = it->second.identity;
  identity_to_job_.erase(identity);
  for (auto& [other, r] : job.ranks) {
    if (!r.connected || r.identity != identity) continue;
    r.identity.clear();
    r.connected = false;
  }
  for (const auto& [other, p] : job.ranks) {
    if (p.connected) return FollowLead(job);
  }
  Disconnect(job);  // its last process
}

void Coordinator::FoldDeviceWindows(Job& job, const RankProcess& process,
                                    const wire::TelemetryBatch& batch,
                                    const std::vector<int>& devices, bool solo,
                                    policy::BaselineSource origin, int64_t now_ns) {
  const int size = static_cast<int>(job.gang_gpus.size());
  // Copied: `process` may be one of the ranks written below.
  const std::string identity = process.identity;
  const int pid = process.pid;
  const std::string host = process.host;
  for (const int device : devices) {
    if (device >= size) continue;  // a GPU outside the gang (the job saw more than it was given)
    auto [it, added] = job.ranks.try_emplace(device, RankProcess{.profile = NewJobProfile()});
    RankProcess& r = it->second;
    if (added) r.profile.AdoptKernelNames(process.profile);  // they came before this GPU's rank
    const bool same_process = r.identity == identity || (r.pid == pid && r.host == host);
    if (r.connected && !same_process) continue;  // that GPU's rank is another process's
    if (r.connected && r.identity != identity) identity_to_job_.erase(r.identity);
    r.identity = identity;
    r.pid = pid;
    r.host = host;
    r.connected = true;
    r.last_seen_ns = now_ns;
    const policy::TelemetryWindow w = ToDeviceWindow(batch, device);
    r.profile.AddWindow(w, solo, origin);
    r.mem_used_bytes = w.mem_used_bytes;
  }
}

void Coordinator::DisconnectSilentRanks(Job& job, int64_t now_ns) {
  const int64_t timeout_ns = Ns(options_.heartbeat_timeout_s);
  std::vector<int> silent;
  for (const auto& [rank, r] : job.ranks) {
    if (r.connected && now_ns - r.last_seen_ns > timeout_ns) silent.push_back(rank);
  }
  for (const int rank : silent) DisconnectRank(job, rank);
}

}  // namespace iashim::daemon
