// iashim-clustersim's command line, parsed and validated before any file is
// read: every bad argument is an InvalidArgument error naming it (main exits
// 2). Flags take "--flag VALUE" or "--flag=VALUE"; --trace takes one or
// more files (every word up to the next flag) and may repeat.
#ifndef IASHIM_COORDINATOR_CLUSTERSIM_CLI_OPTIONS_H_
#define IASHIM_COORDINATOR_CLUSTERSIM_CLI_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/clustersim/simulator.h"

namespace iashim::clustersim {

struct CliOptions {
  enum class Mode { kReplay, kKfold, kHelp };
  Mode mode = Mode::kReplay;

  std::string throughputs;  // required
  std::string gpu_type;     // required
  uint64_t seed = 1;
  bool json = false;

  // Replay.
  std::vector<std::string> traces;
  int gpus = 0;
  int gpus_per_node = 8;
  double arrival_scale = 1;
  int guaranteed_every = 0;  // 0: no guaranteed jobs (ReplayOptions)
  QueueModel queue = QueueModel::kReserveForGangs;  // SimConfig::queue
  double backfill_interval_s = 30;                 // SimConfig::backfill_interval_s
  bool gangs_take_busy_gpus = false;               // SimConfig::gangs_take_busy_gpus
  bool guaranteed_gres = false;                    // ReplayOptions::guaranteed_gres
  int cpus_per_node = 0;                           // SimConfig::cpus_per_node
  JobStartUp start_up;                             // SimConfig::start_up
  std::optional<JobStartUp> managed_start_up;      // ReplayOptions::managed_start_up
  std::optional<double> migration_cost_s;          // SimConfig::migration_cost_s
  double job_memory_share = 0;                     // SimConfig::job_memory_share
  std::string job_memory_shares;                   // a file: SimConfig::job_memory_share_by_type
  std::vector<std::string> policies;  // default: all, in kPolicyNames order
  std::string out_dir;
  double min_gain = 0;            // set to kDefaultMinGain unless given
  double uncertainty_weight = 0;  // set to kDefaultUncertaintyWeight unless given
  double exploration = 0;         // set to kDefaultExploration unless given
  int variants = 0;               // > 0: the robustness harness (robustness.h)
  uint64_t variant_seed = 1;

  // K-fold cross-validation of the interference predictors.
  int kfold = 0;
};

// `args` without the program name.
absl::StatusOr<CliOptions> ParseCliOptions(const std::vector<std::string>& args);

// Whether this is the Alibaba replay's command line (any argument starting
// with --alibaba): main hands it to RunAlibabaCli untouched.
bool IsAlibabaCommandLine(const std::vector<std::string>& args);

std::string Usage();

}  // namespace iashim::clustersim

#endif  // IASHIM_COORDINATOR_CLUSTERSIM_CLI_OPTIONS_H_
