#include "tests/coordinator/cli/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace iashim::cli::testing {
namespace {

std::vector<std::string> BuildEnvironment(const EnvEdits& edits) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool edited = false;
    for (const auto& [edit_name, value] : edits) edited = edited || edit_name == name;
    if (!edited) out.push_back(entry);
  }
  for (const auto& [name, value] : edits) {
    if (value) out.push_back(name + "=" + *value);
  }
  return out;
}

}  // namespace

Child::Child(const std::vector<std::string>& argv, const EnvEdits& env) {
  // Everything the child needs is built before fork: the test runs ZeroMQ
  // threads, and after fork only async-signal-safe calls are safe.
  const std::vector<std::string> envs = BuildEnvironment(env);
  std::vector<char*> envp, args;
  for (const std::string& e : envs) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) std::abort();
  pid_ = fork();
  if (pid_ < 0) std::abort();
  if (pid_ == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  out_fd_ = out_pipe[0];
  err_fd_ = err_pipe[0];
}

Child::~Child() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

ChildResult Child::Wait(double timeout_s) {
  ChildResult result;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_s));
  while (out_fd_ >= 0 || err_fd_ >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 && !result.timed_out) {
      result.timed_out = true;
      kill(pid_, SIGKILL);
    }
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    poll(fds, 2, result.timed_out ? 1000 : static_cast<int>(std::min<int64_t>(left.count(), 100)));
    int* fd_of[2] = {&out_fd_, &err_fd_};
    std::string* text_of[2] = {&result.out, &result.err};
    for (int i = 0; i < 2; ++i) {
      if (*fd_of[i] < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t n = read(*fd_of[i], buf, sizeof buf);
      if (n > 0) {
        text_of[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(*fd_of[i]);
        *fd_of[i] = -1;
      }
    }
  }
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

ChildResult RunChild(const std::vector<std::string>& argv, const EnvEdits& env, double timeout_s) {
  Child child(argv, env);
  return child.Wait(timeout_s);
}

}  // namespace iashim::cli::testing
