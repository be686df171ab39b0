// A multi-task step's gang: `srun -n 4 --gres=gpu:4 --iashim` asks the
// coordinator once for 4 GPUs of the node, and each task takes its own GPU of
// them, in rank order (task i, GPU i of the gang), as one job.
//
// slurmstepd maps a shared page before the tasks fork (user_init). The first
// local task asks the coordinator and writes the answer there; the others wait
// for it, bounded, and read it. Plain data behind an atomic state word: the
// tasks are forks of one process and share the page, nothing else.
#ifndef IASHIM_INTEGRATIONS_SLURM_STEP_GANG_H_
#define IASHIM_INTEGRATIONS_SLURM_STEP_GANG_H_

#include <functional>
#include <optional>

#include "coordinator/client/place_messages.h"

namespace iashim::slurm {

class StepGang {
 public:
  // What the first task's request came to.
  enum class Answer {
    kPlaced,         // the gang is placed: take your GPU of it
    kAsSlurmPlaced,  // no coordinator, or no GPU the task may open: fail open
    kRefused,        // the coordinator refused the step
    kNoAnswer,       // the first task said nothing in time: fail open
  };

  StepGang() = default;
  ~StepGang();
  StepGang(const StepGang&) = delete;
  StepGang& operator=(const StepGang&) = delete;

  // In slurmstepd, before the tasks fork. False (errno set) if no page.
  bool Open();
  bool is_open() const { return page_ != nullptr; }

  // The first task: its placement (kPlaced), or why there is none.
  void Publish(Answer answer, const client::Placement* placement = nullptr);

  // Every other task: waits until the first task has published, or
  // `timeout_s` has passed; fills `placement` when the answer is kPlaced.
  Answer Await(double timeout_s, const std::function<void(double)>& sleep,
               const std::function<double()>& now_s, client::Placement* placement) const;

 private:
  struct Page;
  Page* page_ = nullptr;
};

}  // namespace iashim::slurm

#endif  // IASHIM_INTEGRATIONS_SLURM_STEP_GANG_H_
