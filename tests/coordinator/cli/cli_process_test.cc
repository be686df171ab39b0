// The built `iashim` run as a child process against a fake coordinator: what
// a user or a batch script sees (exit status, messages, and the environment
// the job gets, printed by /usr/bin/env as the job).
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "coordinator/client/self_info.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/coordinator/cli/child_process.h"
#include "tests/coordinator/client/fake_coordinator.h"
#include "tests/coordinator/client/test_messages.h"

namespace iashim::cli {
namespace {

using testing::Bytes;
using testing::ChildResult;
using testing::EnvEdits;
using testing::FakeCoordinator;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::PlaceReplyFields;
using testing::RunChild;
using testing::SeenRequest;
using testing::TempDir;

constexpr char kCli[] = IASHIM_CLI_PATH;

FakeCoordinator::Responder Always(std::vector<Bytes> replies) {
  return [replies](const SeenRequest&, int) { return replies; };
}

class CliProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The job is /usr/bin/env, which is not built with the sanitizers, so
    // the real (possibly instrumented) shim cannot be preloaded into it here.
    // A stand-in named libiashim.so that is harmless to preload: libc itself.
    Dl_info info;
    ASSERT_NE(dladdr(reinterpret_cast<void*>(&gnu_get_libc_version), &info), 0);
    std::filesystem::create_directories(dir_.path() + "/lib");
    shim_ = dir_.path() + "/lib/libiashim.so";
    std::filesystem::create_symlink(info.dli_fname, shim_);
    simgpu_ = dir_.path() + "/sim";
    std::filesystem::create_directories(simgpu_);
    std::ofstream(simgpu_ + "/libcuda.so.1") << "";
  }

  // Hermetic: nothing the test runner's environment holds steers the child.
  EnvEdits Env(EnvEdits extra = {}) const {
    EnvEdits env = {{"IASHIM_LIBRARY", shim_},    {"IASHIM_SIMGPU_DIR", simgpu_},
                    {"IASHIM_COORDINATOR", {}},   {"IASHIM_JOB", {}},
                    {"IASHIM_MEM_LIMIT", {}},     {"IASHIM_SHARE", {}},
                    {"CUDA_VISIBLE_DEVICES", {}}, {"LD_PRELOAD", {}},
                    {"LD_LIBRARY_PATH", {}}};
    for (auto& [name, value] : extra) {
      bool replaced = false;
      for (auto& [n, v] : env) {
        if (n == name) v = value, replaced = true;
      }
      if (!replaced) env.emplace_back(name, value);
    }
    return env;
  }

  ChildResult Cli(std::vector<std::string> args, EnvEdits extra = {}, double timeout_s = 20) {
    args.insert(args.begin(), kCli);
    return RunChild(args, Env(std::move(extra)), timeout_s);
  }

  TempDir dir_;
  std::string shim_;
  std::string simgpu_;
};

TEST_F(CliProcessTest, RunPlacedGivesTheJobItsPlacement) {
  FakeCoordinator fake(Always({testing::EncodePlaceReply(PlaceReplyFields{})}));
  const ChildResult r = Cli({"run", "--coordinator", fake.endpoint(), "--job", "want", "--mem",
                             "1GiB", "--slowdown-target", "0.2", "--", "/usr/bin/env"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nCUDA_VISIBLE_DEVICES=1\n"));
  EXPECT_THAT(r.out, HasSubstr("\nIASHIM_JOB=job-1\n"));  // the coordinator's id wins
  EXPECT_THAT(r.out, HasSubstr("\nIASHIM_SHARE=0.5\n"));
  EXPECT_THAT(r.out, HasSubstr("\nIASHIM_MEM_LIMIT=17179869184\n"));
  EXPECT_THAT(r.out, HasSubstr("\nIASHIM_PRIORITY=guaranteed\n"));
  EXPECT_THAT(r.out, HasSubstr("\nIASHIM_COORDINATOR=" + fake.endpoint() + "\n"));
  EXPECT_THAT(r.out, HasSubstr("\nLD_PRELOAD=" + shim_ + "\n"));
  EXPECT_THAT(r.out, HasSubstr("libiashim.so"));
  EXPECT_THAT(r.err, HasSubstr("iashim: job job-1 placed on this host GPU 1, share 0.5"));

  const std::vector<SeenRequest> seen = fake.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].type, wire::Payload::PlaceRequest);
  EXPECT_EQ(seen[0].job, "want");
  EXPECT_EQ(seen[0].mem_bytes, uint64_t{1} << 30);
  EXPECT_EQ(seen[0].gpu, -1);
  EXPECT_EQ(seen[0].priority, wire::Priority::Guaranteed);
  EXPECT_DOUBLE_EQ(seen[0].slowdown_target, 0.2);
  EXPECT_EQ(seen[0].command, "/usr/bin/env");
  EXPECT_EQ(seen[0].host, client::HostName());
  EXPECT_GT(seen[0].pid, 0);
}

