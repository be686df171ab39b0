// One Slurm task's setup under iashim, in the task's own context: ask the
// coordinator where it runs (waiting while it is queued), and compute the
// environment that carries the answer into the task (README's table for
// `iashim run`: CUDA_VISIBLE_DEVICES, LD_PRELOAD, IASHIM_*).
//
// Fail-open: no coordinator answering (or no GPU the task may open) leaves the
// task exactly as Slurm placed it, with one line for its stderr saying so.
// A refusal is the coordinator's decision and fails the task.
//
// Pure apart from its seams (asking, sleeping, the clock), so every outcome is
// unit-tested without Slurm.
#ifndef IASHIM_INTEGRATIONS_SLURM_TASK_SETUP_H_
#define IASHIM_INTEGRATIONS_SLURM_TASK_SETUP_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "coordinator/client/coordinator_client.h"
#include "coordinator/client/job_environment.h"
#include "integrations/slurm/device_access.h"
#include "integrations/slurm/job_request.h"
#include "integrations/slurm/plugin_config.h"
#include "integrations/slurm/step_gang.h"

namespace iashim::slurm {

struct TaskSeams {
  // Sends one finished Envelope, returns the coordinator's reply (or why none).
  std::function<client::RequestResult(std::span<const uint8_t> request)> ask;
  std::function<void(double seconds)> sleep;
  std::function<double()> now_s;  // monotonic
  // Writes one line (no "\n") to the task's stderr, as it happens.
  std::function<void(const std::string& line)> say;
};

struct TaskOutcome {
  enum class Kind {
    kManaged,         // placed: apply `env`; release `job` with `token` when the task ends
    kInherited,       // a nested step keeps its enclosing step's placement: apply `env`
    kAsSlurmPlaced,   // fail-open: change nothing
    kRefused,         // the coordinator refused: the task must not start
  };
  Kind kind = Kind::kAsSlurmPlaced;
  std::vector<client::EnvChange> env;
  std::string job;    // kManaged: the coordinator's id for the task
  std::string token;  // kManaged: what a release must present
  int gpu = -1;       // kManaged: the GPU index on this node
};

// Environment variables the plugin adds for nested steps: a step inside a job
// whose batch step is already managed on this node (srun in an sbatch
// script, one task) keeps that registration instead of taking a second one.
inline constexpr char kSlurmJobMarker[] = "IASHIM_SLURM_JOB";
inline constexpr char kSlurmHostMarker[] = "IASHIM_SLURM_HOST";
inline constexpr char kSlurmGpuMarker[] = "IASHIM_SLURM_GPU";

struct TaskInputs {
  const PluginConfig* config = nullptr;
  security::ClientKeys keys;  // resolved from config.coordinator_key
  UserOptions user;
  SlurmTask task;
  int local_task_count = 1;
  std::string host;           // this node's name, as the coordinator knows it
  std::string command;        // for display, cut to 256 bytes
  int pid = 0;                // the task's process
  UsableGpus gpus;
  client::JobLibraries libraries;
  client::EnvLookup env;         // the task's environment as Slurm set it
  // A step with several tasks on the node shares one gang through this
  // (mapped by slurmstepd); null or unopened: each task asks for itself.
  StepGang* step_gang = nullptr;
};

// A step with several tasks on the node (and `step_gang` open) is placed as
// one gang of as many GPUs: the first task asks, every task gets its own GPU
// of it in task order (CUDA_VISIBLE_DEVICES) and its rank (IASHIM_RANK).
TaskOutcome SetUpTask(const TaskInputs& in, const TaskSeams& seams);

}  // namespace iashim::slurm

#endif  // IASHIM_INTEGRATIONS_SLURM_TASK_SETUP_H_
