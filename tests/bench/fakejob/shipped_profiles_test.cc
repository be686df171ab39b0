// Every shipped model profile parses, and its modelled solo iteration time
// matches the V100 throughput it was calibrated to (Gavel's measurement, or a
// stated estimate where Gavel has no such job type): bench/data/models/README.md.
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "bench/fakejob/model_profile.h"
#include "bench/fakejob/module_image.h"
#include "bench/fakejob/number_parse.h"
#include "bench/fakejob/options.h"
#include "gtest/gtest.h"

namespace iashim::fakejob {
namespace {

const std::string kDataDir = std::string(IASHIM_SOURCE_DIR) + "/bench/data";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Solo steps/s of `key` on v100, by targeted search rather than a JSON
// parser: the per-job object is `"<key>": {` and its solo figure the first
// `"null": <number>` inside it.
std::optional<double> GavelV100SoloThroughput(const std::string& json, const std::string& key) {
  size_t pos = json.find("\"v100\"");
  if (pos == std::string::npos) return std::nullopt;
  const std::string quoted = "\"" + key + "\"";
  while ((pos = json.find(quoted, pos)) != std::string::npos) {
    pos += quoted.size();
    size_t brace = json.find_first_not_of(" \t\r\n:", pos);
    if (brace != std::string::npos && json[brace] == '{') break;
  }
  if (pos == std::string::npos) return std::nullopt;
  pos = json.find("\"null\":", pos);
  if (pos == std::string::npos) return std::nullopt;
  pos += 7;
  size_t start = json.find_first_not_of(" \t", pos);
  size_t end = json.find_first_of(",}\r\n", start);
  return ParseFiniteDouble(json.substr(start, end - start));
}

struct Target {
  std::string source;  // the Gavel key, or "estimate"
  double steps_per_s = 0;
};

// gavel_map.txt: "<model> ('<Gavel job type>', 1)" or
// "<model> estimate <steps_per_s>"; '#' comments.
std::map<std::string, Target> ReadTargets() {
  const std::string json = ReadFile(kDataDir + "/gavel/simulation_throughputs.json");
  EXPECT_FALSE(json.empty());
  std::map<std::string, Target> targets;
  std::istringstream in(ReadFile(kDataDir + "/models/gavel_map.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (size_t hash = line.find('#'); hash != std::string::npos) {
      line.resize(hash);
    }
    size_t sp = line.find(' ');
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    EXPECT_NE(sp, std::string::npos) << line;
    const std::string model = line.substr(0, sp);
    std::string rest = line.substr(line.find_first_not_of(' ', sp));
    rest.erase(rest.find_last_not_of(" \t\r") + 1);
    Target t;
    if (rest.rfind("estimate ", 0) == 0) {
      t.source = "estimate";
      std::optional<double> v = ParseFiniteDouble(rest.substr(9));
      EXPECT_TRUE(v.has_value()) << line;
      t.steps_per_s = v.value_or(0);
    } else {
      t.source = rest;
      std::optional<double> v = GavelV100SoloThroughput(json, rest);
      EXPECT_TRUE(v.has_value()) << "no v100 solo figure for " << rest;
      t.steps_per_s = v.value_or(0);
    }
    targets[model] = t;
  }
  return targets;
}

TEST(ShippedProfilesTest, GavelExtractionFindsKnownFigure) {
  const std::string json = ReadFile(kDataDir + "/gavel/simulation_throughputs.json");
  std::optional<double> v = GavelV100SoloThroughput(json, "('ResNet-50 (batch size 64)', 1)");
  ASSERT_TRUE(v.has_value());
  EXPECT_NEAR(*v, 4.3948, 1e-3);
}

TEST(ShippedProfilesTest, EveryProfileParsesAndMatchesItsThroughput) {
  absl::StatusOr<std::vector<std::string>> paths = ListModelPaths({kDataDir + "/models"});
  ASSERT_TRUE(paths.ok()) << paths.status();
  const std::map<std::string, Target> targets = ReadTargets();
  std::set<std::string> names;
  for (const std::string& path : *paths) {
    SCOPED_TRACE(path);
    absl::StatusOr<ModelProfile> p = LoadModelProfile(path);
    ASSERT_TRUE(p.ok()) << p.status();
    names.insert(p->name);
    EXPECT_FALSE(p->sources.empty()) << "every profile states its origin";
    EXPECT_GE(p->memory_bytes, uint64_t{256} << 20);

    auto it = targets.find(p->name);
    ASSERT_NE(it, targets.end()) << p->name << " missing from gavel_map.txt";
    ASSERT_GT(it->second.steps_per_s, 0);
    const double target_us = 1e6 / it->second.steps_per_s;
    const double solo_us = p->SoloIterationUs();
    EXPECT_NEAR(solo_us, target_us, 0.10 * target_us) << p->name << " vs " << it->second.source;

    const double gap_share = p->host_gap_us / solo_us;
    EXPECT_GE(gap_share, 0.05) << p->name;
    EXPECT_LE(gap_share, 0.15) << p->name;

    // Most launches fill a V100's 80 SMs.
    size_t full = 0;
    for (const KernelLaunch& k : p->launches) full += k.grid_blocks >= 80;
    EXPECT_GE(full * 2, p->launches.size()) << p->name;

    // The image declares every kernel it launches.
    ModuleImage image = BuildModuleImage(*p);
    EXPECT_EQ(image.launch_function.size(), p->launches.size());
  }
  for (const char* required : {"resnet50", "vgg16", "bert_base", "lstm", "neumf", "transformer"}) {
    EXPECT_TRUE(names.count(required)) << required;
  }
  for (const auto& [model, target] : targets) {
    EXPECT_TRUE(names.count(model)) << "gavel_map.txt names unknown " << model;
  }
}

}  // namespace
}  // namespace iashim::fakejob
