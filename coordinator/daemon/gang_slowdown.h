// The slowdown a guaranteed gang's GPU is held to: what the control loop of
// each GPU of the gang compares with the gang's target.
//
// A gang (data-parallel ranks meeting in an all-reduce every iteration) runs
// at its slowest rank's speed, and every rank's iteration time is the gang's:
// a rank ahead of the others waits in the collective. So no rank's own
// iteration time says which GPU slows the gang.
//
// Straggler-aware (the default): GPU g, whose rank waits w_g per iteration in
// collectives beyond what the least-waiting rank waits, is charged the gang's
// slowdown S less that slack: s_g = S - (c_g - c_min)(1 + S), where c is the
// fraction of wall time a rank spends in collectives (JobProfile) and
// (c_g - c_min)(1 + S) = (w_g - w_min) / solo iteration time. The GPU of the
// slowest rank is held to S itself; a GPU whose rank has slack may give its
// co-runners that slack and no more. So the gang's iteration rate, not any
// rank's or their average, stays within the target, and a co-runner on a GPU
// that does not slow the gang is not cut for one that does.
//
// Independent (for comparison, as a per-GPU sharing layer that knows nothing
// of the gang would see it): GPU g is held to its rank's own slowdown, its
// time outside collectives against the same when alone:
// (1 - c_g)(1 + S_g) / (1 - c0_g) - 1, S_g the rank's iteration slowdown and
// c0_g its solo collective fraction. Each GPU then keeps its own rank's
// compute within the target; the gang, whose iteration also holds the
// all-reduce, ends up less slowed, and the co-runners get less than the
// target allows (bench/gang/README.md: 1.7-1.9x less at a 30% all-reduce).
//
// Average (for comparison, as accounting that counts a gang's GPUs as
// interchangeable capacity sees it): every GPU is held to the mean of the
// ranks' own slowdowns. Co-runners on two of four GPUs may then slow their
// ranks by twice the target, and the gang with them.
//
// When what a formula needs is not known yet, the gang's slowdown S is used.
#ifndef IASHIM_COORDINATOR_DAEMON_GANG_SLOWDOWN_H_
#define IASHIM_COORDINATOR_DAEMON_GANG_SLOWDOWN_H_

#include <optional>
#include <string_view>

#include "coordinator/daemon/job.h"

namespace iashim::daemon {

enum class GangBudgets { kStragglerAware, kIndependent, kAverage };

// "straggler" / "independent" / "average"; nullopt for anything else.
std::optional<GangBudgets> ParseGangBudgets(std::string_view name);

// The slowdown the control loop of `gpu` holds `job` to: a one-GPU job's (or
// a gang's on a GPU that none of its connected ranks runs on) is Slowdown(job).
// nullopt when unknown.
std::optional<double> SlowdownOnGpu(const Job& job, const policy::GpuId& gpu, GangBudgets mode);

// A rank's slowdown on its own GPU, what its GPU's co-runners cost it: its
// time outside collectives against the same alone. Without collectives (or
// before its collective time is known), its iteration slowdown. nullopt when
// unknown. The interference model learns a gang's effects per GPU from it.
std::optional<double> OwnSlowdown(const RankProcess& rank);

// The fraction of the gang's time rank `rank` spends ahead of its slowest
// rank, waiting in collectives: (c_rank - c_min)(1 + S), in [0, 1]. nullopt
// for a one-GPU job or when unknown. Shown by `iashim status`.
std::optional<double> RankSlack(const Job& job, int rank);

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_GANG_SLOWDOWN_H_
