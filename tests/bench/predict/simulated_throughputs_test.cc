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
    }
  }
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
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace iashim::predict
