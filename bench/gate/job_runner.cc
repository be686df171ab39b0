#include "bench/gate/job_runner.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bench/gate/child_process.h"
#include "bench/gate/interrupt.h"

namespace iashim::gatebench {
namespace {

constexpr absl::string_view kNamespacePrefix = "iashim-gate-";

// A namespace of its own per run, so every run starts on an idle device and
// never meets another benchmark's or test's jobs.
std::string NextNamespace() {
  static int run = 0;
  return absl::StrCat(kNamespacePrefix, ::getpid(), "-", run++);
}

// Removes the device files when the run ends, after the jobs are gone.
struct DeviceFiles {
  std::string ns;
  ~DeviceFiles() { RemoveDeviceFiles(ns); }
};

std::string StderrTail(const ChildProcess& child) {
  std::string text = child.Stderr();
  constexpr size_t kTail = 600;
  if (text.size() > kTail) text = "..." + text.substr(text.size() - kTail);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text.empty() ? "(no stderr)" : text;
}

absl::Status JobFailed(const JobSpec& spec, ChildProcess& child, absl::string_view what) {
  child.Running();  // reap, so the status is known
  return absl::InternalError(absl::StrCat("job ", Describe(spec), " (pid ", child.pid(), ") ", what,
                                          " [", child.DescribeStatus(), "]: ", StderrTail(child)));
}

}  // namespace

void RemoveOrphanedDeviceFiles() {
  DIR* dir = ::opendir("/dev/shm");
  if (dir == nullptr) return;
  std::vector<std::string> orphans;
  while (const dirent* e = ::readdir(dir)) {
    absl::string_view name = e->d_name;
    if (!absl::ConsumePrefix(&name, kNamespacePrefix)) continue;
    int pid = 0;
    if (!absl::SimpleAtoi(name.substr(0, name.find('-')), &pid) || pid <= 0) continue;
    if (::kill(pid, 0) != 0 && errno == ESRCH) orphans.push_back(e->d_name);
  }
  ::closedir(dir);
  for (const std::string& name : orphans) ::unlink(("/dev/shm/" + name).c_str());
}

absl::StatusOr<double> SummaryItersPerS(const std::string& stdout_text) {
  constexpr absl::string_view kKey = "\"iters_per_s\": ";
  std::optional<double> found;
  for (absl::string_view line : absl::StrSplit(stdout_text, '\n')) {
    if (!absl::StartsWith(line, "{\"summary\": true")) continue;
    const size_t at = line.find(kKey);
    if (at == absl::string_view::npos) continue;
    absl::string_view rest = line.substr(at + kKey.size());
    rest = rest.substr(0, rest.find_first_of(",}"));
    double v = 0;
    if (absl::SimpleAtod(absl::StripAsciiWhitespace(rest), &v)) found = v;
  }
  if (!found) return absl::NotFoundError("no summary line with iters_per_s");
  return *found;
}

absl::StatusOr<RunResult> RunJobs(const Paths& paths, const Timing& timing,
                                  const std::vector<JobSpec>& specs,
                                  const std::vector<std::string>& inherited_env,
                                  const StartBeside& beside) {
  if (specs.empty()) return absl::InvalidArgumentError("no jobs");
  // Destroyed in reverse order: probe (unmap), children (killed if still
  // running), the process beside them, then the device files.
  DeviceFiles files{NextNamespace()};
  RemoveDeviceFiles(files.ns);  // a previous benchmark with this pid may have crashed
  std::unique_ptr<ChildProcess> beside_process;
  if (beside) {
    absl::StatusOr<std::unique_ptr<ChildProcess>> started = beside(files.ns);
    if (!started.ok()) return started.status();
    beside_process = *std::move(started);
  }
  auto beside_died = [&]() -> absl::Status {
    if (beside_process == nullptr || beside_process->Running()) return absl::OkStatus();
    return absl::InternalError(absl::StrCat("the process beside the jobs (pid ",
                                            beside_process->pid(), ") exited [",
                                            beside_process->DescribeStatus(),
                                            "]: ", StderrTail(*beside_process)));
  };
  std::vector<std::unique_ptr<ChildProcess>> children;
  std::vector<pid_t> pids;
  for (const JobSpec& spec : specs) {
    absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(
        paths.fakejob, JobArgv(paths, spec), JobEnv(inherited_env, paths, spec, files.ns));
    if (!child.ok()) return child.status();
    pids.push_back((*child)->pid());
    children.push_back(*std::move(child));
  }
  auto all_running = [&children] {
    for (const auto& c : children) {
      if (!c->Running()) return false;
    }
    return true;
  };
  auto first_dead = [&]() -> absl::Status {
    for (size_t i = 0; i < children.size(); ++i) {
      if (!children[i]->Running()) return JobFailed(specs[i], *children[i], "exited early");
    }
    return beside_died();
  };

  absl::StatusOr<std::unique_ptr<DeviceProbe>> probe =
      DeviceProbe::WaitForJobs(files.ns, pids, timing.start_timeout_s, all_running);
  if (!probe.ok()) {
    if (absl::Status dead = first_dead(); !dead.ok()) return dead;
    return probe.status();
  }
  if (absl::Status s = SleepUnlessInterrupted(timing.warmup_s); !s.ok()) return s;
  absl::StatusOr<DeviceSnapshot> before = (*probe)->Snapshot(pids);
  if (!before.ok()) {
    if (absl::Status dead = first_dead(); !dead.ok()) return dead;
    return before.status();
  }
  if (absl::Status s = SleepUnlessInterrupted(timing.window_s); !s.ok()) return s;
  absl::StatusOr<DeviceSnapshot> after = (*probe)->Snapshot(pids);
  if (!after.ok()) {
    if (absl::Status dead = first_dead(); !dead.ok()) return dead;
    return after.status();
  }
  if (absl::Status dead = first_dead(); !dead.ok()) return dead;

  for (auto& c : children) c->Signal(SIGINT);
  RunResult result;
  for (size_t i = 0; i < children.size(); ++i) {
    ChildProcess& child = *children[i];
    // Short slices, so a Ctrl-C during a long last iteration is not ignored.
    constexpr double kSliceS = 0.1;
    for (double waited = 0; !child.WaitExit(kSliceS); waited += kSliceS) {
      if (Interrupted()) return absl::CancelledError("interrupted");
      if (waited >= timing.stop_timeout_s) {
        return JobFailed(
            specs[i], child,
            absl::StrCat("did not stop within ", timing.stop_timeout_s, " s of SIGINT"));
      }
    }
    const int status = *child.status();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      return JobFailed(specs[i], child, "failed");
    }
    absl::StatusOr<double> summary = SummaryItersPerS(child.Stdout());
    if (!summary.ok()) return JobFailed(specs[i], child, summary.status().message());
    if (Interrupted()) return absl::CancelledError("interrupted");

    const ProcessCounters& a = before->procs.at(pids[i]);
    const ProcessCounters& b = after->procs.at(pids[i]);
    JobResult job;
    job.window =
        ProcessCounters{b.gpu_time_ns - a.gpu_time_ns, b.solo_time_ns - a.solo_time_ns,
                        b.work_ns - a.work_ns, b.active_ns - a.active_ns,
                        b.kernels_completed - a.kernels_completed};
    job.summary_iters_per_s = *summary;
    result.jobs.push_back(job);
  }
  result.window_s = static_cast<double>(after->t_ns - before->t_ns) / 1e9;
  if (result.window_s <= 0) return absl::InternalError("the device clock did not advance");
  result.busy_fraction = (after->busy_ns - before->busy_ns) / 1e9 / result.window_s;
  for (size_t i = 0; i < specs.size(); ++i) {
    result.jobs[i].iters_per_s = static_cast<double>(result.jobs[i].window.kernels_completed) /
                                 specs[i].kernels_per_iter / result.window_s;
  }
  return result;
}

}  // namespace iashim::gatebench
