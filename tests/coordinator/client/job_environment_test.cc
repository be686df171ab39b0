#include "coordinator/client/job_environment.h"

#include <map>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace iashim::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The changes as a map; a name changed twice would be a bug, so it fails.
std::map<std::string, std::optional<std::string>> AsMap(const std::vector<EnvChange>& changes) {
  std::map<std::string, std::optional<std::string>> out;
  for (const EnvChange& c : changes) {
    EXPECT_EQ(out.count(c.name), 0u) << c.name << " changed twice";
    out[c.name] = c.value;
  }
  return out;
}

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

JobRequest Options() {
  JobRequest o;
  o.coordinator = "tcp://head:5555";
  return o;
}

Placement Placed() {
  Placement p;
  p.outcome = Placement::Outcome::kPlaced;
  p.job = "bert-7";
  p.host = "node-a";
  p.gpu = 2;
  p.share = 0.35;
  p.mem_limit_bytes = 17179869184;
  return p;
}

const JobLibraries kLibs{"/b/libiashim/libiashim.so", ""};

TEST(JobEnvironment, ManagedSetsThePlacement) {
  std::vector<std::string> warnings;
  auto env = AsMap(ManagedEnvironment(Options(), Placed(), kLibs, Env({}), &warnings));
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "2");
  EXPECT_EQ(env["IASHIM_COORDINATOR"], "tcp://head:5555");
  EXPECT_EQ(env["IASHIM_JOB"], "bert-7");
  EXPECT_EQ(env["IASHIM_PRIORITY"], "guaranteed");
  EXPECT_EQ(env["IASHIM_SHARE"], "0.35");
  EXPECT_EQ(env["IASHIM_MEM_LIMIT"], "17179869184");
  EXPECT_EQ(env["LD_PRELOAD"], "/b/libiashim/libiashim.so");
  EXPECT_EQ(env.count("LD_LIBRARY_PATH"), 0u);
  EXPECT_TRUE(warnings.empty());
}

TEST(JobEnvironment, ManagedGivesAGangAllItsGpusInRankOrder) {
  Placement p = Placed();
  p.gpu = 4;
  p.gpus = {4, 5, 6, 7};
  auto env = AsMap(ManagedEnvironment(Options(), p, kLibs, Env({{"CUDA_VISIBLE_DEVICES", "0"}}),
                                      nullptr));
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "4,5,6,7");
}

TEST(JobEnvironment, ManagedPrependsToExistingPathsAndAddsSimgpu) {
  JobRequest o = Options();
  o.placement.priority = Priority::kOpportunistic;
  const JobLibraries libs{"/b/libiashim/libiashim.so", "/b/simgpu"};
  auto env = AsMap(ManagedEnvironment(o, Placed(), libs,
      Env({{"LD_PRELOAD", "/usr/lib/libfoo.so /b/libiashim/libiashim.so:libbar.so"},
           {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64"}}),
      nullptr));
  // The shim first, not twice; the user's libraries kept in order.
  EXPECT_EQ(env["LD_PRELOAD"], "/b/libiashim/libiashim.so:/usr/lib/libfoo.so:libbar.so");
  EXPECT_EQ(env["LD_LIBRARY_PATH"], "/b/simgpu:/usr/local/cuda/lib64");
  EXPECT_EQ(env["IASHIM_PRIORITY"], "opportunistic");
}

TEST(JobEnvironment, ManagedFallbacks) {
  JobRequest o = Options();
  o.placement.job = "mine";
  o.placement.mem_bytes = 1 << 30;
  Placement p = Placed();
  p.job = "";
  p.gpu = -1;
  p.mem_limit_bytes = 0;
  p.share = 1.0;
  std::vector<std::string> warnings;
  auto env = AsMap(ManagedEnvironment(o, p, kLibs, Env({}), &warnings));
  EXPECT_EQ(env["IASHIM_JOB"], "mine");              // the name asked for
  EXPECT_EQ(env["IASHIM_MEM_LIMIT"], "1073741824");  // the user's --mem
  EXPECT_EQ(env["IASHIM_SHARE"], "1");
  EXPECT_EQ(env.count("CUDA_VISIBLE_DEVICES"), 0u);
  EXPECT_THAT(warnings, ElementsAre(HasSubstr("named no GPU")));
}

TEST(JobEnvironment, ManagedDropsAnInheritedJobNameAndABadShare) {
  Placement p = Placed();
  p.job = "";
  p.share = 0;
  std::vector<std::string> warnings;
  auto env = AsMap(ManagedEnvironment(Options(), p, kLibs, Env({}), &warnings));
  ASSERT_EQ(env.count("IASHIM_JOB"), 1u);
  EXPECT_EQ(env["IASHIM_JOB"], std::nullopt);
  ASSERT_EQ(env.count("IASHIM_SHARE"), 1u);
  EXPECT_EQ(env["IASHIM_SHARE"], std::nullopt);
  EXPECT_THAT(warnings, ElementsAre(HasSubstr("ignoring the coordinator's share 0")));
}

TEST(JobEnvironment, ShareIsFormattedWithSixSignificantDigits) {
  Placement p = Placed();
  p.share = 1.0 / 3.0;
  auto env = AsMap(ManagedEnvironment(Options(), p, kLibs, Env({}), nullptr));
  EXPECT_EQ(env["IASHIM_SHARE"], "0.333333");
}

TEST(JobEnvironment, UnmanagedKeepsQuotaButNoCoordinator) {
  JobRequest o = Options();
  o.placement.mem_bytes = uint64_t{8} << 30;
  o.placement.job = "solo";
  o.placement.gpu = 1;
  auto env =
      AsMap(UnmanagedEnvironment(o, kLibs, Env({{"IASHIM_COORDINATOR", "tcp://head:5555"}})));
  ASSERT_EQ(env.count("IASHIM_COORDINATOR"), 1u);
  EXPECT_EQ(env["IASHIM_COORDINATOR"], std::nullopt);  // unset
  EXPECT_EQ(env["IASHIM_MEM_LIMIT"], "8589934592");
  EXPECT_EQ(env["IASHIM_JOB"], "solo");
  EXPECT_EQ(env["IASHIM_PRIORITY"], "guaranteed");
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "1");
  EXPECT_EQ(env["LD_PRELOAD"], "/b/libiashim/libiashim.so");
  EXPECT_EQ(env.count("IASHIM_SHARE"), 0u);
}

TEST(JobEnvironment, UnmanagedWithoutOptionsTouchesLittle) {
  auto env = AsMap(UnmanagedEnvironment(Options(), kLibs, Env({})));
  EXPECT_EQ(env.count("IASHIM_MEM_LIMIT"), 0u);
  EXPECT_EQ(env.count("IASHIM_JOB"), 0u);
  EXPECT_EQ(env.count("CUDA_VISIBLE_DEVICES"), 0u);
}

TEST(JobEnvironment, PrependToList) {
  EXPECT_EQ(PrependToList("/a.so", nullptr, " :"), "/a.so");
  EXPECT_EQ(PrependToList("/a.so", "", " :"), "/a.so");
  EXPECT_EQ(PrependToList("/a.so", "/a.so", " :"), "/a.so");
  EXPECT_EQ(PrependToList("/a.so", "::/b.so  /c.so:", " :"), "/a.so:/b.so:/c.so");
  EXPECT_EQ(PrependToList("/d", "/e;/f:/d", ":;"), "/d:/e:/f");
}

}  // namespace
}  // namespace iashim::client
