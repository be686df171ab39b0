#include "coordinator/clustersim/robustness.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "coordinator/clustersim/trace_variants.h"
#include "gtest/gtest.h"
#include "tests/coordinator/clustersim/seed0_data.h"

namespace iashim::clustersim {
namespace {

std::vector<std::vector<TraceJob>> ThreeVcs() {
  std::vector<std::vector<TraceJob>> vcs;
  for (const std::string& path : testing::ThreeTracePaths()) {
    absl::StatusOr<std::vector<TraceJob>> vc = ReadGavelTraceFile(path);
    EXPECT_TRUE(vc.ok()) << vc.status();
    vcs.push_back(vc.ok() ? *std::move(vc) : std::vector<TraceJob>{});
  }
  return vcs;
}

std::string Key(const TraceJob& j) {
  return JobTypeKey(j.type) + "#" + std::to_string(j.total_steps);
}

TEST(TraceVariants, TheSameSeedAndIndexGiveTheSameVariant) {
  const std::vector<std::vector<TraceJob>> vcs = ThreeVcs();
  const std::vector<TraceJob> a = MakeVariant(vcs, 7, 3);
  const std::vector<TraceJob> b = MakeVariant(vcs, 7, 3);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].arrival_s, b[i].arrival_s);
    EXPECT_EQ(Key(a[i]), Key(b[i]));
  }
  const std::vector<TraceJob> other = MakeVariant(vcs, 7, 4);
  bool differs = other.size() != a.size();
  for (size_t i = 0; !differs && i < a.size(); ++i) differs = a[i].arrival_s != other[i].arrival_s;
  EXPECT_TRUE(differs);
  EXPECT_NE(VariantSeed(7, 3), VariantSeed(7, 4));
  EXPECT_NE(VariantSeed(7, 3), VariantSeed(8, 3));
}

TEST(TraceVariants, JobsComeFromKeptVcsWithTheirGpuCountsAndArriveInOrder) {
  const std::vector<std::vector<TraceJob>> vcs = ThreeVcs();
  std::map<std::string, size_t> vc_size;  // VC of each original id
  std::map<std::string, int> scale_of;
  std::set<std::string> original_jobs;  // (type, steps) of every input job
  for (const std::vector<TraceJob>& vc : vcs) {
    for (const TraceJob& j : vc) {
      vc_size[j.id] = vc.size();
      scale_of[j.id] = j.type.scale;
      original_jobs.insert(Key(j));
    }
  }
  std::set<size_t> possible_sizes;  // job counts of every non-empty subset of VCs
  for (int mask = 1; mask < 8; ++mask) {
    size_t n = 0;
    for (int v = 0; v < 3; ++v) n += (mask >> v & 1) ? vcs[v].size() : 0;
    possible_sizes.insert(n);
  }
  for (int index = 0; index < 10; ++index) {
    const std::vector<TraceJob> variant = MakeVariant(vcs, 1, index);
    EXPECT_TRUE(possible_sizes.contains(variant.size())) << variant.size();
    for (size_t i = 0; i < variant.size(); ++i) {
      const TraceJob& j = variant[i];
      const std::string original = j.id.substr(0, j.id.rfind("/v"));
      ASSERT_TRUE(scale_of.contains(original)) << j.id;
      EXPECT_EQ(j.type.scale, scale_of[original]) << j.id;  // a gang stays a gang
      EXPECT_TRUE(original_jobs.contains(Key(j))) << j.id;  // a real job of the trace
      EXPECT_GE(j.arrival_s, 0);
      if (i > 0) {
        EXPECT_LE(variant[i - 1].arrival_s, j.arrival_s);
      }
    }
  }
}

PolicySummary Summary(const std::string& policy, double mean_jct, int64_t later) {
  PolicySummary s;
  s.policy = policy;
  s.jobs = 100;
  s.mean_jct_s = mean_jct;
  s.later_than_exclusive = later;
  return s;
}

