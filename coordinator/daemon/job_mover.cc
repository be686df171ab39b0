#include "coordinator/daemon/job_mover.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_format.h"

extern char** environ;

namespace iashim::daemon {
namespace {

std::string Describe(const JobMove& move) {
  return absl::StrFormat("moving %s (Slurm job %s) to %s:%d", move.job, move.batch.job,
                         move.to.host, move.to.index);
}

}  // namespace

JobMover::~JobMover() {
  for (const Child& c : children_) {
    kill(c.pid, SIGKILL);
    waitpid(c.pid, nullptr, 0);
  }
}

std::vector<std::string> JobMover::Start(const JobMove& move, int64_t now_ns) {
  std::string job_id = move.batch.job;
  std::string host = move.to.host;
  std::string command = command_;
  char* argv[] = {command.data(), job_id.data(), host.data(), nullptr};
  pid_t pid = 0;
  if (const int error = posix_spawn(&pid, command_.c_str(), nullptr, nullptr, argv, environ);
      error != 0) {
    return {absl::StrFormat("%s: %s could not start: %s", Describe(move), command_,
                            std::strerror(error))};
  }
  children_.push_back({pid, move, now_ns});
  return {};
}

std::vector<std::string> JobMover::Reap(int64_t now_ns) {
  std::vector<std::string> lines;
  std::erase_if(children_, [&](Child& c) {
    int status = 0;
    const pid_t r = waitpid(c.pid, &status, WNOHANG);
    if (r == 0) {
      if (!c.killed && now_ns - c.started_ns > timeout_ns_) {
        kill(c.pid, SIGKILL);
        c.killed = true;
        lines.push_back(absl::StrFormat("%s: %s ran past %.0f s and was killed", Describe(c.move),
                                        command_, double(timeout_ns_) / 1e9));
      }
      return false;
    }
    if (r < 0) return errno != EINTR;  // not our child any more (ECHILD): forget it
    if (c.killed) return true;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
    lines.push_back(WIFEXITED(status)
                        ? absl::StrFormat("%s: %s exited %d", Describe(c.move), command_,
                                          WEXITSTATUS(status))
                        : absl::StrFormat("%s: %s died of signal %d", Describe(c.move), command_,
                                          WTERMSIG(status)));
    return true;
  });
  return lines;
}

}  // namespace iashim::daemon
