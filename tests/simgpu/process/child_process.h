// Children for the multi-process tests: started with fork, dying with the test
// process, reporting through their exit status.
#ifndef IASHIM_TESTS_SIMGPU_PROCESS_CHILD_PROCESS_H_
#define IASHIM_TESTS_SIMGPU_PROCESS_CHILD_PROCESS_H_

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

namespace iashim_test {

// Starts `body` in a child process; its return value is the exit status.
// The child dies with the test process, so a failed assertion (which returns
// before the test kills its children) leaves no child holding the test's
// output open, which would keep CTest waiting until its timeout.
inline pid_t Spawn(const std::function<int()>& body) {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);  // the parent died before prctl
    _exit(body());
  }
  return pid;
}

// Waits for `pid`: its exit status, or 128 + the signal that killed it.
inline int ExitStatus(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace iashim_test

#endif  // IASHIM_TESTS_SIMGPU_PROCESS_CHILD_PROCESS_H_
