// Carries out the moves the coordinator decides (Coordinator::TakeMoves,
// --move-command): runs `COMMAND SLURM_JOB_ID HOST` for each as a child
// process, without blocking the server's loop, reaps it as it ends and
// kills it if it runs past a timeout (a batch system that does not answer
// must not pile up children). What the command prints goes to the daemon's
// own stdout and stderr; how it ended comes back as a line for the log.
#ifndef IASHIM_COORDINATOR_DAEMON_JOB_MOVER_H_
#define IASHIM_COORDINATOR_DAEMON_JOB_MOVER_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "coordinator/daemon/coordinator.h"

namespace iashim::daemon {

class JobMover {
 public:
  JobMover(std::string command, int64_t timeout_ns)
      : command_(std::move(command)), timeout_ns_(timeout_ns) {}
  ~JobMover();  // kills and reaps what still runs
  JobMover(const JobMover&) = delete;
  JobMover& operator=(const JobMover&) = delete;

  // Starts the command for `move`; a line for the log when it cannot start.
  std::vector<std::string> Start(const JobMove& move, int64_t now_ns);
  // Reaps the commands that ended (killing those past the timeout): a line
  // for each that did not succeed.
  std::vector<std::string> Reap(int64_t now_ns);
  size_t running() const { return children_.size(); }

 private:
  struct Child {
    pid_t pid;
    JobMove move;
    int64_t started_ns;
    bool killed = false;
  };
  std::string command_;
  int64_t timeout_ns_;
  std::vector<Child> children_;
};

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_JOB_MOVER_H_
