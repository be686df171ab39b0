// `iashim run`: ask the coordinator where the job goes, then become the job.
//
// The job replaces iashim (execvp) rather than running as its child, so
// signals, the exit status and the process id are the job's own, exactly as
// if it had been started directly; batch systems and shells see no wrapper.
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/text/text.h"
#include "common/text/text.h"
#include "coordinator/cli/ask_coordinator.h"
#include "coordinator/cli/commands.h"
#include "coordinator/cli/interrupt.h"
#include "coordinator/client/coordinator_client.h"
#include "coordinator/client/job_environment.h"
#include "coordinator/client/library_paths.h"
#include "coordinator/client/place_messages.h"
#include "coordinator/client/release_messages.h"
#include "coordinator/client/self_info.h"

namespace iashim::cli {
namespace {

// How long `run` waits between asks while the coordinator queues the job.
constexpr double kQueuedRetryS = 2.0;

const char* GetEnv(const char* name) { return std::getenv(name); }

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

void ApplyEnvironment(const std::vector<client::EnvChange>& changes) {
  for (const client::EnvChange& change : changes) {
    if (change.value) {
      setenv(change.name.c_str(), change.value->c_str(), /*overwrite=*/1);
    } else {
      unsetenv(change.name.c_str());
    }
  }
}

// Only returns when exec failed, with the status a shell would give.
int Exec(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  argv.reserve(command.size() + 1);
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  execvp(argv[0], argv.data());
  const int err = errno;
  std::fprintf(stderr, "iashim: %s: %s\n", command[0].c_str(), std::strerror(err));
  return err == ENOENT ? kExitNotFound : kExitCannotExecute;
}

void PrintWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) std::fprintf(stderr, "iashim: %s\n", w.c_str());
}

// The command could not be started: it will never say Hello or Goodbye, and
// left registered it would hold its GPU (and queue the next job) until the
// coordinator forgets it. Release it now with its token, as slurmstepd does at
// a task's end. Best effort: the exec's error is what the user needs to see.
void ReleaseUnstartedJob(const CliOptions& options, const client::Placement& placement) {
  if (placement.job.empty() || placement.token.empty()) return;
  const client::RequestResult result = AskCoordinator(
      options, client::EncodeReleaseRequest(placement.job, placement.token), wire::Payload::ReleaseReply);
  if (result.status != client::RequestStatus::kOk) {
    std::fprintf(stderr, "iashim: could not release job %s (%s); the coordinator forgets it later\n",
                 placement.job.c_str(), result.detail.c_str());
    return;
  }
  const client::Release release = client::DecodeRelease(*result.reply.envelope());
  if (release.released) {
    std::fprintf(stderr, "iashim: released job %s\n", placement.job.c_str());
  } else {
    std::fprintf(stderr, "iashim: could not release job %s: %s\n", placement.job.c_str(),
                 release.message.c_str());
  }
}

std::string DescribePlacement(const client::Placement& p) {
  std::string out = "iashim: job " + (p.job.empty() ? std::string("(unnamed)") : p.job) +
                    " placed on " + (p.host.empty() ? std::string("this host") : p.host);
  if (p.gpus.size() > 1) {
    out += " GPUs " + client::VisibleDevices(p);
  } else if (p.gpu >= 0) {
    out += " GPU " + std::to_string(p.gpu);
  }
  char share[32];
  std::snprintf(share, sizeof share, "%.3g", p.share);
  out += std::string(", share ") + share;
  if (p.mem_limit_bytes != 0) out += ", memory limit " + FormatBytes(p.mem_limit_bytes);
  return out + "\n";
}

}  // namespace

