#include "bench/gate/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace iashim::gatebench {
namespace {

// Output past this is dropped: a job prints a summary and a few warnings.
constexpr off_t kMaxOutputBytes = 1 << 20;

std::string ReadAll(int fd) {
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) return {};
  std::string text(static_cast<size_t>(std::min<off_t>(st.st_size, kMaxOutputBytes)), '\0');
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pread(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  text.resize(done);
  return text;
}

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(
    const std::string& path, const std::vector<std::string>& argv,
    const std::vector<std::string>& env) {
  if (argv.empty()) return absl::InvalidArgumentError("empty argv");
  const int out_fd = ::memfd_create("gate-bench-stdout", MFD_CLOEXEC);
  const int err_fd = ::memfd_create("gate-bench-stderr", MFD_CLOEXEC);
  if (out_fd < 0 || err_fd < 0) {
    const int e = errno;
    if (out_fd >= 0) ::close(out_fd);
    if (err_fd >= 0) ::close(err_fd);
    return absl::InternalError(absl::StrCat("memfd_create: ", std::strerror(e)));
  }
  // Everything the child touches is built before fork: after it, only
  // async-signal-safe calls.
  std::vector<char*> c_argv = CStrings(argv);
  std::vector<char*> c_env = CStrings(env);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(out_fd);
    ::close(err_fd);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(e)));
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the benchmark died before prctl
    ::setpgid(0, 0);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    ::execve(path.c_str(), c_argv.data(), c_env.data());
    ::_exit(127);
  }
  return std::unique_ptr<ChildProcess>(new ChildProcess(pid, out_fd, err_fd));
}

ChildProcess::~ChildProcess() {
  if (Running()) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(out_fd_);
  ::close(err_fd_);
}

bool ChildProcess::Running() {
  if (status_) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    status_ = status;
    return false;
  }
  // r < 0 (ECHILD) would mean someone else reaped it: treat as gone.
  if (r < 0 && errno != EINTR) {
    status_ = -1;
    return false;
  }
  return true;
}

void ChildProcess::Signal(int signal) {
  if (Running()) ::kill(pid_, signal);
}

bool ChildProcess::WaitExit(double timeout_s) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(timeout_s));
  while (Running()) {
    if (Clock::now() >= deadline) return false;
    const timespec tick{0, 10'000'000};  // 10 ms: exits are seconds apart
    ::nanosleep(&tick, nullptr);
  }
  return true;
}

std::string ChildProcess::DescribeStatus() const {
  if (!status_) return "running";
  if (*status_ == -1) return "reaped elsewhere";
  if (WIFEXITED(*status_)) return absl::StrCat("exit ", WEXITSTATUS(*status_));
  if (WIFSIGNALED(*status_)) return absl::StrCat("signal ", WTERMSIG(*status_));
  return absl::StrCat("status ", *status_);
}

std::string ChildProcess::Stdout() const { return ReadAll(out_fd_); }
std::string ChildProcess::Stderr() const { return ReadAll(err_fd_); }

}  // namespace iashim::gatebench
