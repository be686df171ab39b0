// A child process (fork + exec) whose stdout and stderr are kept in memory
// files, read once it has exited. The child dies with the benchmark
// (PR_SET_PDEATHSIG), and the destructor kills and reaps one still running,
// so no job outlives a failed or interrupted run.
#ifndef IASHIM_BENCH_GATE_CHILD_PROCESS_H_
#define IASHIM_BENCH_GATE_CHILD_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace iashim::gatebench {

class ChildProcess {
 public:
  // Starts `path` with `argv` (argv[0] included) and exactly `env`
  // ("NAME=value"). The child runs in its own process group, so a Ctrl-C
  // reaches only the benchmark, which then stops its jobs.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(const std::string& path,
                                                             const std::vector<std::string>& argv,
                                                             const std::vector<std::string>& env);
  ~ChildProcess();

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }

  // Reaps the child if it has exited; true while it runs.
  bool Running();
  // Sends `signal` if the child still runs.
  void Signal(int signal);
  // Waits up to `timeout_s` for the exit. False on timeout.
  bool WaitExit(double timeout_s);
  // The wait status once exited (see waitpid), else nullopt.
  std::optional<int> status() const { return status_; }
  // "exit 1", "signal 9".
  std::string DescribeStatus() const;

  std::string Stdout() const;
  std::string Stderr() const;

 private:
  ChildProcess(pid_t pid, int out_fd, int err_fd) : pid_(pid), out_fd_(out_fd), err_fd_(err_fd) {}

  pid_t pid_;
  int out_fd_;
  int err_fd_;
  std::optional<int> status_;
};

}  // namespace iashim::gatebench

#endif  // IASHIM_BENCH_GATE_CHILD_PROCESS_H_