TEST_F(CliProcessTest, RunWithSimgpuAndExistingPaths) {
  FakeCoordinator fake(Always({testing::EncodePlaceReply(PlaceReplyFields{})}));
  const ChildResult r = Cli({"run", "--coordinator", fake.endpoint(), "--simgpu", "--priority",
                             "opportunistic", "--", "/usr/bin/env"},
                            {{"LD_LIBRARY_PATH", "/opt/x"}, {"LD_PRELOAD", "/no/such/libfoo.so"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nLD_LIBRARY_PATH=" + simgpu_ + ":/opt/x\n"));
  EXPECT_THAT(r.out, HasSubstr("\nLD_PRELOAD=" + shim_ + ":/no/such/libfoo.so\n"));
  EXPECT_THAT(r.out, HasSubstr("\nIASHIM_PRIORITY=opportunistic\n"));
}

TEST_F(CliProcessTest, RunWithoutCoordinatorRunsUnmanaged) {
  const std::string nobody = "ipc://" + dir_.path() + "/nobody";
  // The endpoint comes from IASHIM_COORDINATOR, which the job must not inherit.
  const ChildResult r = Cli({"run", "--timeout-s", "0.3", "--mem", "1GiB", "--", "/usr/bin/env"},
                            {{"IASHIM_COORDINATOR", nobody}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("iashim: no coordinator at " + nobody +
                               " (no reply in 0.3 s); running /usr/bin/env unmanaged"));
  EXPECT_THAT(r.out, HasSubstr("\nLD_PRELOAD=" + shim_ + "\n"));
  EXPECT_THAT(r.out, HasSubstr("\nIASHIM_MEM_LIMIT=1073741824\n"));
  EXPECT_THAT(r.out, HasSubstr("\nIASHIM_PRIORITY=guaranteed\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("IASHIM_COORDINATOR=")));
  EXPECT_THAT(r.out, Not(HasSubstr("CUDA_VISIBLE_DEVICES=")));
}

TEST_F(CliProcessTest, RunRefused) {
  PlaceReplyFields refused;
  refused.ok = false;
  refused.error = "needs 200 GiB, the largest GPU has 80 GiB";
  FakeCoordinator fake(Always({testing::EncodePlaceReply(refused)}));
  const ChildResult r = Cli({"run", "--coordinator", fake.endpoint(), "--", "/usr/bin/env"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("iashim: the coordinator refused the job: needs 200 GiB, the "
                               "largest GPU has 80 GiB"));
  EXPECT_THAT(r.out, IsEmpty());
}

TEST_F(CliProcessTest, RunErrorReplyIsARefusal) {
  FakeCoordinator fake(Always({testing::EncodeErrorReply("shutting down")}));
  const ChildResult r = Cli({"run", "--coordinator", fake.endpoint(), "--", "/usr/bin/env"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("refused the job: shutting down"));
}

TEST_F(CliProcessTest, RunOnAnotherHostIsRefused) {
  PlaceReplyFields elsewhere;
  elsewhere.host = "some-other-node-" + client::HostName();
  FakeCoordinator fake(Always({testing::EncodePlaceReply(elsewhere)}));
  const ChildResult r = Cli({"run", "--coordinator", fake.endpoint(), "--", "/usr/bin/env"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("placed the job on host some-other-node-"));
  EXPECT_THAT(r.out, IsEmpty());
}

TEST_F(CliProcessTest, RunQueuedThenPlaced) {
  PlaceReplyFields queued;
  queued.ok = false;
  queued.queued = true;
  queued.error = "all GPUs busy";
  FakeCoordinator fake([queued](const SeenRequest&, int n) {
    return std::vector<Bytes>{n == 0 ? testing::EncodePlaceReply(queued)
                                     : testing::EncodePlaceReply(PlaceReplyFields{})};
  });
  const ChildResult r = Cli({"run", "--coordinator", fake.endpoint(), "--", "/usr/bin/env"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("iashim: queued: all GPUs busy"));
  EXPECT_THAT(r.out, HasSubstr("\nIASHIM_JOB=job-1\n"));
  EXPECT_EQ(fake.requests().size(), 2u);
}

TEST_F(CliProcessTest, CtrlCWhileQueuedExits130) {
  PlaceReplyFields queued;
  queued.ok = false;
  queued.queued = true;
  FakeCoordinator fake(Always({testing::EncodePlaceReply(queued)}));
  testing::Child child({kCli, "run", "--coordinator", fake.endpoint(), "--", "/usr/bin/env"},
                       Env());
  // The second request (the retry, 2 s later) proves the child has taken the
  // first reply in and said "queued": interrupting after the first request
  // alone could beat the reply on a slow (sanitizer) build.
  ASSERT_TRUE(fake.WaitForRequests(2, 10));
  kill(child.pid(), SIGINT);
  const ChildResult r = child.Wait(10);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_THAT(r.err, HasSubstr("iashim: queued: no GPU fits now"));
  EXPECT_THAT(r.out, IsEmpty());
}

TEST_F(CliProcessTest, RunExitStatusIsTheCommandsOrAShells) {
  FakeCoordinator fake(Always({testing::EncodePlaceReply(PlaceReplyFields{})}));
  EXPECT_EQ(
      Cli({"run", "--coordinator", fake.endpoint(), "--", "/bin/sh", "-c", "exit 7"}).exit_code, 7);
  const ChildResult missing =
      Cli({"run", "--coordinator", fake.endpoint(), "--", "/nonexistent/prog"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_THAT(missing.err, HasSubstr("iashim: /nonexistent/prog: No such file or directory"));
  // Found on PATH, as a shell would.
  EXPECT_EQ(Cli({"run", "--coordinator", fake.endpoint(), "--", "true"}).exit_code, 0);
}

// A command that cannot start never says Hello or Goodbye: iashim run
// releases its placement at once instead of leaving a ghost that holds the
// GPU until the coordinator forgets it.
TEST_F(CliProcessTest, RunReleasesAJobWhoseCommandCannotStart) {
  PlaceReplyFields placed;
  placed.token = "0123456789abcdef0123456789abcdef";
  FakeCoordinator fake([&](const SeenRequest& req, int) -> std::vector<Bytes> {
    if (req.type == wire::Payload::ReleaseRequest) {
      return {testing::EncodeReleaseReply(true, "released job 'job-1'")};
    }
    return {testing::EncodePlaceReply(placed)};
  });
  const ChildResult r = Cli({"run", "--coordinator", fake.endpoint(), "--", "/no/such/program"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_THAT(r.err, HasSubstr("iashim: /no/such/program: No such file or directory"));
  EXPECT_THAT(r.err, HasSubstr("iashim: released job job-1"));
  const std::vector<SeenRequest> seen = fake.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].type, wire::Payload::PlaceRequest);
  EXPECT_EQ(seen[1].type, wire::Payload::ReleaseRequest);
  EXPECT_EQ(seen[1].job, "job-1");
  EXPECT_EQ(seen[1].token, placed.token);

  // A job that started and failed on its own is the job's business: no release.
  EXPECT_EQ(Cli({"run", "--coordinator", fake.endpoint(), "--", "/bin/sh", "-c", "exit 7"})
                .exit_code,
            7);
  EXPECT_EQ(fake.requests().size(), 3u);
}

TEST_F(CliProcessTest, RunGangSeesEveryGpuInRankOrder) {
  PlaceReplyFields placed;
  placed.host = "";
  placed.gpu = 2;
  placed.gpus = {2, 3};
  placed.gpu_uuids = {"GPU-2", "GPU-3"};
  FakeCoordinator fake(Always({testing::EncodePlaceReply(placed)}));
  const ChildResult r =
      Cli({"run", "--coordinator", fake.endpoint(), "--gpus", "2", "--", "/usr/bin/env"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nCUDA_VISIBLE_DEVICES=2,3\n"));
  EXPECT_THAT(r.err, HasSubstr(" GPUs 2,3, share 0.5"));
  ASSERT_EQ(fake.requests().size(), 1u);
  EXPECT_EQ(fake.requests()[0].gpus, 2);
}

// A coordinator from before gangs ignores the count and places one GPU: the
// job's ranks would find too few, so it is not started, and released.
TEST_F(CliProcessTest, RunGangOnACoordinatorWithoutGangsIsRefusedAndReleased) {
  PlaceReplyFields placed;
  placed.token = "0123456789abcdef0123456789abcdef";
  FakeCoordinator fake([&](const SeenRequest& req, int) -> std::vector<Bytes> {
    if (req.type == wire::Payload::ReleaseRequest) {
      return {testing::EncodeReleaseReply(true, "released job 'job-1'")};
    }
    return {testing::EncodePlaceReply(placed)};
  });
  const ChildResult r =
      Cli({"run", "--coordinator", fake.endpoint(), "--gpus", "4", "--", "/usr/bin/env"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("refused the job: it placed 1 of the 4 GPUs asked"));
  EXPECT_THAT(r.out, Not(HasSubstr("CUDA_VISIBLE_DEVICES")));
  const std::vector<SeenRequest> seen = fake.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].type, wire::Payload::ReleaseRequest);
  EXPECT_EQ(seen[1].token, placed.token);
}

TEST_F(CliProcessTest, PlaceGangPrintsEveryGpu) {
  PlaceReplyFields placed;
  placed.host = "node-a";
  placed.gpu = 0;
  placed.gpu_uuid = "GPU-0";
  placed.gpus = {0, 1};
  placed.gpu_uuids = {"GPU-0", "GPU-1"};
  FakeCoordinator fake(Always({testing::EncodePlaceReply(placed)}));
  const ChildResult r = Cli({"place", "--coordinator", fake.endpoint(), "--gpus", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "placed\njob: job-1\nhost: node-a\ngpu: 0\ngpu_uuid: GPU-0\ngpus: 0,1\n"
            "gpu_uuids: GPU-0,GPU-1\nshare: 0.5\nmem_limit: 17179869184 (16.0 GiB)\n");
  const ChildResult bad = Cli({"place", "--coordinator", fake.endpoint(), "--gpus", "0"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--gpus '0': must be a number of GPUs from 1 to 64"));
}

TEST_F(CliProcessTest, RunWithoutTheShimFailsBeforeAsking) {
  FakeCoordinator fake(Always({testing::EncodePlaceReply(PlaceReplyFields{})}));
  const ChildResult r = Cli({"run", "--coordinator", fake.endpoint(), "--", "/usr/bin/env"},
                            {{"IASHIM_LIBRARY", dir_.path() + "/missing.so"}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("IASHIM_LIBRARY=" + dir_.path() + "/missing.so: no such file"));
  EXPECT_TRUE(fake.requests().empty());
}

TEST_F(CliProcessTest, PlaceOutcomes) {
  PlaceReplyFields placed;
  placed.host = "node-a";
  {
    FakeCoordinator fake(Always({testing::EncodePlaceReply(placed)}));
    const ChildResult r = Cli({"place", "--coordinator", fake.endpoint(), "--gpu", "1"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out,
              "placed\njob: job-1\nhost: node-a\ngpu: 1\ngpu_uuid: GPU-1111\nshare: 0.5\n"
              "mem_limit: 17179869184 (16.0 GiB)\n");
    ASSERT_EQ(fake.requests().size(), 1u);
    EXPECT_EQ(fake.requests()[0].gpu, 1);
  }
  PlaceReplyFields queued;
  queued.ok = false;
  queued.queued = true;
  queued.error = "wait for gpu 0";
  {
    FakeCoordinator fake(Always({testing::EncodePlaceReply(queued)}));
    const ChildResult r = Cli({"place", "--coordinator", fake.endpoint()});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.out, "queued: wait for gpu 0\n");
  }
  PlaceReplyFields refused;
  refused.ok = false;
  refused.error = "no";
  {
    FakeCoordinator fake(Always({testing::EncodePlaceReply(refused)}));
    const ChildResult r = Cli({"place", "--coordinator", fake.endpoint()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "refused: no\n");
  }
  // --dry-run: the request says so, the answer says so, and there is no token.
  PlaceReplyFields dry = placed;
  dry.dry_run = true;
  {
    FakeCoordinator fake(Always({testing::EncodePlaceReply(dry)}));
    const ChildResult r = Cli({"place", "--coordinator", fake.endpoint(), "--dry-run"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out,
              "placed\ndry_run: true\njob: job-1\nhost: node-a\ngpu: 1\ngpu_uuid: GPU-1111\n"
              "share: 0.5\nmem_limit: 17179869184 (16.0 GiB)\n");
    ASSERT_EQ(fake.requests().size(), 1u);
    EXPECT_TRUE(fake.requests()[0].dry_run);
    EXPECT_FALSE(fake.requests()[0].guaranteed_gres);
    // Where in the cluster, not on this node: no host.
    EXPECT_EQ(fake.requests()[0].host, "");
  }
  {
    // job_submit.lua's, when Slurm counts each node's guaranteed GPUs.
    FakeCoordinator fake(Always({testing::EncodePlaceReply(dry)}));
    const ChildResult r =
        Cli({"place", "--coordinator", fake.endpoint(), "--dry-run", "--guaranteed-gres"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(fake.requests().size(), 1u);
    EXPECT_TRUE(fake.requests()[0].guaranteed_gres);
  }
  {
    // A dry run about a GPU is about this node's.
    FakeCoordinator fake(Always({testing::EncodePlaceReply(dry)}));
    const ChildResult r = Cli({"place", "--coordinator", fake.endpoint(), "--dry-run", "--gpu", "1"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(fake.requests().size(), 1u);
    EXPECT_FALSE(fake.requests()[0].host.empty());
  }
  const ChildResult none =
      Cli({"place", "--coordinator", "ipc://" + dir_.path() + "/nobody", "--timeout-s", "0.2"});
  EXPECT_EQ(none.exit_code, 4);
  EXPECT_THAT(none.err, HasSubstr("iashim: no coordinator at ipc://"));
}

TEST_F(CliProcessTest, StatusJsonAndTable) {
  FakeCoordinator fake([](const SeenRequest& request, int) {
    return request.type == wire::Payload::StatusRequest
               ? std::vector<Bytes>{testing::EncodeSampleSnapshot()}
               : std::vector<Bytes>{};
  });
  const ChildResult json = Cli({"status", "--json", "--coordinator", fake.endpoint()});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out.front(), '{');
  EXPECT_THAT(json.out, HasSubstr("\"job\": \"resnet50\""));
  EXPECT_THAT(json.out, HasSubstr("\"slowdown\": null"));
  EXPECT_THAT(json.out, HasSubstr("\"seq\": 17"));
  const ChildResult table = Cli({"status", "--coordinator", fake.endpoint()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("node-a:0 NVIDIA H200  busy 87%"));
  EXPECT_THAT(table.out, HasSubstr("resnet50"));
  ASSERT_EQ(fake.requests().size(), 2u);
  EXPECT_EQ(fake.requests()[0].type, wire::Payload::StatusRequest);
}

TEST_F(CliProcessTest, StatusFailures) {
  const ChildResult none =
      Cli({"status", "--coordinator", "ipc://" + dir_.path() + "/nobody", "--timeout-s", "0.2"});
  EXPECT_EQ(none.exit_code, 4);
  EXPECT_THAT(none.err, HasSubstr("iashim: no coordinator at ipc://" + dir_.path() + "/nobody"));
  EXPECT_THAT(none.err, HasSubstr("start one with iashim-coordinator"));
  EXPECT_THAT(none.err, Not(HasSubstr("CurveZMQ")));  // no key configured: not the cause
  EXPECT_EQ(none.out, "");
  FakeCoordinator fake(Always({testing::EncodeErrorReply("not ready")}));
  const ChildResult error = Cli({"status", "--coordinator", fake.endpoint()});
  EXPECT_EQ(error.exit_code, 1);
  EXPECT_THAT(error.err, HasSubstr("iashim: the coordinator could not answer: not ready"));
}

TEST_F(CliProcessTest, StatusJsonFailuresAreJson) {
  const ChildResult none = Cli({"status", "--json", "--coordinator",
                                "ipc://" + dir_.path() + "/nobody", "--timeout-s", "0.2"});
  EXPECT_EQ(none.exit_code, 4);
  EXPECT_EQ(none.out.rfind("{\n  \"error\": \"no coordinator at ipc://", 0), 0u) << none.out;
  EXPECT_THAT(none.out, HasSubstr("\"hints\": ["));
  EXPECT_EQ(none.err, "");
  FakeCoordinator fake(Always({testing::EncodeErrorReply("not ready")}));
  const ChildResult error = Cli({"status", "--json", "--coordinator", fake.endpoint()});
  EXPECT_EQ(error.exit_code, 1);
  EXPECT_THAT(error.out, HasSubstr("\"error\": \"the coordinator could not answer: not ready\""));
}

TEST_F(CliProcessTest, UsageVersionAndErrors) {
  const ChildResult version = Cli({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, "iashim 0.1.0\n");
  const ChildResult help = Cli({"run", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("Usage: iashim run"));
  const ChildResult bad = Cli({"run", "--mem", "lots", "--", "true"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "iashim: --mem 'lots': not a size (for example 8GiB, 512MiB, 16GB or a number of "
            "bytes)\nTry 'iashim run --help'.\n");
  const ChildResult nothing = Cli({});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_THAT(nothing.err, HasSubstr("Try 'iashim --help'."));
}

#if defined(IASHIM_SANITIZE_ADDRESS) || defined(IASHIM_SANITIZE_THREAD)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

TEST_F(CliProcessTest, FindsTheBuiltShimNextToItself) {
  // The real shim, preloaded into /usr/bin/env: only where neither is built
  // with a sanitizer runtime that insists on loading first.
  if (kSanitized) GTEST_SKIP() << "the instrumented shim cannot be preloaded into /usr/bin/env";
  const ChildResult r = Cli({"run", "--coordinator", "ipc://" + dir_.path() + "/nobody",
                             "--timeout-s", "0.2", "--", "/usr/bin/env"},
                            {{"IASHIM_LIBRARY", {}}, {"IASHIM_SIMGPU_DIR", {}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nLD_PRELOAD=" + std::string(SHIM_PATH) + "\n"));
}

}  // namespace
}  // namespace iashim::cli
