#include "bench/fakejob/options.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace iashim::fakejob {
namespace {

absl::StatusOr<Options> Parse(std::vector<std::string> args) { return ParseOptions(args); }

TEST(OptionsTest, Defaults) {
  absl::StatusOr<Options> o = Parse({"--model", "resnet50"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->model, "resnet50");
  EXPECT_FALSE(o->seconds.has_value());
  EXPECT_FALSE(o->iterations.has_value());
  EXPECT_EQ(o->device, 0);
  EXPECT_FALSE(o->per_thread_stream);
  EXPECT_EQ(o->sync, SyncMode::kContext);
  EXPECT_FALSE(o->host_gap_us.has_value());
  EXPECT_FALSE(o->quiet);
  EXPECT_EQ(o->library, "libcuda.so.1");
}

TEST(OptionsTest, CheckpointNeedsIterationsAndOneProcess) {
  absl::StatusOr<Options> o = Parse({"--model", "m", "--iterations", "9", "--checkpoint", "/tmp/ck",
                                     "--checkpoint-every-s", "2.5"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->checkpoint, "/tmp/ck");
  EXPECT_DOUBLE_EQ(*o->checkpoint_every_s, 2.5);
  o = Parse({"--model", "m", "--iterations", "9", "--checkpoint", "ck"});  // this directory
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->checkpoint_every_s.has_value());

  const auto refused = [](std::vector<std::string> args, const std::string& why) {
    absl::StatusOr<Options> bad = ParseOptions(args);
    ASSERT_FALSE(bad.ok()) << ::testing::PrintToString(args);
    EXPECT_NE(bad.status().message().find(why), std::string::npos) << bad.status();
  };
  refused({"--model", "m", "--checkpoint", "/tmp/ck"}, "--checkpoint needs --iterations");
  refused({"--model", "m", "--iterations", "9", "--checkpoint", "/no/such/dir/ck"},
          "/no/such/dir is not a directory");
  refused({"--model", "m", "--iterations", "9", "--checkpoint", ""}, "for --checkpoint: empty");
  refused({"--model", "m", "--iterations", "9", "--checkpoint", "ck", "--ranks", "2"},
          "not a data-parallel one");
  refused({"--model", "m", "--iterations", "9", "--checkpoint", "ck", "--devices", "2"},
          "not a data-parallel one");
  refused({"--model", "m", "--iterations", "9", "--checkpoint-every-s", "5"},
          "--checkpoint-every-s needs --checkpoint");
  refused({"--model", "m", "--iterations", "9", "--checkpoint", "ck", "--checkpoint-every-s", "0"},
          "must be a number of seconds");
}

TEST(OptionsTest, DataParallelOptions) {
  absl::StatusOr<Options> o = Parse({"--model", "resnet50", "--ranks", "4", "--gradient-mib", "97.5"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->ranks, 4);
  EXPECT_EQ(o->devices, 1);
  EXPECT_DOUBLE_EQ(*o->gradient_mib, 97.5);
  o = Parse({"--model", "resnet50", "--devices", "2"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->devices, 2);
  EXPECT_FALSE(o->device_given);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--model", "m", "--ranks", "0"},
        std::vector<std::string>{"--model", "m", "--ranks", "65"},
        std::vector<std::string>{"--model", "m", "--devices", "two"},
        std::vector<std::string>{"--model", "m", "--gradient-mib", "-1"},
        std::vector<std::string>{"--model", "m", "--ranks", "2", "--devices", "2"},
        std::vector<std::string>{"--model", "m", "--devices", "2", "--device", "1"}}) {
    absl::StatusOr<Options> r = Parse(bad);
    EXPECT_FALSE(r.ok()) << bad[2] << " " << bad[3];
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST(OptionsTest, AllOptionsBothSpellings) {
  absl::StatusOr<Options> o =
      Parse({"--model=vgg16", "--seconds", "2.5", "--device=1", "--per-thread-stream", "--quiet",
             "--sync", "stream", "--driver", "libfoo.so"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->model, "vgg16");
  EXPECT_DOUBLE_EQ(*o->seconds, 2.5);
  EXPECT_EQ(o->device, 1);
  EXPECT_TRUE(o->per_thread_stream);
  EXPECT_TRUE(o->quiet);
  EXPECT_EQ(o->sync, SyncMode::kStreams);
  EXPECT_EQ(o->library, "libfoo.so");

  o = Parse({"--model", "x", "--iterations", "7"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(*o->iterations, 7);

  o = Parse({"--model", "x", "--sync=kernel", "--host-gap-us", "0"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->sync, SyncMode::kKernel);
  EXPECT_DOUBLE_EQ(*o->host_gap_us, 0.0);
  o = Parse({"--model", "x", "--host-gap-us=1500.5"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_DOUBLE_EQ(*o->host_gap_us, 1500.5);
  EXPECT_EQ(o->host_threads, 0);
  o = Parse({"--model", "x", "--host-threads", "3"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->host_threads, 3);
}

TEST(OptionsTest, UsageDocumentsSyncKernelAndHostGap) {
  const std::string usage = UsageText();
  EXPECT_NE(usage.find("--sync ctx|stream|kernel"), std::string::npos);
  EXPECT_NE(usage.find("--host-gap-us X"), std::string::npos);
}

TEST(OptionsTest, ListAndHelpNeedNoModel) {
  EXPECT_TRUE(Parse({"--list-models"}).ok());
  EXPECT_TRUE(Parse({"--help"}).ok());
  EXPECT_TRUE(Parse({"-h"}).ok());
}

struct BadArgs {
  std::vector<std::string> args;
  std::string expected;  // substring naming the option and the value
};

// How CTest shows a case: the error it expects.
void PrintTo(const BadArgs& b, std::ostream* os) { *os << '"' << b.expected << '"'; }

class BadOptionsTest : public testing::TestWithParam<BadArgs> {};

TEST_P(BadOptionsTest, OneLineNamingOptionAndValue) {
  absl::StatusOr<Options> o = ParseOptions(GetParam().args);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(o.status().message());
  EXPECT_NE(msg.find(GetParam().expected), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    All, BadOptionsTest,
    testing::Values(BadArgs{{"--model", "m", "--seconds", "0"}, "'0' for --seconds"},
                    BadArgs{{"--model", "m", "--seconds", "-1"}, "'-1' for --seconds"},
                    BadArgs{{"--model", "m", "--seconds", "abc"}, "'abc' for --seconds"},
                    BadArgs{{"--model", "m", "--seconds", "inf"}, "'inf' for --seconds"},
                    BadArgs{{"--model", "m", "--iterations", "0"}, "'0' for --iterations"},
                    BadArgs{{"--model", "m", "--iterations", "1.5"}, "'1.5' for --iterations"},
                    BadArgs{{"--model", "m", "--device", "-1"}, "'-1' for --device"},
                    BadArgs{{"--model", "m", "--device", "x"}, "'x' for --device"},
                    BadArgs{{"--model", "m", "--sync", "event"}, "'event' for --sync"},
                    BadArgs{{"--model", "m", "--host-gap-us", "-1"}, "'-1' for --host-gap-us"},
                    BadArgs{{"--model", "m", "--host-gap-us", "1e8"}, "'1e8' for --host-gap-us"},
                    BadArgs{{"--model", "m", "--host-gap-us", "nan"}, "'nan' for --host-gap-us"},
                    BadArgs{{"--model", "m", "--host-gap-us="}, "'' for --host-gap-us"},
                    BadArgs{{"--model", "m", "--host-gap-us"}, "--host-gap-us needs a value"},
                    BadArgs{{"--model", "m", "--host-threads", "-1"}, "'-1' for --host-threads"},
                    BadArgs{{"--model", "m", "--host-threads", "257"}, "'257' for --host-threads"},
                    BadArgs{{"--model", "m", "--host-threads", "2.5"}, "'2.5' for --host-threads"},
                    BadArgs{{"--model", "m", "--models-dir", "/nonexistent/dir"},
                            "'/nonexistent/dir' for --models-dir"},
                    BadArgs{{"--model", ""}, "'' for --model"},
                    BadArgs{{"--model"}, "--model needs a value"},
                    BadArgs{{"--model", "m", "--bogus"}, "unknown option '--bogus'"},
                    BadArgs{{"--model", "m", "stray"}, "unexpected argument 'stray'"},
                    BadArgs{{"--quiet=yes", "--model", "m"}, "--quiet takes no value"},
                    BadArgs{{"--seconds", "1"}, "--model is required"},
                    BadArgs{{"--model", "m", "--seconds", "1", "--iterations", "2"},
                            "mutually exclusive"}),
    // Readable test names: CTest lists each case by this name.
    [](const testing::TestParamInfo<BadArgs>& param_info) {
      return "Case" + std::to_string(param_info.index);
    });

TEST(ModelDirsTest, FlagBeatsEnvBeatsDefaults) {
  EXPECT_EQ(ModelDirCandidates("/flag", "/env", "/b/bench/exe", "/src"),
            std::vector<std::string>{"/flag"});
  EXPECT_EQ(ModelDirCandidates("", "/env", "/b/bench/exe", "/src"),
            std::vector<std::string>{"/env"});
  EXPECT_EQ(ModelDirCandidates("", "", "/repo/build/bench/iashim-fakejob", "/src"),
            (std::vector<std::string>{"/repo/bench/data/models", "/src/bench/data/models"}));
}

TEST(ModelDirsTest, ResolveAndList) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(testing::TempDir()) / "fakejob_models";
  fs::create_directories(dir);
  std::ofstream(dir / "b.model") << "x";
  std::ofstream(dir / "a.model") << "x";
  std::ofstream(dir / "notes.txt") << "x";

  absl::StatusOr<std::string> p = ResolveModelPath("a", {"/nonexistent", dir.string()});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, (dir / "a.model").string());

  absl::StatusOr<std::string> missing = ResolveModelPath("zzz", {dir.string()});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(std::string(missing.status().message()).find(dir.string()), std::string::npos);

  // A path is taken as a path.
  p = ResolveModelPath((dir / "b.model").string(), {});
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(ResolveModelPath("/nonexistent/x.model", {}).ok());

  absl::StatusOr<std::vector<std::string>> list = ListModelPaths({"/nonexistent", dir.string()});
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(*list,
            (std::vector<std::string>{(dir / "a.model").string(), (dir / "b.model").string()}));
  EXPECT_FALSE(ListModelPaths({"/nonexistent"}).ok());
}

}  // namespace
}  // namespace iashim::fakejob
