#include "integrations/slurm/task_setup.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/client/place_messages.h"
#include "coordinator/client/release_messages.h"

namespace iashim::slurm {
namespace {

// As `iashim run`: how often a queued task asks again.
constexpr double kQueuedRetryS = 2.0;

bool Equals(const char* value, std::string_view expected) {
  return value != nullptr && expected == value;
}

// srun inside an sbatch script, one task on the node where the batch step is
// managed: the processes the step starts are the ones the batch step's
// registration was for.
bool InheritsEnclosingPlacement(const TaskInputs& in) {
  return in.task.step != "batch" && in.local_task_count == 1 &&
         Equals(in.env(kSlurmJobMarker), absl::StrCat(in.task.job_id)) &&
         Equals(in.env(kSlurmHostMarker), in.host) && in.env("IASHIM_JOB") != nullptr &&
         in.env(kSlurmGpuMarker) != nullptr;
}

std::string AsPlaced(const TaskInputs& in) {
  const char* visible = in.env("CUDA_VISIBLE_DEVICES");
  return visible ? absl::StrCat("running as Slurm placed it (CUDA_VISIBLE_DEVICES=", visible, ")")
                 : std::string("running as Slurm placed it");
}

// The task's environment and release for `placement` of `job`.
TaskOutcome Managed(const TaskInputs& in, const TaskSeams& seams, const client::JobRequest& job,
                    const client::Placement& placement) {
  TaskOutcome out;
  std::vector<std::string> warnings;
  out.env = client::ManagedEnvironment(job, placement, in.libraries, in.env, &warnings);
  for (const std::string& w : warnings) seams.say("iashim: " + w);
  out.env.push_back({kSlurmJobMarker, absl::StrCat(in.task.job_id)});
  out.env.push_back({kSlurmHostMarker, in.host});
  out.env.push_back({kSlurmGpuMarker, absl::StrCat(placement.gpu)});
  out.kind = TaskOutcome::Kind::kManaged;
  out.job = placement.job.empty() ? job.placement.job : placement.job;
  out.token = placement.token;
  out.gpu = placement.gpu;
  return out;
}

// Sets `name` in `env`, replacing an earlier change of it.
void SetEnv(std::vector<client::EnvChange>& env, const std::string& name, const std::string& value) {
  std::erase_if(env, [&](const client::EnvChange& c) { return c.name == name; });
  env.push_back({name, value});
}


// Asks the coordinator for `job`'s placement, waiting while it is queued;
// fills `placed` when it is placed here.
TaskOutcome AskForPlacement(const TaskInputs& in, const TaskSeams& seams,
                            const client::JobRequest& job, client::Placement* placed) {
  TaskOutcome out;
  const std::vector<uint8_t> request =
      client::EncodePlaceRequest(job.placement, in.host, in.command, in.pid);

  const double start = seams.now_s();
  bool queued_before = false;
  bool reported_silence = false;
  std::string last_reason;
  auto waited_too_long = [&] {
    return in.config->queue_wait_s > 0 && seams.now_s() - start >= in.config->queue_wait_s;
  };
  while (true) {
    const client::RequestResult result = seams.ask(request);
    if (result.status != client::RequestStatus::kOk) {
      if (!queued_before) {
        seams.say(absl::StrCat("iashim: no coordinator at ", in.config->coordinator, " (",
                               result.detail, "); ", AsPlaced(in)));
        return out;
      }
      // It queued the task, so it exists and is likely coming back (a restart).
      if (!reported_silence) {
        seams.say(absl::StrCat("iashim: the coordinator stopped answering (", result.detail,
                               "); still waiting"));
        reported_silence = true;
      }
    } else {
      reported_silence = false;
      const client::Placement placement = client::DecodePlacement(*result.reply.envelope());
      if (placement.outcome == client::Placement::Outcome::kRefused) {
        seams.say(absl::StrCat("iashim: the coordinator refused task ", job.placement.job,
                               ": ", placement.reason));
        out.kind = TaskOutcome::Kind::kRefused;
        return out;
      }
      if (placement.outcome == client::Placement::Outcome::kPlaced) {
        if (!placement.host.empty() && placement.host != in.host) {
          // It cannot move a running Slurm task: give the placement back.
          seams.ask(client::EncodeReleaseRequest(placement.job, placement.token));
          seams.say(absl::StrCat("iashim: the coordinator placed task ", job.placement.job,
                                 " on ", placement.host, ", not on this node (", in.host, "); ",
                                 AsPlaced(in)));
          return out;
        }
        *placed = placement;
        return Managed(in, seams, job, placement);
      }
      // Queued: once per reason, not every 2 s.
      if (!queued_before || placement.reason != last_reason) {
        seams.say(absl::StrFormat("iashim: task %s queued: %s (asking again every %g s)",
                                  job.placement.job, placement.reason, kQueuedRetryS));
        last_reason = placement.reason;
      }
      queued_before = true;
    }
    if (waited_too_long()) {
      seams.say(absl::StrFormat("iashim: task %s still not placed after %g s (queue_wait_s); %s",
                                job.placement.job, in.config->queue_wait_s, AsPlaced(in)));
      return out;
    }
    seams.sleep(kQueuedRetryS);
  }
}

// A task of a multi-task step: one gang for the step, the task on its GPU of
// it (step_gang.h). The first task asks; the others wait for its answer.
TaskOutcome SetUpStepTask(const TaskInputs& in, const TaskSeams& seams) {
  const client::JobRequest job{
      StepGangPlacement(in.user, in.task, in.local_task_count, in.gpus.usable),
      in.config->coordinator, in.keys};
  client::Placement placement;
  TaskOutcome out;
  if (in.task.local_task == 0) {
    out = AskForPlacement(in, seams, job, &placement);
    using Answer = StepGang::Answer;
    in.step_gang->Publish(out.kind == TaskOutcome::Kind::kManaged   ? Answer::kPlaced
                          : out.kind == TaskOutcome::Kind::kRefused ? Answer::kRefused
                                                                    : Answer::kAsSlurmPlaced,
                          &placement);
    if (out.kind != TaskOutcome::Kind::kManaged) return out;
  } else {
    // As long as the first task may wait in the coordinator's queue, and then
    // some: it asks with the same timeouts.
    const double wait_s = in.config->queue_wait_s > 0
                              ? in.config->queue_wait_s + 4 * in.config->timeout_s + 5
                              : 1e12;
    switch (in.step_gang->Await(wait_s, seams.sleep, seams.now_s, &placement)) {
      case StepGang::Answer::kPlaced:
        out = Managed(in, seams, job, placement);
        break;
      case StepGang::Answer::kRefused:
        seams.say(absl::StrCat("iashim: the coordinator refused step ", job.placement.job));
        out.kind = TaskOutcome::Kind::kRefused;
        return out;
      case StepGang::Answer::kAsSlurmPlaced:
        return out;  // the first task said why
      case StepGang::Answer::kNoAnswer:
        seams.say(absl::StrCat("iashim: the step's first task did not say where it runs; ",
                               AsPlaced(in)));
        return out;
    }
  }
  const int rank = in.task.local_task;
  if (rank >= static_cast<int>(placement.gpus.size())) {
    seams.say(absl::StrFormat("iashim: step %s has %d GPUs and no GPU for task %d; %s",
                              job.placement.job, placement.gpus.size(), rank, AsPlaced(in)));
    return TaskOutcome{};
  }
  // Its own GPU of the gang, and its rank for the coordinator.
  out.gpu = placement.gpus[rank];
  SetEnv(out.env, "CUDA_VISIBLE_DEVICES", absl::StrCat(out.gpu));
  SetEnv(out.env, kSlurmGpuMarker, absl::StrCat(out.gpu));
  SetEnv(out.env, "IASHIM_RANK", absl::StrCat(rank));
  return out;
}

}  // namespace

TaskOutcome SetUpTask(const TaskInputs& in, const TaskSeams& seams) {
  TaskOutcome out;
  if (InheritsEnclosingPlacement(in)) {
    // Slurm sets the step's own CUDA_VISIBLE_DEVICES; the GPU is the
    // enclosing placement's.
    out.kind = TaskOutcome::Kind::kInherited;
    out.env.push_back({"CUDA_VISIBLE_DEVICES", std::string(in.env(kSlurmGpuMarker))});
    return out;
  }
  if (in.gpus.any_device_file && in.gpus.usable.empty()) {
    seams.say(absl::StrCat("iashim: this task may open none of the node's GPUs (",
                           in.config->device_prefix, "N); ", AsPlaced(in)));
    if (in.local_task_count > 1 && in.task.local_task == 0 && in.step_gang != nullptr) {
      in.step_gang->Publish(StepGang::Answer::kAsSlurmPlaced);
    }
    return out;
  }
  if (in.local_task_count > 1 && in.step_gang != nullptr && in.step_gang->is_open()) {
    return SetUpStepTask(in, seams);
  }
  client::Placement placement;
  return AskForPlacement(
      in, seams,
      client::JobRequest{TaskPlacement(in.user, in.task, in.gpus.usable), in.config->coordinator,
                         in.keys},
      &placement);
}

}  // namespace iashim::slurm
