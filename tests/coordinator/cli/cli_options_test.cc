#include "coordinator/cli/cli_options.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace iashim::cli {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<CliOptions> Parse(std::vector<std::string> args, const char* env = nullptr) {
  return ParseCommandLine(args, env);
}

// The error message of a line that must be rejected.
std::string Error(std::vector<std::string> args, const char* env = nullptr) {
  absl::StatusOr<CliOptions> options = Parse(std::move(args), env);
  if (options.ok()) return "(accepted)";
  return std::string(options.status().message());
}

TEST(CliOptions, RunWithEveryOption) {
  absl::StatusOr<CliOptions> o =
      Parse({"run", "--priority", "opportunistic", "--mem", "8GiB", "--gpu", "3", "--job",
             "bert.large-1:a/b@c+d", "--coordinator", "ipc:///tmp/c", "--simgpu", "--timeout-s",
             "0.5", "--kind", "ResNet-50 (batch size 64)", "--", "python", "train.py", "--lr",
             "0.1"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kind, CommandKind::kRun);
  EXPECT_EQ(o->placement.priority, Priority::kOpportunistic);
  EXPECT_EQ(o->placement.mem_bytes, uint64_t{8} << 30);
  EXPECT_EQ(o->placement.gpu, 3);
  EXPECT_EQ(o->placement.job, "bert.large-1:a/b@c+d");
  EXPECT_EQ(o->placement.kind, "ResNet-50 (batch size 64)");
  EXPECT_EQ(o->coordinator, "ipc:///tmp/c");
  EXPECT_TRUE(o->simgpu);
  EXPECT_DOUBLE_EQ(o->timeout_s, 0.5);
  // Everything after "--" is the command, options of its own included.
  EXPECT_EQ(o->command, (std::vector<std::string>{"python", "train.py", "--lr", "0.1"}));
}

TEST(CliOptions, RunDefaults) {
  absl::StatusOr<CliOptions> o = Parse({"run", "--", "true"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->placement.priority, Priority::kGuaranteed);
  EXPECT_EQ(o->placement.mem_bytes, 0u);
  EXPECT_EQ(o->placement.gpu, -1);
  EXPECT_EQ(o->placement.job, "");
  EXPECT_EQ(o->placement.slowdown_target, 0.0);
  EXPECT_EQ(o->placement.kind, "");
  EXPECT_EQ(o->coordinator, "tcp://127.0.0.1:5555");
  EXPECT_DOUBLE_EQ(o->timeout_s, 2.0);
  EXPECT_FALSE(o->simgpu);
}

TEST(CliOptions, EqualsFormAndSlowdownTarget) {
  absl::StatusOr<CliOptions> o = Parse(
      {"place", "--slowdown-target=0.1", "--gpu=auto", "--mem=512MiB", "--priority=guaranteed"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kind, CommandKind::kPlace);
  EXPECT_DOUBLE_EQ(o->placement.slowdown_target, 0.1);
  EXPECT_EQ(o->placement.gpu, -1);
  EXPECT_EQ(o->placement.mem_bytes, uint64_t{512} << 20);
}

TEST(CliOptions, CoordinatorFromEnvironmentAndOverride) {
  EXPECT_EQ(Parse({"status"}, "tcp://head:7000")->coordinator, "tcp://head:7000");
  EXPECT_EQ(Parse({"status"}, "")->coordinator, "tcp://127.0.0.1:5555");
  EXPECT_EQ(Parse({"status", "--coordinator", "ipc:///x"}, "tcp://head:7000")->coordinator,
            "ipc:///x");
  // A bad variable is reported as the variable, and --coordinator is the way out.
  EXPECT_THAT(Error({"status"}, "head:7000"), HasSubstr("IASHIM_COORDINATOR='head:7000'"));
  EXPECT_TRUE(Parse({"status", "--coordinator", "tcp://h:1"}, "head:7000").ok());
}

TEST(CliOptions, StatusJson) {
  absl::StatusOr<CliOptions> o = Parse({"status", "--json", "--timeout-s", "5"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kind, CommandKind::kStatus);
  EXPECT_TRUE(o->json);
  EXPECT_DOUBLE_EQ(o->timeout_s, 5.0);
}

TEST(CliOptions, StatusPairs) {
  absl::StatusOr<CliOptions> o = Parse({"status", "--pairs"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->pairs);
  EXPECT_FALSE(o->json);
  EXPECT_FALSE(Parse({"status"})->pairs);
  EXPECT_THAT(Usage("status"), HasSubstr("--pairs"));
  EXPECT_THAT(Error({"drain", "node1", "--pairs"}), HasSubstr("unknown option '--pairs'"));
  EXPECT_THAT(Error({"status", "--pairs=1"}), HasSubstr("--pairs takes no value"));
}

// `status --events [--job NAME]`: the recent events, all or one job's; --job
// alone would silently mean nothing for status, so it is refused.
TEST(CliOptions, StatusEvents) {
  absl::StatusOr<CliOptions> o = Parse({"status", "--events"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->events);
  EXPECT_TRUE(o->placement.job.empty());
  o = Parse({"status", "--events", "--job", "slurm-25.0"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->placement.job, "slurm-25.0");
  EXPECT_FALSE(Parse({"status"})->events);
  EXPECT_THAT(Error({"status", "--job", "a"}), HasSubstr("add --events"));
  EXPECT_THAT(Error({"status", "--events", "--job", "a b"}), HasSubstr("--job 'a b'"));
  EXPECT_THAT(Error({"drain", "node1", "--events"}), HasSubstr("unknown option '--events'"));
  EXPECT_THAT(Error({"drain", "node1", "--job", "a"}), HasSubstr("unknown option '--job'"));
  EXPECT_THAT(Usage("status"), HasSubstr("--events"));
}

TEST(CliOptions, PlaceDryRun) {
  absl::StatusOr<CliOptions> o = Parse({"place", "--dry-run", "--gpu", "1"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kind, CommandKind::kPlace);
  EXPECT_TRUE(o->placement.dry_run);
  EXPECT_FALSE(Parse({"place"})->placement.dry_run);
  // Only `place` takes it: `run` always registers the job it runs.
  EXPECT_THAT(Error({"run", "--dry-run", "--", "x"}), HasSubstr("unknown option '--dry-run'"));
  EXPECT_THAT(Error({"place", "--dry-run=yes"}), HasSubstr("--dry-run takes no value"));
  EXPECT_THAT(Usage("place"), HasSubstr("--dry-run"));
}

TEST(CliOptions, GuaranteedGresGoesWithADryRun) {
  absl::StatusOr<CliOptions> o = Parse({"place", "--dry-run", "--guaranteed-gres"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->placement.guaranteed_gres);
  EXPECT_FALSE(Parse({"place", "--dry-run"})->placement.guaranteed_gres);
  EXPECT_THAT(Error({"place", "--guaranteed-gres"}),
              HasSubstr("--guaranteed-gres goes with --dry-run"));
  EXPECT_THAT(Error({"run", "--guaranteed-gres", "--", "x"}),
              HasSubstr("unknown option '--guaranteed-gres'"));
  EXPECT_THAT(Error({"place", "--dry-run", "--guaranteed-gres=1"}),
              HasSubstr("--guaranteed-gres takes no value"));
  EXPECT_THAT(Usage("place"), HasSubstr("--guaranteed-gres"));
}

TEST(CliOptions, GpusAsksForAGang) {
  absl::StatusOr<CliOptions> run = Parse({"run", "--gpus", "4", "--", "torchrun", "train.py"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->placement.gpus, 4);
  absl::StatusOr<CliOptions> place = Parse({"place", "--gpus=64", "--dry-run"});
  ASSERT_TRUE(place.ok()) << place.status();
  EXPECT_EQ(place->placement.gpus, 64);
  // One GPU by default, and --gpus 1 with a pinned GPU is just that GPU.
  EXPECT_EQ(Parse({"run", "--", "true"})->placement.gpus, 1);
  absl::StatusOr<CliOptions> one = Parse({"run", "--gpus", "1", "--gpu", "2", "--", "true"});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->placement.gpu, 2);
}

TEST(CliOptions, BadGpusAreNamed) {
  for (const char* bad : {"0", "65", "-1", "two", "1.5", ""}) {
    EXPECT_THAT(Error({"run", "--gpus", bad, "--", "true"}),
                HasSubstr(std::string("--gpus '") + bad + "': must be a number of GPUs from 1 to 64"))
        << bad;
  }
  EXPECT_THAT(Error({"place", "--gpus", "2", "--gpu", "1"}),
              HasSubstr("--gpu '1' pins one GPU; a gang (--gpus 2) cannot be pinned"));
  // Status places nothing.
  EXPECT_THAT(Error({"status", "--gpus", "2"}), HasSubstr("--gpus"));
  EXPECT_THAT(Usage("run"), HasSubstr("--gpus N"));
  EXPECT_THAT(Usage("place"), HasSubstr("--gpus N"));
}

TEST(CliOptions, HelpAndVersion) {
  EXPECT_EQ(Parse({"--help"})->kind, CommandKind::kHelp);
  EXPECT_EQ(Parse({"-h"})->help_topic, "");
  EXPECT_EQ(Parse({"--version"})->kind, CommandKind::kVersion);
  absl::StatusOr<CliOptions> run_help = Parse({"run", "--help"});
  EXPECT_EQ(run_help->kind, CommandKind::kHelp);
  EXPECT_EQ(run_help->help_topic, "run");
  EXPECT_EQ(Parse({"help", "status"})->help_topic, "status");
  // --help answers even a line with a bad value on it.
  EXPECT_EQ(Parse({"place", "--mem", "lots", "--help"})->kind, CommandKind::kHelp);
  // A "--help" after "--" belongs to the command.
  EXPECT_EQ(Parse({"run", "--", "prog", "--help"})->kind, CommandKind::kRun);
}

TEST(CliOptions, UsageTextsNameTheirOptions) {
  EXPECT_THAT(Usage(""), HasSubstr("run [options] -- CMD"));
  EXPECT_THAT(Usage("run"), HasSubstr("--slowdown-target"));
  EXPECT_THAT(Usage("run"), HasSubstr("--simgpu"));
  EXPECT_THAT(Usage("place"), HasSubstr("3 queued"));
  EXPECT_THAT(Usage("status"), HasSubstr("--json"));
}

TEST(CliOptions, RejectsCommandsAndUnknownOptions) {
  EXPECT_THAT(Error({}), HasSubstr("no command given"));
  EXPECT_THAT(Error({"launch"}), HasSubstr("unknown command 'launch'"));
  EXPECT_THAT(Error({"--mem", "1GiB"}), HasSubstr("the command comes first"));
  EXPECT_THAT(Error({"run", "--memory", "1GiB", "--", "x"}),
              HasSubstr("unknown option '--memory' for 'iashim run'"));
  // Options belong to their commands.
  EXPECT_THAT(Error({"status", "--mem", "1GiB"}), HasSubstr("unknown option '--mem'"));
  EXPECT_THAT(Error({"place", "--simgpu"}), HasSubstr("unknown option '--simgpu'"));
  EXPECT_THAT(Error({"run", "--json", "--", "x"}), HasSubstr("unknown option '--json'"));
  EXPECT_THAT(Error({"status", "extra"}), HasSubstr("unexpected argument 'extra'"));
  EXPECT_THAT(Error({"status", "--json=yes"}), HasSubstr("--json takes no value"));
  EXPECT_THAT(Error({"help", "top"}), HasSubstr("no help for 'top'"));
}

TEST(CliOptions, RunNeedsACommandAfterSeparator) {
  EXPECT_THAT(Error({"run"}), HasSubstr("no command to run: put it after '--'"));
  EXPECT_THAT(Error({"run", "python", "train.py"}),
              HasSubstr("unexpected argument 'python': put the command to run after '--'"));
  EXPECT_THAT(Error({"run", "--"}), HasSubstr("no command to run after '--'"));
  EXPECT_THAT(Error({"run", "--", ""}), HasSubstr("no command to run after '--'"));
  EXPECT_THAT(Error({"run", "--mem"}), HasSubstr("--mem needs a value (SIZE)"));
}

TEST(CliOptions, RejectsBadValues) {
  EXPECT_THAT(Error({"place", "--priority", "high"}),
              HasSubstr("--priority 'high': must be guaranteed or opportunistic"));
  EXPECT_THAT(Error({"place", "--mem", "lots"}), HasSubstr("--mem 'lots': not a size"));
  EXPECT_THAT(Error({"place", "--mem", "1.5GiB"}), HasSubstr("not a size"));
  EXPECT_THAT(Error({"place", "--mem", "0"}), HasSubstr("must be more than 0"));
  EXPECT_THAT(Error({"place", "--gpu", "64"}),
              HasSubstr("--gpu '64': must be auto or a GPU index from 0 to 63"));
  EXPECT_THAT(Error({"place", "--gpu", "-1"}), HasSubstr("--gpu '-1'"));
  EXPECT_THAT(Error({"place", "--gpu", "one"}), HasSubstr("--gpu 'one'"));
  EXPECT_TRUE(Parse({"place", "--gpu", "63"}).ok());
  EXPECT_THAT(Error({"place", "--slowdown-target", "0"}),
              HasSubstr("--slowdown-target '0': must be a number above 0 and at most 10"));
  EXPECT_THAT(Error({"place", "--slowdown-target", "10.5"}), HasSubstr("'10.5'"));
  EXPECT_THAT(Error({"place", "--slowdown-target", "nan"}), HasSubstr("'nan'"));
  EXPECT_TRUE(Parse({"place", "--slowdown-target", "10"}).ok());
  EXPECT_THAT(Error({"place", "--priority", "opportunistic", "--slowdown-target", "0.2"}),
              HasSubstr("applies to guaranteed jobs only"));
  EXPECT_THAT(Error({"place", "--job", "has space"}),
              HasSubstr("--job 'has space': must be 1-128 characters"));
  EXPECT_THAT(Error({"place", "--job="}), HasSubstr("--job ''"));
  EXPECT_THAT(Error({"place", "--job", std::string(129, 'a')}), HasSubstr("1-128"));
  EXPECT_TRUE(Parse({"place", "--job", std::string(128, 'a')}).ok());
  EXPECT_THAT(Error({"place", "--kind", " resnet"}), HasSubstr("--kind ' resnet': must be 1-128"));
  EXPECT_THAT(Error({"place", "--kind", "a\tb"}), HasSubstr("printable ASCII"));
  EXPECT_THAT(Error({"place", "--kind", std::string(129, 'k')}), HasSubstr("1-128"));
  EXPECT_THAT(Error({"status", "--timeout-s", "0"}),
              HasSubstr("--timeout-s '0': must be a number of seconds above 0"));
  EXPECT_THAT(Error({"status", "--timeout-s", "-1"}), HasSubstr("--timeout-s '-1'"));
  EXPECT_THAT(Error({"status", "--coordinator", "localhost:5555"}),
              HasSubstr("--coordinator 'localhost:5555': expected tcp://HOST:PORT or ipc://PATH"));
}

TEST(CliOptions, Endpoints) {
  EXPECT_TRUE(ValidEndpoint("tcp://127.0.0.1:5555"));
  EXPECT_TRUE(ValidEndpoint("tcp://head-node:1"));
  EXPECT_TRUE(ValidEndpoint("tcp://[::1]:65535"));
  EXPECT_TRUE(ValidEndpoint("ipc:///run/iashim/ctl"));
  EXPECT_FALSE(ValidEndpoint("ipc://"));
  EXPECT_FALSE(ValidEndpoint("tcp://host"));
  EXPECT_FALSE(ValidEndpoint("tcp://:5555"));
  EXPECT_FALSE(ValidEndpoint("tcp://*:5555"));  // bind-only
  EXPECT_FALSE(ValidEndpoint("tcp://host:0"));
  EXPECT_FALSE(ValidEndpoint("tcp://host:65536"));
  EXPECT_FALSE(ValidEndpoint("tcp://host:port"));
  EXPECT_FALSE(ValidEndpoint("udp://host:5555"));
}

TEST(CliOptions, JobNamesFollowTheShimsRule) {
  EXPECT_TRUE(ValidJobName("a"));
  EXPECT_TRUE(ValidJobName("user@host:job/1+x_y.z-w"));
  EXPECT_FALSE(ValidJobName(""));
  EXPECT_FALSE(ValidJobName("a b"));
  EXPECT_FALSE(ValidJobName("a\nb"));
  EXPECT_FALSE(ValidJobName("caf\xc3\xa9"));
}

}  // namespace
}  // namespace iashim::cli
