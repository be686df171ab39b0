#include "coordinator/clustersim/cli_options.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace iashim::clustersim {
namespace {

std::vector<std::string> Base() {
  return {"--trace", "a.trace", "b.trace", "--throughputs", "t.json", "--gpu-type", "v100",
          "--gpus", "64"};
}

TEST(ParseCliOptions, ReplayDefaults) {
  absl::StatusOr<CliOptions> o = ParseCliOptions(Base());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->mode, CliOptions::Mode::kReplay);
  EXPECT_EQ(o->traces, (std::vector<std::string>{"a.trace", "b.trace"}));
  EXPECT_EQ(o->gpus, 64);
  EXPECT_EQ(o->gpus_per_node, 8);
  EXPECT_EQ(o->arrival_scale, 1);
  // firstfit-whole only when asked for (it answers what guarantees cost plain Slurm).
  EXPECT_EQ(o->policies,
            (std::vector<std::string>{"exclusive", "firstfit", "iadeep", "iashim", "oracle"}));
  EXPECT_FALSE(o->json);
  EXPECT_EQ(o->queue, QueueModel::kReserveForGangs);
}

TEST(ParseCliOptions, FirstFitWithGuaranteedJobsOnWholeGpusIsAPolicyToAskFor) {
  std::vector<std::string> args = Base();
  args.push_back("--policy");
  args.push_back("firstfit,firstfit-whole");
  absl::StatusOr<CliOptions> o = ParseCliOptions(args);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->policies, (std::vector<std::string>{"firstfit", "firstfit-whole"}));
}

TEST(ParseCliOptions, EverySetting) {
  std::vector<std::string> args = Base();
  for (const char* a : {"--arrival-scale=2.5",
                        "--policy",
                        "iashim,exclusive",
                        "--seed",
                        "7",
                        "--out",
                        "dir",
                        "--json",
                        "--gpus-per-node",
                        "4",
                        "--min-gain",
                        "-0.1",
                        "--uncertainty-weight",
                        "0.5",
                        "--trace=c.trace",
                        "--guaranteed-every",
                        "4",
                        "--queue",
                        "slurm",
                        "--backfill-interval=2",
                        "--gangs-take-busy-gpus",
                        "--guaranteed-gres",
                        "--cpus-per-node",
                        "8",
                        "--job-memory-share",
                        "0.5",
                        "--job-memory-shares",
                        "shares.tsv"}) {
    args.push_back(a);
  }
  absl::StatusOr<CliOptions> o = ParseCliOptions(args);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->arrival_scale, 2.5);
  EXPECT_EQ(o->policies, (std::vector<std::string>{"iashim", "exclusive"}));
  EXPECT_EQ(o->seed, 7u);
  EXPECT_EQ(o->out_dir, "dir");
  EXPECT_TRUE(o->json);
  EXPECT_EQ(o->gpus_per_node, 4);
  EXPECT_EQ(o->min_gain, -0.1);
  EXPECT_EQ(o->uncertainty_weight, 0.5);
  EXPECT_EQ(o->guaranteed_every, 4);
  EXPECT_EQ(o->queue, QueueModel::kSlurmNoTimeLimits);
  EXPECT_EQ(o->backfill_interval_s, 2);
  EXPECT_TRUE(o->gangs_take_busy_gpus);
  EXPECT_TRUE(o->guaranteed_gres);
  EXPECT_EQ(o->cpus_per_node, 8);
  EXPECT_EQ(o->job_memory_share, 0.5);
  EXPECT_EQ(o->job_memory_shares, "shares.tsv");
  EXPECT_EQ(o->traces.size(), 3u);
}

