// Where `iashim run` finds libiashim.so (to preload) and the simulated driver
// (for --simgpu). The CLI is useful only with the shim it was built with, so
// it looks next to itself first: in the build tree
// (<build>/coordinator/cli/iashim -> <build>/libiashim/libiashim.so,
// <build>/simgpu/) and in an installed tree (<prefix>/bin/iashim ->
// <prefix>/lib/libiashim.so, <prefix>/lib/simgpu/). IASHIM_LIBRARY and
// IASHIM_SIMGPU_DIR override both.
//
// Pure: the executable's path, the environment and the file system arrive as
// arguments, so every layout is unit-tested without building one.
#ifndef IASHIM_COORDINATOR_CLIENT_LIBRARY_PATHS_H_
#define IASHIM_COORDINATOR_CLIENT_LIBRARY_PATHS_H_

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace iashim::client {

// Null when the variable is unset.
using EnvLookup = std::function<const char*(const char* name)>;
// True when `path` is an existing regular file (or a link to one).
using FileExists = std::function<bool(const std::string& path)>;

inline constexpr std::string_view kShimFileName = "libiashim.so";
// What makes a directory the simulated driver's: the soname the CUDA runtime
// dlopens.
inline constexpr std::string_view kSimgpuDriverFileName = "libcuda.so.1";

// `exe_path` is the absolute path of the running iashim (/proc/self/exe).
// The result is absolute. An error says where it looked.
absl::StatusOr<std::string> FindShimLibrary(std::string_view exe_path, const EnvLookup& env,
                                            const FileExists& exists);

// The directory holding simgpu's libcuda.so.1 (to prepend to LD_LIBRARY_PATH).
absl::StatusOr<std::string> FindSimgpuDir(std::string_view exe_path, const EnvLookup& env,
                                          const FileExists& exists);

// "/a/b/c" -> "/a/b"; "/a" -> "/"; "" when there is no '/'.
std::string ParentDir(std::string_view path);

}  // namespace iashim::client

#endif  // IASHIM_COORDINATOR_CLIENT_LIBRARY_PATHS_H_