TEST(SummariseVariants, MediansWorstCasesAndCounts) {
  std::vector<VariantResult> results(3);
  // Variant 0: iashim 1.1x the oracle; 1: 1.0x; 2: 1.5x, and worse than exclusive.
  const double iashim_jct[] = {110, 100, 150};
  for (int v = 0; v < 3; ++v) {
    results[v].index = v;
    results[v].policies = {Summary("exclusive", 140, 0), Summary("firstfit", 120, 30),
                           Summary("iadeep", 105, 10), Summary("iashim", iashim_jct[v], 5 * v),
                           Summary("oracle", 100, 5)};
  }
  const std::vector<PolicyRobustness> rows = SummariseVariants(results);
  ASSERT_EQ(rows.size(), 5u);
  const PolicyRobustness& iashim = rows[3];
  EXPECT_EQ(iashim.policy, "iashim");
  EXPECT_EQ(iashim.variants, 3);
  EXPECT_DOUBLE_EQ(iashim.jct_over_oracle_median, 1.1);
  EXPECT_DOUBLE_EQ(iashim.jct_over_oracle_worst, 1.5);
  EXPECT_DOUBLE_EQ(iashim.jct_over_exclusive_worst, 150.0 / 140);
  EXPECT_DOUBLE_EQ(iashim.later_fraction_median, 0.05);
  EXPECT_DOUBLE_EQ(iashim.later_fraction_worst, 0.10);
  EXPECT_EQ(iashim.beats_firstfit, 2);
  EXPECT_EQ(iashim.beats_iadeep, 1);
  EXPECT_EQ(iashim.worse_than_exclusive, 1);
  EXPECT_EQ(iashim.later_than_oracle, 1);  // variant 2: 10 jobs against the oracle's 5
  EXPECT_DOUBLE_EQ(rows[4].jct_over_oracle_worst, 1.0);
  const std::string table = RobustnessTable(rows, 16, 1);
  EXPECT_NE(table.find("iashim"), std::string::npos);
  EXPECT_NE(RobustnessJsonLines(rows, 16, 1).find("\"jct_over_oracle_worst\":1.5"),
            std::string::npos);
  // Per variant: each policy's mean JCT in hours and iashim / oracle, so the
  // worst variant can be named.
  const std::string variants = VariantsTable(results);
  EXPECT_NE(variants.find("iashim/oracle"), std::string::npos) << variants;
  EXPECT_NE(variants.find("1.500"), std::string::npos) << variants;  // variant 2
  EXPECT_NE(VariantsTable({}).find("none"), std::string::npos);
}

TEST(ReplayVariants, EveryPolicyRunsOnEveryVariant) {
  const std::vector<std::vector<TraceJob>> vcs = ThreeVcs();
  absl::StatusOr<GavelThroughputs> truth = testing::V100Throughputs();
  ASSERT_TRUE(truth.ok()) << truth.status();
  ReplayOptions options;
  options.sim.gpus = 16;
  options.arrival_scale = 20;
  absl::StatusOr<std::vector<VariantResult>> results = ReplayVariants(vcs, *truth, options, 2, 5);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 2u);
  for (const VariantResult& r : *results) {
    ASSERT_EQ(r.policies.size(), 5u);
    EXPECT_GT(r.jobs, 0);
    for (const PolicySummary& s : r.policies) EXPECT_EQ(s.jobs, r.jobs) << s.policy;
  }
  EXPECT_NE((*results)[0].seed, (*results)[1].seed);
  const std::vector<PolicyRobustness> rows = SummariseVariants(*results);
  EXPECT_EQ(rows[0].policy, "exclusive");
  EXPECT_DOUBLE_EQ(rows[0].jct_over_exclusive_worst, 1.0);
  EXPECT_EQ(rows[0].later_fraction_worst, 0);
}

}  // namespace
}  // namespace iashim::clustersim