TEST(ParseCliOptions, Kfold) {
  absl::StatusOr<CliOptions> o =
      ParseCliOptions({"--kfold", "5", "--throughputs", "t.json", "--gpu-type", "v100", "--json"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->mode, CliOptions::Mode::kKfold);
  EXPECT_EQ(o->kfold, 5);
}

void ExpectError(std::vector<std::string> args, const std::string& fragment) {
  absl::StatusOr<CliOptions> o = ParseCliOptions(args);
  ASSERT_FALSE(o.ok()) << fragment;
  EXPECT_NE(o.status().message().find(fragment), std::string::npos)
      << o.status().message() << " should mention " << fragment;
}

TEST(ParseCliOptions, QueueModels) {
  for (const auto& [name, model] : {std::pair{"reserve", QueueModel::kReserveForGangs},
                                    std::pair{"greedy", QueueModel::kGreedy},
                                    std::pair{"slurm", QueueModel::kSlurmNoTimeLimits}}) {
    std::vector<std::string> args = Base();
    args.push_back(std::string("--queue=") + name);
    absl::StatusOr<CliOptions> o = ParseCliOptions(args);
    ASSERT_TRUE(o.ok()) << o.status();
    EXPECT_EQ(o->queue, model) << name;
    EXPECT_EQ(o->backfill_interval_s, 30) << name;  // Slurm's default bf_interval
  }
}

TEST(ParseCliOptions, Variants) {
  std::vector<std::string> args = Base();
  for (const char* a : {"--variants", "20", "--variant-seed=3"}) args.push_back(a);
  absl::StatusOr<CliOptions> o = ParseCliOptions(args);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->variants, 20);
  EXPECT_EQ(o->variant_seed, 3u);
  ExpectError({"--variants", "0", "--trace", "a", "--throughputs", "t", "--gpu-type", "v100",
               "--gpus", "8"},
              "--variants");
  args = Base();
  for (const char* a : {"--variants", "2", "--seed", "4"}) args.push_back(a);
  ExpectError(args, "--seed: does not apply to --variants");
  args = Base();
  args.push_back("--variant-seed=2");
  ExpectError(args, "--variant-seed: needs --variants N");
}

