#include "coordinator/client/job_environment.h"

#include <cmath>

#include "absl/strings/str_format.h"
#include "common/text/names.h"

namespace iashim::client {
namespace {

// ld.so splits LD_PRELOAD at spaces and colons, LD_LIBRARY_PATH at colons and
// semicolons.
constexpr std::string_view kPreloadSeparators = " :";
constexpr std::string_view kLibraryPathSeparators = ":;";

// What both modes share: the shim preloaded, the simulated driver found first
// when asked for, and the settings the user gave that the shim reads itself.
void AddCommon(const JobRequest& request, const JobLibraries& libraries, const EnvLookup& env,
               std::vector<EnvChange>& out) {
  out.push_back(
      {"LD_PRELOAD", PrependToList(libraries.shim, env("LD_PRELOAD"), kPreloadSeparators)});
  if (!libraries.simgpu_dir.empty()) {
    out.push_back({"LD_LIBRARY_PATH", PrependToList(libraries.simgpu_dir, env("LD_LIBRARY_PATH"),
                                                    kLibraryPathSeparators)});
  }
  out.push_back({"IASHIM_PRIORITY", std::string(PriorityName(request.placement.priority))});
}

}  // namespace

std::string PrependToList(std::string_view item, const char* existing,
                          std::string_view separators) {
  std::string out(item);
  if (existing == nullptr) return out;
  const std::string_view rest(existing);
  size_t start = 0;
  while (start <= rest.size()) {
    size_t end = rest.find_first_of(separators, start);
    if (end == std::string_view::npos) end = rest.size();
    const std::string_view entry = rest.substr(start, end - start);
    // A nested `iashim run` (or a user who preloaded the shim already) must
    // not load it twice: two copies would both hook the driver.
    if (!entry.empty() && entry != item) {
      out += ':';
      out += entry;
    }
    start = end + 1;
  }
  return out;
}

std::vector<EnvChange> ManagedEnvironment(const JobRequest& request, const Placement& placement,
                                          const JobLibraries& libraries, const EnvLookup& env,
                                          std::vector<std::string>* warnings) {
  std::vector<EnvChange> out;
  AddCommon(request, libraries, env, out);
  out.push_back({"IASHIM_COORDINATOR", request.coordinator});
  // The key `run` itself used, as text: the shim needs no file to read.
  out.push_back({"IASHIM_COORDINATOR_KEY",
                 request.keys.curve() ? std::optional<std::string>(request.keys.server_public)
                                      : std::nullopt});
  // A gang's GPUs in rank order: rank r of a torchrun-style job (LOCAL_RANK
  // r) opens cuda:r, the gang's r-th GPU.
  if (const std::string devices = VisibleDevices(placement); !devices.empty()) {
    out.push_back({"CUDA_VISIBLE_DEVICES", devices});
  } else if (warnings != nullptr) {
    warnings->push_back("the coordinator named no GPU; CUDA_VISIBLE_DEVICES is left as it was");
  }
  // The coordinator knows a job by its id and refuses a second live process
  // with the same one, so an IASHIM_JOB inherited from an enclosing job must
  // not leak through.
  std::string job = placement.job.empty() ? request.placement.job : placement.job;
  out.push_back({"IASHIM_JOB", job.empty() ? std::nullopt : std::optional<std::string>(job)});
  // The shim proves with it that it is this job's process; an enclosing job's
  // token must not leak through either.
  if (ValidJobToken(placement.token)) {
    out.push_back({"IASHIM_JOB_TOKEN", placement.token});
  } else {
    out.push_back({"IASHIM_JOB_TOKEN", std::nullopt});
    if (warnings != nullptr && !placement.token.empty()) {
      warnings->push_back("the coordinator's job token is malformed; the job may run unmanaged");
    }
  }
  // The shim accepts 0.001-1 and would fall back to unthrottled on anything
  // else; say so here, where the person who can act on it is looking.
  if (std::isfinite(placement.share) && placement.share >= 0.001 && placement.share <= 1.0) {
    out.push_back({"IASHIM_SHARE", absl::StrFormat("%.6g", placement.share)});
  } else {
    out.push_back({"IASHIM_SHARE", std::nullopt});
    if (warnings != nullptr) {
      warnings->push_back(absl::StrFormat(
          "ignoring the coordinator's share %g (not in 0.001-1); the job starts unthrottled",
          placement.share));
    }
  }
  // The coordinator's limit is the one it planned with; without one, the
  // user's own --mem still holds.
  const uint64_t limit =
      placement.mem_limit_bytes != 0 ? placement.mem_limit_bytes : request.placement.mem_bytes;
  if (limit != 0) out.push_back({"IASHIM_MEM_LIMIT", std::to_string(limit)});
  return out;
}

std::vector<EnvChange> UnmanagedEnvironment(const JobRequest& request,
                                            const JobLibraries& libraries, const EnvLookup& env) {
  std::vector<EnvChange> out;
  AddCommon(request, libraries, env, out);
  // Typically inherited from the environment that named the coordinator we
  // could not reach: the shim would keep trying it in the background, and a
  // later coordinator would find a job it never placed.
  out.push_back({"IASHIM_COORDINATOR", std::nullopt});
  out.push_back({"IASHIM_JOB_TOKEN", std::nullopt});
  if (!request.placement.job.empty()) out.push_back({"IASHIM_JOB", request.placement.job});
  if (request.placement.gpu >= 0) {
    out.push_back({"CUDA_VISIBLE_DEVICES", std::to_string(request.placement.gpu)});
  }
  if (request.placement.mem_bytes != 0) {
    out.push_back({"IASHIM_MEM_LIMIT", std::to_string(request.placement.mem_bytes)});
  }
  return out;
}

}  // namespace iashim::client