int RunCommand(const CliOptions& options) {
  // Find the libraries before asking: a placement for a job that then cannot
  // start would hold a GPU share for nothing.
  const std::string exe = client::SelfExePath();
  absl::StatusOr<std::string> shim = client::FindShimLibrary(exe, GetEnv, IsRegularFile);
  if (!shim.ok()) {
    std::fprintf(stderr, "iashim: %s\n", std::string(shim.status().message()).c_str());
    return kExitRefused;
  }
  client::JobLibraries libraries{*shim, ""};
  if (options.simgpu) {
    absl::StatusOr<std::string> dir = client::FindSimgpuDir(exe, GetEnv, IsRegularFile);
    if (!dir.ok()) {
      std::fprintf(stderr, "iashim: %s\n", std::string(dir.status().message()).c_str());
      return kExitRefused;
    }
    libraries.simgpu_dir = *dir;
  }

  const std::string host = client::HostName();
  const std::vector<uint8_t> request = client::EncodePlaceRequest(
      options.placement, host, client::JoinCommand(options.command, kMaxCommandBytes), getpid());
  CatchInterrupt();
  bool queued_before = false;
  bool reported_silence = false;
  std::string last_reason;
  while (true) {
    const client::RequestResult result = AskCoordinator(options, request, wire::Payload::PlaceReply);
    if (result.status == client::RequestStatus::kInterrupted) {
      std::fprintf(stderr, "iashim: interrupted\n");
      return kExitInterrupted;
    }
    if (result.status != client::RequestStatus::kOk) {
      if (!queued_before) {
        // Fail open, as the shim does: the job runs, only unmanaged. The
        // shim is still preloaded so that --mem is enforced.
        std::fprintf(stderr, "iashim: no coordinator at %s (%s); running %s unmanaged\n",
                     options.coordinator.c_str(), result.detail.c_str(),
                     options.command[0].c_str());
        ApplyEnvironment(client::UnmanagedEnvironment(options.job_request(), libraries, GetEnv));
        return Exec(options.command);
      }
      // It queued the job, so it exists and will likely be back (a restart);
      // starting now would jump the queue it put us in.
      if (!reported_silence) {
        std::fprintf(stderr, "iashim: the coordinator stopped answering (%s); still waiting\n",
                     result.detail.c_str());
        reported_silence = true;
      }
      SleepUnlessInterrupted(kQueuedRetryS);  // the next client::Request sees an interrupt
      continue;
    }
    reported_silence = false;
    client::Placement placement = client::DecodePlacement(*result.reply.envelope());
    const bool placed = placement.outcome == client::Placement::Outcome::kPlaced;
    client::RefuseShortGang(options.placement.gpus, &placement);
    switch (placement.outcome) {
      case client::Placement::Outcome::kRefused:
        std::fprintf(stderr, "iashim: the coordinator refused the job: %s\n",
                     placement.reason.c_str());
        if (placed) ReleaseUnstartedJob(options, placement);  // too few GPUs: not started
        return kExitRefused;
      case client::Placement::Outcome::kQueued:
        // Once per reason, not every 2 s: a long queue should not flood the
        // job's log.
        if (!queued_before || placement.reason != last_reason) {
          std::fprintf(stderr, "iashim: queued: %s (asking again every %g s; Ctrl-C to give up)\n",
                       placement.reason.c_str(), kQueuedRetryS);
          last_reason = placement.reason;
        }
        queued_before = true;
        SleepUnlessInterrupted(kQueuedRetryS);
        continue;
      case client::Placement::Outcome::kPlaced:
        break;
    }
    // The job runs here; a placement on another node cannot be honoured.
    if (!placement.host.empty() && !host.empty() && placement.host != host) {
      std::fprintf(stderr,
                   "iashim: the coordinator placed the job on host %s, but this is %s; run it "
                   "there\n",
                   placement.host.c_str(), host.c_str());
      return kExitRefused;
    }
    std::fputs(DescribePlacement(placement).c_str(), stderr);
    std::vector<std::string> warnings;
    const std::vector<client::EnvChange> changes =
        client::ManagedEnvironment(options.job_request(), placement, libraries, GetEnv, &warnings);
    PrintWarnings(warnings);
    ApplyEnvironment(changes);
    const int exec_failed = Exec(options.command);
    ReleaseUnstartedJob(options, placement);
    return exec_failed;
  }
}

}  // namespace iashim::cli
