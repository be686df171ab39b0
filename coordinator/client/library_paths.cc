#include "coordinator/client/library_paths.h"

#include <vector>

namespace iashim::client {
namespace {

std::string Join(std::string_view dir, std::string_view rest) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out += '/';
  out += rest;
  return out;
}

// The two layouts iashim can sit in, as (base directory, path below it) pairs
// relative to the executable's directory; the build tree is tried first
// because a developer's checkout may also have an older install on PATH.
std::vector<std::string> Candidates(std::string_view exe_path, std::string_view build_rel,
                                    std::string_view install_rel) {
  std::vector<std::string> out;
  const std::string exe_dir = ParentDir(exe_path);
  if (exe_dir.empty()) return out;
  const std::string build = ParentDir(ParentDir(exe_dir));  // <build>/coordinator/cli
  if (!build.empty()) out.push_back(Join(build, build_rel));
  const std::string prefix = ParentDir(exe_dir);  // <prefix>/bin
  if (!prefix.empty()) out.push_back(Join(prefix, install_rel));
  return out;
}

std::string ListForMessage(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& p : paths) out += (out.empty() ? "" : ", ") + p;
  return out.empty() ? std::string("(nowhere: the executable's path is unknown)") : out;
}

// ld.so splits LD_PRELOAD at spaces and colons and LD_LIBRARY_PATH at colons
// and semicolons, so such a path would preload or search something else.
absl::Status CheckUsableInList(const std::string& path, std::string_view what) {
  if (path.find_first_of(" :;") != std::string::npos) {
    return absl::FailedPreconditionError(std::string(what) + " " + path +
                                         ": a path with a space, ':' or ';' cannot be put in "
                                         "LD_PRELOAD or LD_LIBRARY_PATH");
  }
  return absl::OkStatus();
}

}  // namespace

std::string ParentDir(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return "";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

absl::StatusOr<std::string> FindShimLibrary(std::string_view exe_path, const EnvLookup& env,
                                            const FileExists& exists) {
  if (const char* override_path = env("IASHIM_LIBRARY");
      override_path != nullptr && *override_path != '\0') {
    const std::string path = override_path;
    // The job may start in another directory than ours; a relative path
    // would then preload nothing, silently.
    if (path.front() != '/') {
      return absl::FailedPreconditionError("IASHIM_LIBRARY=" + path +
                                           ": must be an absolute path to libiashim.so");
    }
    if (!exists(path)) {
      return absl::NotFoundError("IASHIM_LIBRARY=" + path + ": no such file");
    }
    if (absl::Status s = CheckUsableInList(path, "IASHIM_LIBRARY"); !s.ok()) return s;
    return path;
  }
  const std::vector<std::string> candidates =
      Candidates(exe_path, Join("libiashim", kShimFileName), Join("lib", kShimFileName));
  for (const std::string& path : candidates) {
    if (exists(path)) {
      if (absl::Status s = CheckUsableInList(path, "the shim"); !s.ok()) return s;
      return path;
    }
  }
  return absl::NotFoundError("cannot find libiashim.so (looked at " + ListForMessage(candidates) +
                             "); build it, or set IASHIM_LIBRARY to its path");
}

absl::StatusOr<std::string> FindSimgpuDir(std::string_view exe_path, const EnvLookup& env,
                                          const FileExists& exists) {
  if (const char* override_dir = env("IASHIM_SIMGPU_DIR");
      override_dir != nullptr && *override_dir != '\0') {
    std::string dir = override_dir;
    if (dir.front() != '/') {
      return absl::FailedPreconditionError("IASHIM_SIMGPU_DIR=" + dir +
                                           ": must be an absolute path to simgpu's directory");
    }
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (!exists(Join(dir, kSimgpuDriverFileName))) {
      return absl::NotFoundError("IASHIM_SIMGPU_DIR=" + dir + ": no " +
                                 std::string(kSimgpuDriverFileName) + " there");
    }
    if (absl::Status s = CheckUsableInList(dir, "IASHIM_SIMGPU_DIR"); !s.ok()) return s;
    return dir;
  }
  const std::vector<std::string> candidates = Candidates(exe_path, "simgpu", Join("lib", "simgpu"));
  std::vector<std::string> looked;
  for (const std::string& dir : candidates) {
    const std::string driver = Join(dir, kSimgpuDriverFileName);
    looked.push_back(driver);
    if (exists(driver)) {
      if (absl::Status s = CheckUsableInList(dir, "simgpu's directory"); !s.ok()) return s;
      return dir;
    }
  }
  return absl::NotFoundError("--simgpu: cannot find simgpu's libcuda.so.1 (looked at " +
                             ListForMessage(looked) +
                             "); build simgpu, or set IASHIM_SIMGPU_DIR to its directory");
}

}  // namespace iashim::client
