// What a Slurm task asks the coordinator: the user's --iashim options, the
// task's Slurm ids, the GPUs it may use, turned into the PlaceRequest fields
// `iashim run` would send.
//
// Pure: the SPANK callbacks gather the inputs, everything here is unit-tested.
#ifndef IASHIM_INTEGRATIONS_SLURM_JOB_REQUEST_H_
#define IASHIM_INTEGRATIONS_SLURM_JOB_REQUEST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/client/request_options.h"

namespace iashim::slurm {

// The options a user gives sbatch, srun or salloc.
struct UserOptions {
  bool enabled = false;  // --iashim was given
  client::Priority priority = client::Priority::kGuaranteed;
  uint64_t mem_bytes = 0;  // --iashim-mem; 0: the whole GPU
  std::string kind;        // --iashim-kind; empty: learned from its kernels
  bool movable = false;    // --iashim-movable: it resumes from a checkpoint when requeued
};

// --iashim[=guaranteed|opportunistic]: no value means guaranteed.
absl::StatusOr<client::Priority> ParsePriorityOption(const char* value);
// --iashim-mem=SIZE: 16GiB, 512MiB, 16GB or bytes; more than 0.
absl::StatusOr<uint64_t> ParseMemOption(const char* value);
// --iashim-kind=MODEL: a model name as the interference model knows it.
absl::StatusOr<std::string> ParseKindOption(const char* value);

struct SlurmTask {
  uint32_t job_id = 0;
  std::string step;      // "0", "1", ..., "batch", "interactive", "extern"
  int local_task = 0;    // the task's id on this node
  int global_task = -1;  // its id in the step (srun's task id); -1: not known, local_task
  int node = 0;          // this node's index among the step's nodes
  int nodes = 1;         // the step's nodes
};

// The coordinator's id for the task: slurm-<job>.<step>.<task>, the task's
// id in the step (as srun and Slurm number it), so a job's tasks are found
// in `iashim status` by their Slurm ids and tasks of one step on several
// nodes have names of their own.
std::string CoordinatorJobName(const SlurmTask& task);

// A multi-task step's one gang, shared by its tasks on the node:
// slurm-<job>.<step>, or slurm-<job>.<step>.node<i> for node i of a step on
// several nodes (a gang is one node's GPUs: each node's tasks are one).
std::string CoordinatorGangName(const SlurmTask& task);

// The PlaceRequest's options for this task. `allowed_gpus`: the node's GPUs
// the task may open (empty: any GPU of the node).
client::PlacementOptions TaskPlacement(const UserOptions& user, const SlurmTask& task,
                                    const std::vector<int>& allowed_gpus);

// The PlaceRequest's options for the gang of a step of `tasks` tasks on this
// node, one GPU each, asked once for all of them (batch task -1: the step).
client::PlacementOptions StepGangPlacement(const UserOptions& user, const SlurmTask& task,
                                           int tasks, const std::vector<int>& allowed_gpus);

}  // namespace iashim::slurm

#endif  // IASHIM_INTEGRATIONS_SLURM_JOB_REQUEST_H_
