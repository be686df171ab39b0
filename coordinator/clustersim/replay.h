// One replay: prepares the trace's jobs against the ground truth, builds each
// requested policy with its predictor and learner, simulates them, and
// summarises. `exclusive` is always simulated (every policy's
// later_than_exclusive is counted against it) and reported only if asked.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_REPLAY_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_REPLAY_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/clustersim/gavel_throughputs.h"
#include "coordinator/clustersim/gavel_trace.h"
#include "coordinator/clustersim/report.h"
#include "coordinator/clustersim/simulator.h"

namespace iashim::clustersim {

// The policies, in the order they are reported. firstfit-whole is firstfit
// with every guaranteed job on a whole GPU (SimConfig::
// guaranteed_take_whole_gpus): what keeping guaranteed jobs at their speed
// costs a cluster without iashim.
inline constexpr std::string_view kPolicyNames[] = {"exclusive", "firstfit", "firstfit-whole",
                                                    "iadeep",    "iashim",   "oracle"};
// Those replayed when no --policy is given: firstfit-whole differs from
// firstfit only with guaranteed jobs (--guaranteed-every).
inline constexpr std::string_view kDefaultPolicyNames[] = {"exclusive", "firstfit", "iadeep",
                                                           "iashim", "oracle"};

// iashim's InterferenceAwarePlacement settings (README.md says why these).
inline constexpr double kDefaultMinGain = 0.0;
inline constexpr double kDefaultUncertaintyWeight = 0.0;
inline constexpr double kDefaultExploration = 1.0;

struct ReplayOptions {
  SimConfig sim;
  double arrival_scale = 1;  // arrival times are divided by it
  uint64_t seed = 1;         // the learned model's initial factors
  std::vector<std::string> policies;
  double min_gain = kDefaultMinGain;  // iashim and oracle
  double uncertainty_weight = kDefaultUncertaintyWeight;
  double exploration = kDefaultExploration;  // iashim (the oracle's uncertainty is 0)
  // Job i (0-based, in arrival order) is guaranteed when i % guaranteed_every
  // == 0; 0: every job opportunistic (Gavel's traces have no priorities).
  // iashim and oracle then run with the share controller (SimConfig).
  int guaranteed_every = 0;
  // The coordinator's policies (iashim, oracle): SimConfig::guaranteed_gres,
  // as job_submit.lua asks it for their guaranteed jobs and gangs. The
  // others' jobs are plain Slurm's, without it.
  bool guaranteed_gres = false;
  // The coordinator's policies' jobs' start-up, when it differs from the
  // others' (sim.start_up): under the shim, asking the coordinator.
  std::optional<JobStartUp> managed_start_up;
};

struct PreparedJobs {
  std::vector<SimJob> jobs;  // in arrival order
  int64_t skipped = 0;       // no solo throughput for the type at its scale
  // Left out by the cluster's shape (SimConfig): wider than a node and not
  // a multiple of gpus_per_node (Slurm would run it on whole nodes only);
  // and more GPUs than the cluster's whole nodes hold (or, up to a node, than
  // its largest node).
  int64_t not_whole_nodes = 0;
  int64_t wider_than_cluster = 0;
  int64_t unplaceable() const { return not_whole_nodes + wider_than_cluster; }
};

PreparedJobs PrepareJobs(std::span<const TraceJob> trace, const GavelThroughputs& truth,
                         const SimConfig& sim, double arrival_scale, int guaranteed_every = 0);

struct PolicyRun {
  PolicySummary summary;
  std::vector<JobRecord> jobs;
};

// One PolicyRun per requested policy, in the order asked.
absl::StatusOr<std::vector<PolicyRun>> Replay(const PreparedJobs& prepared,
                                              const GavelThroughputs& truth,
                                              const ReplayOptions& options);

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_REPLAY_H_
