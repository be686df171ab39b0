// Moving a slowed job to a GPU that emptied (--move-command): a one-GPU
// opportunistic job throttled beside a guaranteed job, or sharing with
// another job, stays where it started until it ends, even when a GPU empties
// beside it and nothing waits for that GPU. Slurm can requeue a batch job
// onto another node, and a job that checkpoints resumes there; in
// iashim-clustersim this took `--iashim` from 0.994 to 0.978 of plain
// Slurm's mean JCT at the median of 128 segments (scripts/replay/RUNS.md,
// session 38). Which job moves is policy::SlowestToMove, the simulator's rule.
//
// Only to another node: Slurm starts a requeued batch job on the node it
// ran on only once the job's credential has expired, minutes later.
//
// A GPU counts as empty when no job is placed on it (connected or not), no
// dry run or earlier move holds it, nothing the batch system gave a waiting
// job claims it and it is not drained, and no job is waiting in the
// coordinator's queue; it must stay so for --move-after-empty-s, longer than
// the batch system takes to start a job that waits in its own queue.
#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/str_format.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/policy/move_choice.h"

namespace iashim::daemon {
namespace {

// A job asked to move is not asked again for this long: Slurm stops it,
// requeues it and starts it again in seconds (1.9 s on the live rig), and a
// command that failed is tried again after it.
constexpr int64_t kMoveAgainAfterNs = 60 * kSecond;

}  // namespace

double Coordinator::KeptFraction(const Job& job) const {
  if (const std::optional<double> slowdown = job.profile.slowdown(); slowdown && *slowdown > -1) {
    return 1 / (1 + *slowdown);
  }
  // Not measured against a baseline: a throttled job keeps at most its
  // share, and n jobs taking turns on a GPU 1/n each (running at once they
  // keep more or less than that, by how they interfere: a rank, not a
  // figure).
  const int sharing = job.gpu ? std::max(1, ConnectedOn(*job.gpu)) : 1;
  return std::min(job.share, 1.0 / sharing);
}

bool Coordinator::Movable(const Job& job) const {
  // Only a job that said it resumes from a checkpoint: requeued, any other
  // would start again from its first step.
  if (!job.movable || job.priority != policy::Priority::kOpportunistic || job.is_gang() ||
      !job.gpu || !job.connected || job.held) {
    return false;
  }
  // Requeuing restarts the whole batch script: only a job that is one.
  if (job.batch.system != "slurm" || job.batch.job.empty() || job.batch.step != "batch") {
    return false;
  }
  return ConnectedOn(*job.gpu) > 1;
}

void Coordinator::PlanMoves(int64_t now_ns) {
  // What placement sees on each GPU: its jobs, and the holds as the jobs
  // they are for.
  const policy::ClusterState view = PlacementView("");
  const std::set<policy::GpuId> claimed = ClaimedGpus("", now_ns);
  const bool queue_empty = waiting_.empty();
  const std::vector<std::string> lost = nodes_.LostHosts();
  std::vector<policy::GpuId> ready;  // empty long enough, in cluster order
  for (const policy::GpuInfo& g : cluster_.gpus) {
    if (view.jobs.contains(g.id) || claimed.contains(g.id) || drained_.contains(g.id) ||
        !queue_empty || std::find(lost.begin(), lost.end(), g.id.host) != lost.end()) {
      empty_since_ns_.erase(g.id);
      continue;
    }
    const int64_t since = empty_since_ns_.try_emplace(g.id, now_ns).first->second;
    if (now_ns - since >= Ns(options_.move_after_empty_s)) {
      ready.push_back(g.id);
    }
  }
  std::erase_if(moved_ns_, [&](const auto& m) { return now_ns - m.second >= kMoveAgainAfterNs; });
  if (ready.empty()) return;
  std::vector<policy::MoveCandidate> candidates;
  std::vector<Job*> jobs;
  for (auto& [id, job] : jobs_) {
    if (!Movable(job) || moved_ns_.contains(id)) continue;
    candidates.push_back({id, KeptFraction(job)});
    jobs.push_back(&job);
  }
  for (const policy::GpuId& to : ready) {
    // Slurm cannot start a requeued batch job again on the node it ran on
    // until the job's credential expires (cred_expire, 120 s by default:
    // "Job credential revoked", seen live), so only jobs on other nodes.
    std::vector<policy::MoveCandidate> elsewhere;
    std::vector<size_t> index;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (jobs[i]->gpu->host == to.host) continue;
      elsewhere.push_back(candidates[i]);
      index.push_back(i);
    }
    const std::optional<size_t> slowest = policy::SlowestToMove(elsewhere);
    if (!slowest) continue;
    const size_t pick = index[*slowest];
    Job& job = *jobs[pick];
    moves_.push_back({job.id, job.batch, *job.gpu, to});
    moved_ns_[job.id] = now_ns;
    // Its new GPU held for it until its request comes from there.
    reservations_.Add({.host = to.host,
                       .gpus = {to.index},
                       .priority = job.priority,
                       .kind = job.kind,
                       .mem_bytes = job.mem_bytes,
                       .slowdown_target = job.slowdown_target},
                      now_ns);
    empty_since_ns_.erase(to);
    events_.Add({job.id},
                absl::StrFormat("moving %s (at %.2f of its solo speed beside another job on %s) "
                                "to %s:%d, empty for %.0f s: asked Slurm to requeue job %s there",
                                job.id, candidates[pick].kept, GpusName(job), to.host, to.index,
                                options_.move_after_empty_s, job.batch.job));
    candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(pick));
    jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(pick));
  }
}

}  // namespace iashim::daemon
