// iashim-simgpu-throughputs' JSON: what iashim-clustersim reads as Gavel's
// throughputs, with every bundled profile Gavel has a job type for, alone
// near Gavel's own solo figure (the profiles are calibrated to it), and
// every pair of them, consistent both ways.
#include "bench/predict/simulated_throughputs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "bench/fakejob/model_profile.h"
#include "bench/predict/profile_job.h"
#include "coordinator/clustersim/gavel_throughputs.h"

namespace iashim::predict {
namespace {

namespace cs = iashim::clustersim;
using ::testing::HasSubstr;

const std::string kModels = std::string(IASHIM_SOURCE_DIR) + "/bench/data/models";

TEST(SimulatedThroughputs, ClustersimReadsThemAndTheyAgreeWithThemselves) {
  const absl::StatusOr<std::string> json =
      SimulatedThroughputsJson({.models_dir = kModels, .seconds = 6, .warmup_s = 1});
  ASSERT_TRUE(json.ok()) << json.status();
  const absl::StatusOr<cs::GavelThroughputs> sim = cs::ParseGavelThroughputs(*json, "v100", "simulated");
  ASSERT_TRUE(sim.ok()) << sim.status();
  const absl::StatusOr<cs::GavelThroughputs> gavel = cs::ReadGavelThroughputsFile(
      std::string(IASHIM_SOURCE_DIR) + "/bench/data/gavel/simulation_throughputs.json", "v100");
  ASSERT_TRUE(gavel.ok()) << gavel.status();
  const absl::StatusOr<std::vector<MappedProfile>> mapped = ReadGavelMap(kModels + "/gavel_map.txt");
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  std::vector<cs::JobType> types;
  for (const MappedProfile& m : *mapped) {
    if (m.gavel_key.empty()) continue;
    const absl::StatusOr<cs::JobType> type = cs::ParseJobTypeKey(m.gavel_key);
    ASSERT_TRUE(type.ok()) << type.status();
    types.push_back(*type);
  }
  ASSERT_GE(types.size(), 5u);
  for (const cs::JobType& a : types) {
    const std::optional<double> solo = sim->Solo(a);
    ASSERT_TRUE(solo.has_value()) << a.name;
    EXPECT_NEAR(*solo / *gavel->Solo(a), 1.0, 0.10) << a.name;
    for (const cs::JobType& b : types) {
      const std::optional<cs::PairThroughput> ab = sim->Pair(a, b);
      const std::optional<cs::PairThroughput> ba = sim->Pair(b, a);
      ASSERT_TRUE(ab.has_value() && ba.has_value()) << a.name << " + " << b.name;
      EXPECT_DOUBLE_EQ(ab->a, ba->b) << a.name << " + " << b.name;
      // Sharing never speeds a job up.
      EXPECT_LE(ab->a, *solo * 1.01) << a.name << " beside " << b.name;
      EXPECT_GT(ab->a, 0) << a.name << " beside " << b.name;
      // Every three, in any order; a third job takes more.
      for (const cs::JobType& c : types) {
        const std::optional<double> abc = sim->Triple(a, b, c);
        ASSERT_TRUE(abc.has_value()) << a.name << " + " << b.name << " + " << c.name;
        EXPECT_GT(*abc, 0) << a.name << " beside " << b.name << " and " << c.name;
        EXPECT_LE(*abc, ab->a * 1.02) << a.name << " beside " << b.name << " and " << c.name;
      }
    }
  }
}

// A gang of k ranks: k steps per iteration of the solo time plus the ring
// all-reduce of the profile's gradients, as iashim-fakejob --ranks k runs it
// (fakejob_gang_test holds fakejob to the same hand calculation).
TEST(SimulatedThroughputs, AGangRunsItsSoloStepPlusTheAllReduceOnEachOfItsGpus) {
  constexpr double kLinkGbps = 4;  // slow enough for the all-reduce to show
  const absl::StatusOr<std::string> json = SimulatedThroughputsJson(
      {.models_dir = kModels, .seconds = 6, .warmup_s = 1, .link_gbps = kLinkGbps, .gang_sizes = {2, 4}});
  ASSERT_TRUE(json.ok()) << json.status();
  const absl::StatusOr<cs::GavelThroughputs> sim = cs::ParseGavelThroughputs(*json, "v100", "simulated");
  ASSERT_TRUE(sim.ok()) << sim.status();
  const absl::StatusOr<std::vector<MappedProfile>> mapped = ReadGavelMap(kModels + "/gavel_map.txt");
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  int gangs = 0;
  for (const MappedProfile& m : *mapped) {
    if (m.gavel_key.empty()) continue;
    const absl::StatusOr<fakejob::ModelProfile> profile =
        fakejob::LoadModelProfile(kModels + "/" + m.model + ".model");
    ASSERT_TRUE(profile.ok()) << profile.status();
    const absl::StatusOr<cs::JobType> one = cs::ParseJobTypeKey(m.gavel_key);
    ASSERT_TRUE(one.ok()) << one.status();
    const double solo = *sim->Solo(*one);
    for (int k : {2, 4, 8}) {
      const std::optional<double> gang = sim->Solo({.name = one->name, .scale = k});
      if (profile->gradient_bytes == 0 || k == 8) {
        EXPECT_FALSE(gang.has_value()) << m.model << " on " << k;
        continue;
      }
      ASSERT_TRUE(gang.has_value()) << m.model << " on " << k;
      const double all_reduce_s =
          2.0 * (k - 1) * (double(profile->gradient_bytes) / k / (kLinkGbps * 1e9) + 5e-6);
      EXPECT_NEAR(*gang, k / (1 / solo + all_reduce_s), *gang * 1e-9) << m.model << " on " << k;
      EXPECT_LT(*gang, k * solo) << m.model << " on " << k;
      ++gangs;
    }
  }
  EXPECT_GE(gangs, 10);  // every one of the five Gavel types has its gradients
}

// A gang of more ranks than a node has GPUs spans nodes: its ring runs at the
// lesser of the links and the fabric between nodes (simgpu's
// SIMGPU_FABRIC_GBPS); gangs within a node are written as without a fabric.
TEST(SimulatedThroughputs, AGangSpanningNodesAllReducesOverTheFabric) {
  constexpr double kLinkGbps = 4;
  const SimulatedThroughputsOptions within = {.models_dir = kModels,
                                              .seconds = 6,
                                              .warmup_s = 1,
                                              .link_gbps = kLinkGbps,
                                              .gpus_per_node = 64,
                                              .gang_sizes = {2, 4, 8, 16, 32}};
  SimulatedThroughputsOptions slow_fabric = within;
  slow_fabric.gpus_per_node = 4;
  slow_fabric.fabric_gbps = 1;
  SimulatedThroughputsOptions fast_fabric = slow_fabric;
  fast_fabric.fabric_gbps = 100;  // the links are then the slowest hop
  std::map<double, cs::GavelThroughputs> sims;
  for (const SimulatedThroughputsOptions& o : {within, slow_fabric, fast_fabric}) {
    const absl::StatusOr<std::string> json = SimulatedThroughputsJson(o);
    ASSERT_TRUE(json.ok()) << json.status();
    absl::StatusOr<cs::GavelThroughputs> sim =
        cs::ParseGavelThroughputs(*json, "v100", "simulated");
    ASSERT_TRUE(sim.ok()) << sim.status();
    sims.emplace(o.gpus_per_node == 64 ? 0 : o.fabric_gbps, *std::move(sim));
  }
  const absl::StatusOr<std::vector<MappedProfile>> mapped =
      ReadGavelMap(kModels + "/gavel_map.txt");
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  int gangs = 0;
  for (const MappedProfile& m : *mapped) {
    if (m.gavel_key.empty()) continue;
    const absl::StatusOr<fakejob::ModelProfile> profile =
        fakejob::LoadModelProfile(kModels + "/" + m.model + ".model");
    ASSERT_TRUE(profile.ok()) << profile.status();
    if (profile->gradient_bytes == 0) continue;
    const absl::StatusOr<cs::JobType> one = cs::ParseJobTypeKey(m.gavel_key);
    ASSERT_TRUE(one.ok()) << one.status();
    const double solo = *sims.at(0).Solo(*one);
    for (int k : {2, 4, 8, 16, 32}) {
      const cs::JobType gang = {.name = one->name, .scale = k};
      const std::optional<double> linked = sims.at(0).Solo(gang);
      const std::optional<double> slow = sims.at(1).Solo(gang);
      const std::optional<double> fast = sims.at(100).Solo(gang);
      ASSERT_TRUE(linked && slow && fast) << m.model << " on " << k;
      const double gbps = k > 4 ? 1 : kLinkGbps;
      const double all_reduce_s =
          2.0 * (k - 1) * (double(profile->gradient_bytes) / k / (gbps * 1e9) + 5e-6);
      EXPECT_NEAR(*slow, k / (1 / solo + all_reduce_s), *slow * 1e-9) << m.model << " on " << k;
      if (k <= 4) {
        EXPECT_EQ(*slow, *linked) << m.model << " on " << k;
      } else {
        EXPECT_LT(*slow, *linked) << m.model << " on " << k;
      }
      EXPECT_EQ(*fast, *linked) << m.model << " on " << k;
      ++gangs;
    }
  }
  EXPECT_GE(gangs, 25);  // every one of the five Gavel types, at every size
}

TEST(SimulatedThroughputs, ABadMapSaysWhereAndNoMapSaysWhich) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("iashim-simtp-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "gavel_map.txt") << "# a comment\nresnet50\n"; }
  absl::StatusOr<std::string> json = SimulatedThroughputsJson({.models_dir = dir.string()});
  EXPECT_THAT(json.status().message(), HasSubstr("gavel_map.txt:2: expected"));
  std::filesystem::remove(dir / "gavel_map.txt");
  json = SimulatedThroughputsJson({.models_dir = dir.string()});
  EXPECT_THAT(json.status().message(), HasSubstr("cannot read " + (dir / "gavel_map.txt").string()));
  json = SimulatedThroughputsJson({.models_dir = kModels, .seconds = 1, .warmup_s = 2});
  EXPECT_FALSE(json.ok());
  json = SimulatedThroughputsJson({.models_dir = kModels, .link_gbps = 0});
  EXPECT_THAT(json.status().message(), HasSubstr("link_gbps"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace iashim::predict