std::vector<std::string> With(std::vector<std::string> extra) {
  std::vector<std::string> args = Base();
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(ParseCliOptions, StartUpForAllJobsAndForTheCoordinatorsOwn) {
  absl::StatusOr<CliOptions> o = ParseCliOptions(Base());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->start_up.one_gpu_s, 0);
  EXPECT_EQ(o->start_up.gang_s, 0);
  EXPECT_FALSE(o->managed_start_up.has_value());
  // One figure: a gang's too.
  o = ParseCliOptions(With({"--start-up-s", "0.11,0.21", "--managed-start-up-s=0.3"}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->start_up.one_gpu_s, 0.11);
  EXPECT_EQ(o->start_up.gang_s, 0.21);
  ASSERT_TRUE(o->managed_start_up.has_value());
  EXPECT_EQ(o->managed_start_up->one_gpu_s, 0.3);
  EXPECT_EQ(o->managed_start_up->gang_s, 0.3);

  ExpectError(With({"--start-up-s", "1,2,3"}), "--start-up-s: \"1,2,3\": want ONE or ONE,GANG");
  ExpectError(With({"--start-up-s", "-1"}), "--start-up-s: -1 is not in [0, 3600] seconds");
  ExpectError(With({"--managed-start-up-s", "0.2,x"}), "--managed-start-up-s: \"x\" is not");
  ExpectError(With({"--managed-start-up-s"}), "--managed-start-up-s: needs a value");
  ExpectError({"--kfold", "5", "--throughputs", "t", "--gpu-type", "v100", "--start-up-s", "1"},
              "--start-up-s: does not apply to --kfold");
}

TEST(ParseCliOptions, MigrateToEmptyGpusTakesWhatAMoveCosts) {
  absl::StatusOr<CliOptions> o = ParseCliOptions(Base());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->migration_cost_s.has_value());
  o = ParseCliOptions(With({"--migrate-to-empty-gpus", "0.012"}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->migration_cost_s, 0.012);

  ExpectError(With({"--migrate-to-empty-gpus", "-1"}),
              "--migrate-to-empty-gpus: -1 is not in [0, 3600] seconds");
  ExpectError(With({"--migrate-to-empty-gpus", "soon"}),
              "--migrate-to-empty-gpus: \"soon\" is not a finite number");
  ExpectError(With({"--migrate-to-empty-gpus"}), "--migrate-to-empty-gpus: needs a value");
}

TEST(ParseCliOptions, EveryBadArgumentIsNamed) {
  ExpectError(With({"--gpus", "8"}), "--gpus: given twice");
  ExpectError({"--trace", "a", "--gpu-type", "v100", "--gpus", "1"}, "--throughputs");
  ExpectError({"--trace", "a", "--throughputs", "t", "--gpus", "1"}, "--gpu-type");
  ExpectError({"--trace", "a", "--throughputs", "t", "--gpu-type", "v100"}, "--gpus");
  ExpectError({"--throughputs", "t", "--gpu-type", "v100", "--gpus", "1"}, "--trace");
  ExpectError({"--trace", "--throughputs", "t"}, "--trace: needs at least one");
  ExpectError({"--trace", "a", "--throughputs", "t", "--gpu-type", "v100", "--gpus", "0"},
              "--gpus: 0 is out of range");
  ExpectError({"--trace", "a", "--throughputs", "t", "--gpu-type", "v100", "--gpus", "x"},
              "--gpus: \"x\" is not an integer");
  ExpectError(With({"--arrival-scale", "0"}), "--arrival-scale: must be > 0");
  ExpectError(With({"--arrival-scale", "inf"}), "--arrival-scale");
  ExpectError(With({"--policy", "fifo"}), "unknown policy \"fifo\"");
  ExpectError(With({"--policy", "iashim,iashim"}), "given twice");
  ExpectError(With({"--policy", ""}), "unknown policy \"\"");
  ExpectError(With({"--seed", "-1"}), "--seed");
  ExpectError(With({"--gpus-per-node", "0"}), "--gpus-per-node");
  ExpectError(With({"--guaranteed-every", "-1"}), "--guaranteed-every");
  ExpectError(With({"--guaranteed-every", "x"}), "--guaranteed-every");
  ExpectError(With({"--uncertainty-weight", "-1"}), "--uncertainty-weight: must be >= 0");
  ExpectError(With({"--out"}), "--out: needs a value");
  ExpectError(With({"--json=yes"}), "--json: takes no value");
  ExpectError(With({"--queue", "fifo"}), "--queue: \"fifo\" is none of reserve, greedy, slurm");
  ExpectError(With({"--queue", "slurm", "--backfill-interval", "0"}), "--backfill-interval: must be in (0, 86400]");
  ExpectError(With({"--backfill-interval", "2"}), "--backfill-interval: applies only to --queue slurm");
  ExpectError(With({"--gangs-take-busy-gpus"}), "--gangs-take-busy-gpus: applies only to --queue slurm");
  ExpectError(With({"--guaranteed-gres"}), "--guaranteed-gres: applies only to --queue slurm");
  ExpectError(With({"--queue", "slurm", "--guaranteed-gres=yes"}),
              "--guaranteed-gres: takes no value");
  ExpectError(With({"--queue", "slurm", "--gangs-take-busy-gpus=1"}),
              "--gangs-take-busy-gpus: takes no value");
  ExpectError(With({"--queue", "slurm", "--cpus-per-node", "8"}),
              "--cpus-per-node: applies only with --gangs-take-busy-gpus");
  ExpectError(With({"--queue", "slurm", "--gangs-take-busy-gpus", "--cpus-per-node", "0"}),
              "--cpus-per-node");
  ExpectError(With({"--queue", "slurm", "--job-memory-share", "0.5"}),
              "--job-memory-share: applies only with --gangs-take-busy-gpus");
  ExpectError(With({"--queue", "slurm", "--gangs-take-busy-gpus", "--job-memory-share", "1.5"}),
              "--job-memory-share: must be in (0, 1]");
  ExpectError(With({"--queue", "slurm", "--job-memory-shares", "f"}),
              "--job-memory-shares: applies only with --gangs-take-busy-gpus");
  ExpectError(With({"--queue", "slurm", "--gangs-take-busy-gpus", "--job-memory-shares="}),
              "--job-memory-shares: empty file name");
  ExpectError(With({"--bogus"}), "unknown flag --bogus");
  ExpectError(With({"stray"}), "unexpected argument \"stray\"");
  ExpectError(With({"--kfold", "5"}), "--trace: does not apply to --kfold");
  ExpectError({"--kfold", "1", "--throughputs", "t", "--gpu-type", "v100"}, "--kfold");
}

TEST(ParseCliOptions, Help) {
  EXPECT_EQ(ParseCliOptions({"--help"})->mode, CliOptions::Mode::kHelp);
  EXPECT_NE(Usage().find("--arrival-scale"), std::string::npos);
}

TEST(IsAlibabaCommandLine, AnyArgumentStartingWithAlibaba) {
  EXPECT_TRUE(IsAlibabaCommandLine({"--json", "--alibaba-nodes", "n.csv"}));
  EXPECT_FALSE(IsAlibabaCommandLine(Base()));
}

}  // namespace
}  // namespace iashim::clustersim
