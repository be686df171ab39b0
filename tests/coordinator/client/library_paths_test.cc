#include "coordinator/client/library_paths.h"

#include <map>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace iashim::client {
namespace {

using ::testing::HasSubstr;

// A file system and an environment made of sets and maps.
struct World {
  std::set<std::string> files;
  std::map<std::string, std::string> env;

  EnvLookup Env() const {
    return [this](const char* name) -> const char* {
      auto it = env.find(name);
      return it == env.end() ? nullptr : it->second.c_str();
    };
  }
  FileExists Exists() const {
    return [this](const std::string& path) { return files.count(path) > 0; };
  }
};

TEST(LibraryPaths, ParentDir) {
  EXPECT_EQ(ParentDir("/a/b/c"), "/a/b");
  EXPECT_EQ(ParentDir("/a/b/"), "/a");
  EXPECT_EQ(ParentDir("/a"), "/");
  EXPECT_EQ(ParentDir("/"), "/");
  EXPECT_EQ(ParentDir("iashim"), "");
}

TEST(LibraryPaths, BuildTree) {
  World w;
  w.files = {"/src/build/libiashim/libiashim.so", "/src/build/simgpu/libcuda.so.1"};
  absl::StatusOr<std::string> shim =
      FindShimLibrary("/src/build/coordinator/cli/iashim", w.Env(), w.Exists());
  ASSERT_TRUE(shim.ok()) << shim.status();
  EXPECT_EQ(*shim, "/src/build/libiashim/libiashim.so");
  absl::StatusOr<std::string> simgpu =
      FindSimgpuDir("/src/build/coordinator/cli/iashim", w.Env(), w.Exists());
  ASSERT_TRUE(simgpu.ok()) << simgpu.status();
  EXPECT_EQ(*simgpu, "/src/build/simgpu");
}

TEST(LibraryPaths, InstalledTree) {
  World w;
  w.files = {"/opt/iashim/lib/libiashim.so", "/opt/iashim/lib/simgpu/libcuda.so.1"};
  EXPECT_EQ(*FindShimLibrary("/opt/iashim/bin/iashim", w.Env(), w.Exists()),
            "/opt/iashim/lib/libiashim.so");
  EXPECT_EQ(*FindSimgpuDir("/opt/iashim/bin/iashim", w.Env(), w.Exists()),
            "/opt/iashim/lib/simgpu");
}

TEST(LibraryPaths, InstalledUnderRoot) {
  World w;
  w.files = {"/lib/libiashim.so"};
  EXPECT_EQ(*FindShimLibrary("/bin/iashim", w.Env(), w.Exists()), "/lib/libiashim.so");
}

TEST(LibraryPaths, BuildTreeWinsOverInstalledLayout) {
  World w;
  // <exe>/../../libiashim (build) and <exe>/../lib (install) both exist.
  w.files = {"/x/libiashim/libiashim.so", "/x/y/lib/libiashim.so"};
  EXPECT_EQ(*FindShimLibrary("/x/y/z/iashim", w.Env(), w.Exists()), "/x/libiashim/libiashim.so");
}

TEST(LibraryPaths, EnvironmentOverrides) {
  World w;
  w.files = {"/src/build/libiashim/libiashim.so", "/custom/libiashim.so", "/sim/libcuda.so.1"};
  w.env = {{"IASHIM_LIBRARY", "/custom/libiashim.so"}, {"IASHIM_SIMGPU_DIR", "/sim/"}};
  EXPECT_EQ(*FindShimLibrary("/src/build/coordinator/cli/iashim", w.Env(), w.Exists()),
            "/custom/libiashim.so");
  EXPECT_EQ(*FindSimgpuDir("/src/build/coordinator/cli/iashim", w.Env(), w.Exists()), "/sim");
}

TEST(LibraryPaths, BadOverridesAreErrorsNotFallbacks) {
  World w;
  w.files = {"/src/build/libiashim/libiashim.so", "/src/build/simgpu/libcuda.so.1"};
  const std::string exe = "/src/build/coordinator/cli/iashim";
  w.env = {{"IASHIM_LIBRARY", "/missing/libiashim.so"}};
  EXPECT_THAT(FindShimLibrary(exe, w.Env(), w.Exists()).status().message(),
              HasSubstr("IASHIM_LIBRARY=/missing/libiashim.so: no such file"));
  w.env = {{"IASHIM_LIBRARY", "build/libiashim/libiashim.so"}};
  EXPECT_THAT(FindShimLibrary(exe, w.Env(), w.Exists()).status().message(),
              HasSubstr("must be an absolute path"));
  w.env = {{"IASHIM_SIMGPU_DIR", "/empty"}};
  EXPECT_THAT(FindSimgpuDir(exe, w.Env(), w.Exists()).status().message(),
              HasSubstr("IASHIM_SIMGPU_DIR=/empty: no libcuda.so.1 there"));
  // An empty variable counts as unset.
  w.env = {{"IASHIM_LIBRARY", ""}};
  EXPECT_TRUE(FindShimLibrary(exe, w.Env(), w.Exists()).ok());
}

TEST(LibraryPaths, NotFoundSaysWhereItLooked) {
  World w;
  absl::StatusOr<std::string> shim = FindShimLibrary("/a/b/c/iashim", w.Env(), w.Exists());
  ASSERT_FALSE(shim.ok());
  EXPECT_THAT(shim.status().message(), HasSubstr("/a/libiashim/libiashim.so"));
  EXPECT_THAT(shim.status().message(), HasSubstr("/a/b/lib/libiashim.so"));
  EXPECT_THAT(shim.status().message(), HasSubstr("IASHIM_LIBRARY"));
  absl::StatusOr<std::string> simgpu = FindSimgpuDir("/a/b/c/iashim", w.Env(), w.Exists());
  ASSERT_FALSE(simgpu.ok());
  EXPECT_THAT(simgpu.status().message(), HasSubstr("/a/simgpu/libcuda.so.1"));
  EXPECT_THAT(simgpu.status().message(), HasSubstr("/a/b/lib/simgpu/libcuda.so.1"));
  EXPECT_THAT(FindShimLibrary("", w.Env(), w.Exists()).status().message(),
              HasSubstr("path is unknown"));
}

TEST(LibraryPaths, RefusesPathsThatBreakLdPreload) {
  World w;
  w.files = {"/my dir/libiashim/libiashim.so"};
  EXPECT_THAT(
      FindShimLibrary("/my dir/coordinator/cli/iashim", w.Env(), w.Exists()).status().message(),
      HasSubstr("cannot be put in LD_PRELOAD"));
}

}  // namespace
}  // namespace iashim::client
