#include "integrations/slurm/job_request.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/text/names.h"
#include "common/text/text.h"

namespace iashim::slurm {

absl::StatusOr<client::Priority> ParsePriorityOption(const char* value) {
  if (value == nullptr || *value == '\0' || std::strcmp(value, "guaranteed") == 0) {
    return client::Priority::kGuaranteed;
  }
  if (std::strcmp(value, "opportunistic") == 0) return client::Priority::kOpportunistic;
  return absl::InvalidArgumentError(absl::StrCat(
      "--iashim=", Printable(value, 64), ": expected 'guaranteed' or 'opportunistic'"));
}

absl::StatusOr<uint64_t> ParseMemOption(const char* value) {
  const std::optional<uint64_t> bytes = value ? ParseByteSize(value) : std::nullopt;
  if (!bytes || *bytes == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--iashim-mem=", value ? Printable(value, 64) : "",
                     ": expected a size above 0 such as 16GiB, 512MiB, 16GB or bytes"));
  }
  return *bytes;
}

absl::StatusOr<std::string> ParseKindOption(const char* value) {
  if (value == nullptr || !ValidModelKind(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--iashim-kind=", value ? Printable(value, 64) : "",
                     ": expected 1-128 printable characters naming the model"));
  }
  return std::string(value);
}

namespace {
int StepTaskId(const SlurmTask& task) {
  return task.global_task >= 0 ? task.global_task : task.local_task;
}
}  // namespace

std::string CoordinatorJobName(const SlurmTask& task) {
  return absl::StrCat("slurm-", task.job_id, ".", task.step, ".", StepTaskId(task));
}

std::string CoordinatorGangName(const SlurmTask& task) {
  if (task.nodes > 1) return absl::StrCat("slurm-", task.job_id, ".", task.step, ".node", task.node);
  return absl::StrCat("slurm-", task.job_id, ".", task.step);
}

client::PlacementOptions StepGangPlacement(const UserOptions& user, const SlurmTask& task,
                                           int tasks, const std::vector<int>& allowed_gpus) {
  client::PlacementOptions p = TaskPlacement(user, task, allowed_gpus);
  p.job = CoordinatorGangName(task);
  p.gpus = tasks;
  p.batch.task = -1;
  return p;
}

client::PlacementOptions TaskPlacement(const UserOptions& user, const SlurmTask& task,
                                    const std::vector<int>& allowed_gpus) {
  client::PlacementOptions p;
  p.job = CoordinatorJobName(task);
  p.priority = user.priority;
  p.mem_bytes = user.mem_bytes;
  p.kind = user.kind;
  p.movable = user.movable;
  p.allowed_gpus = allowed_gpus;
  p.batch.system = "slurm";
  p.batch.job = absl::StrCat(task.job_id);
  p.batch.step = task.step;
  p.batch.task = StepTaskId(task);
  return p;
}

}  // namespace iashim::slurm
