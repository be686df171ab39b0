#include "bench/fakejob/rank_launcher.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bench/fakejob/data_parallel.h"
#include "bench/fakejob/stop_agreement.h"

namespace iashim::fakejob {
namespace {

volatile std::sig_atomic_t g_forward_signal = 0;

extern "C" void OnLauncherSignal(int sig) { g_forward_signal = sig; }

// A TCP port nothing listens on at 127.0.0.1 now, as torchrun's standalone
// mode picks one for its rendezvous; 0 if none could be had.
int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

int StatusOf(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

}  // namespace

int LaunchRanks(int ranks, const std::vector<std::string>& args) {
  const int port = FreeLoopbackPort();
  if (port == 0) {
    std::fprintf(stderr, "iashim-fakejob: no free port on 127.0.0.1 for the ranks to meet at\n");
    return 1;
  }
  struct sigaction forward {};
  forward.sa_handler = OnLauncherSignal;  // no SA_RESTART: waitpid returns to pass it on
  sigaction(SIGINT, &forward, nullptr);
  sigaction(SIGTERM, &forward, nullptr);

  std::vector<pid_t> children;
  const pid_t launcher = ::getpid();
  for (int rank = 0; rank < ranks; ++rank) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      std::fprintf(stderr, "iashim-fakejob: cannot start rank %d: %s\n", rank,
                   std::strerror(errno));
      for (pid_t c : children) ::kill(c, SIGTERM);
      break;
    }
    if (pid == 0) {
      // A rank outlives no launcher: its partners may be gone, and it would
      // wait in its all-reduce for ever.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != launcher) _exit(1);  // the launcher died before prctl
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      const std::string r = std::to_string(rank);
      setenv("RANK", r.c_str(), 1);
      setenv("LOCAL_RANK", r.c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(ranks).c_str(), 1);
      setenv("MASTER_ADDR", "127.0.0.1", 1);
      setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      std::vector<char*> argv;
      std::string self = "iashim-fakejob";
      argv.push_back(self.data());
      std::vector<std::string> copy = args;
      for (std::string& a : copy) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv("/proc/self/exe", argv.data());
      std::fprintf(stderr, "iashim-fakejob: rank %d: cannot exec: %s\n", rank,
                   std::strerror(errno));
      _exit(127);
    }
    children.push_back(pid);
  }

  // A rank stops after its current iteration, but one whose partner has
  // already gone waits in its all-reduce for ever (as an NCCL rank does): ranks
  // still running this long after they were told to stop are killed.
  constexpr int kStopGraceMs = 5000;
  constexpr int kPollMs = 20;
  std::vector<bool> exited(children.size(), false);
  size_t running = children.size();
  int result = 0;
  int grace_left_ms = -1;  // counting down once the ranks were told to stop
  auto stop_all = [&](int sig) {
    for (size_t i = 0; i < children.size(); ++i) {
      if (!exited[i]) ::kill(children[i], sig);
    }
    if (grace_left_ms < 0) grace_left_ms = kStopGraceMs;
  };
  while (running > 0) {
    int wait_status = 0;
    const pid_t done = ::waitpid(-1, &wait_status, WNOHANG);
    if (done < 0 && errno != EINTR) break;
    if (done > 0) {
      for (size_t i = 0; i < children.size(); ++i) {
        if (children[i] == done && !exited[i]) {
          exited[i] = true;
          --running;
        }
      }
      const int status = StatusOf(wait_status);
      if (status != 0 && result == 0) {
        result = status;
        stop_all(SIGTERM);  // the others cannot finish without it
      }
      continue;
    }
    if (g_forward_signal != 0) {
      const int sig = g_forward_signal;
      g_forward_signal = 0;
      stop_all(sig);
    }
    if (grace_left_ms >= 0) {
      grace_left_ms -= kPollMs;
      if (grace_left_ms < 0) stop_all(SIGKILL);
    }
    ::usleep(kPollMs * 1000);
  }
  ::unlink(StopAgreement::PathFor(GroupForEndpoint("127.0.0.1", std::to_string(port))).c_str());
  return children.size() == size_t(ranks) ? result : (result != 0 ? result : 1);
}

}  // namespace iashim::fakejob
