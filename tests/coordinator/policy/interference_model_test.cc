#include "coordinator/policy/interference_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "coordinator/policy/pair_table.h"

namespace iashim::policy {
namespace {

JobTraits Kind(const std::string& kind) { return JobTraits{.kind = kind}; }

// A synthetic world with the structure the model assumes: families of kinds
// (one network at several batch sizes), a victim and an aggressor effect per
// family plus a small per-kind deviation, and a rank-2 interaction between
// families. Deterministic.
struct World {
  struct KindInfo {
    std::string name;
    int family;
    double victim;
    double aggressor;
  };
  std::vector<KindInfo> kinds;
  double interaction[4][4];

  World() {
    const double family_victim[4] = {0.10, -0.05, -0.15, 0.05};
    const double family_aggressor[4] = {0.05, -0.12, 0.08, -0.02};
    const double u[4][2] = {{0.3, 0.1}, {-0.2, 0.2}, {0.1, -0.3}, {-0.1, -0.1}};
    const double w[4][2] = {{0.2, -0.1}, {0.3, 0.2}, {-0.2, 0.1}, {0.1, -0.3}};
    for (int f = 0; f < 4; ++f) {
      for (int g = 0; g < 4; ++g) interaction[f][g] = u[f][0] * w[g][0] + u[f][1] * w[g][1];
      for (int b = 0; b < 5; ++b) {
        const double wiggle = 0.01 * ((b * 7 + f * 3) % 5 - 2);
        kinds.push_back(KindInfo{"Net" + std::to_string(f) + " (batch size " +
                                     std::to_string(16 << b) + ")",
                                 f, family_victim[f] + wiggle, family_aggressor[f] - wiggle});
      }
    }
  }

  double Truth(int v, int a) const {
    const KindInfo& x = kinds[v];
    const KindInfo& y = kinds[a];
    return 0.65 + x.victim + y.aggressor + interaction[x.family][y.family];
  }
};

// Deterministic: which unordered pairs (i <= j) the model may learn.
bool Train(int i, int j) { return ((i * 31 + j * 17) % 10) < 3; }

TEST(InterferenceModelTest, FamilyOfStripsTheBatchSize) {
  EXPECT_EQ(FamilyOf("ResNet-18 (batch size 64)"), "ResNet-18");
  EXPECT_EQ(FamilyOf("A3C"), "A3C");
  EXPECT_EQ(FamilyOf(""), "");
  EXPECT_EQ(FamilyOf("(odd)"), "(odd)");
}

TEST(InterferenceModelTest, PriorBeforeAnyObservation) {
  InterferenceModel::Options options;
  options.prior_mean = 0.7;
  const InterferenceModel model(options);
  const InterferencePrediction p = model.Predict(Kind("A"), Kind("B"));
  EXPECT_DOUBLE_EQ(p.throughput, 0.7);
  EXPECT_EQ(p.evidence, 0);
  EXPECT_GT(p.uncertainty, 0.1);
}

TEST(InterferenceModelTest, LearnsAnExactlyObservedPair) {
  InterferenceModel model;
  // Background so the model's own estimate is not the pair's.
  model.Observe(Kind("C"), Kind("D"), 0.9, 0.9);
  model.Observe(Kind("C"), Kind("C"), 0.8, 0.8);
  for (int i = 0; i < 5; ++i) model.Observe(Kind("A"), Kind("B"), 0.3, 0.95);
  const InterferencePrediction ab = model.Predict(Kind("A"), Kind("B"));
  const InterferencePrediction ba = model.Predict(Kind("B"), Kind("A"));
  EXPECT_NEAR(ab.throughput, 0.3, 0.03);
  EXPECT_NEAR(ba.throughput, 0.95, 0.03);
  EXPECT_EQ(ab.evidence, 5);
  EXPECT_EQ(ba.evidence, 5);
  // Evidence makes it surer than a pair never seen.
  EXPECT_LT(ab.uncertainty, model.Predict(Kind("A"), Kind("C")).uncertainty);
}

TEST(InterferenceModelTest, ListsTheLearnedPairs) {
  InterferenceModel model;
  EXPECT_TRUE(model.LearnedPairs().empty());
  model.Observe(Kind("C"), Kind("D"), 0.9, 0.9);
  for (int i = 0; i < 5; ++i) model.Observe(Kind("A"), Kind("B"), 0.3, 0.95);
  const std::vector<LearnedPair> pairs = model.LearnedPairs();
  ASSERT_EQ(pairs.size(), 4u);  // A<-B, B<-A, C<-D, D<-C, in that order
  EXPECT_EQ(pairs[0].victim, "A");
  EXPECT_EQ(pairs[0].aggressor, "B");
  EXPECT_EQ(pairs[0].observations, 5);
  EXPECT_DOUBLE_EQ(pairs[0].measured, 0.3);
  const InterferencePrediction ab = model.Predict(Kind("A"), Kind("B"));
  EXPECT_DOUBLE_EQ(pairs[0].predicted, ab.throughput);
  EXPECT_DOUBLE_EQ(pairs[0].uncertainty, ab.uncertainty);
  // The factor model explains the pair itself (within its bounds).
  EXPECT_GT(pairs[0].model_only, 0);
  EXPECT_LE(pairs[0].model_only, 1.2);
  EXPECT_EQ(pairs[1].victim, "B");
  EXPECT_EQ(pairs[3].victim, "D");
}

TEST(InterferenceModelTest, GeneralisesToUnseenPairs) {
  const World world;
  const int n = static_cast<int>(world.kinds.size());
  InterferenceModel model;
  PairTable table;
  for (int i = 0; i < n; ++i) {
    for (int j = i; j < n; ++j) {
      if (!Train(i, j)) continue;
      const JobTraits a = Kind(world.kinds[i].name), b = Kind(world.kinds[j].name);
      model.Observe(a, b, world.Truth(i, j), world.Truth(j, i));
      table.Observe(a, b, world.Truth(i, j), world.Truth(j, i));
    }
  }
  // The median of everything learned: what knowing nothing of jobs gives.
  std::vector<double> seen;
  for (int i = 0; i < n; ++i) {
    for (int j = i; j < n; ++j) {
      if (!Train(i, j)) continue;
      seen.push_back(world.Truth(i, j));
      seen.push_back(world.Truth(j, i));
    }
  }
  std::nth_element(seen.begin(), seen.begin() + seen.size() / 2, seen.end());
  const double median = seen[seen.size() / 2];

  double model_error = 0, median_error = 0, table_error = 0;
  int unseen = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (Train(std::min(i, j), std::max(i, j))) continue;
      const JobTraits v = Kind(world.kinds[i].name), a = Kind(world.kinds[j].name);
      const double truth = world.Truth(i, j);
      const InterferencePrediction p = model.Predict(v, a);
      EXPECT_EQ(p.evidence, 0);
      model_error += std::abs(p.throughput - truth);
      median_error += std::abs(median - truth);
      table_error += std::abs(table.Predict(v, a).throughput - truth);
      ++unseen;
    }
  }
  ASSERT_GT(unseen, 200);
  model_error /= unseen;
  median_error /= unseen;
  table_error /= unseen;
  EXPECT_LT(model_error, 0.5 * median_error) << model_error << " vs " << median_error;
  EXPECT_LT(model_error, 0.5 * table_error) << model_error << " vs " << table_error;
}

TEST(InterferenceModelTest, ColdKindFallsBackToFamilyThenGlobal) {
  InterferenceModel model;
  // Family "Slow" suffers badly next to anything; family "Fast" does not.
  for (int round = 0; round < 3; ++round) {
    for (int b : {16, 32, 64}) {
      const JobTraits slow = Kind("Slow (batch size " + std::to_string(b) + ")");
      const JobTraits fast = Kind("Fast (batch size " + std::to_string(b) + ")");
      model.Observe(slow, Kind("Other"), 0.3, 0.9);
      model.Observe(fast, Kind("Other"), 0.9, 0.9);
    }
  }
  const JobTraits other = Kind("Other");
  const double cold_slow = model.Predict(Kind("Slow (batch size 512)"), other).throughput;
  const double cold_fast = model.Predict(Kind("Fast (batch size 512)"), other).throughput;
  const double unknown = model.Predict(Kind("Unknown"), other).throughput;
  EXPECT_NEAR(cold_slow, 0.3, 0.1);
  EXPECT_NEAR(cold_fast, 0.9, 0.1);
  // A kind of an unknown family gets the global level: between the two.
  EXPECT_GT(unknown, cold_slow + 0.1);
  EXPECT_LT(unknown, cold_fast - 0.1);
  // An explicit family wins over the name.
  JobTraits renamed = Kind("Mystery");
  renamed.family = "Slow";
  EXPECT_NEAR(model.Predict(renamed, other).throughput, cold_slow, 1e-9);
  // Cold kinds are less certain than known ones.
  EXPECT_GT(model.Predict(Kind("Unknown"), other).uncertainty,
            model.Predict(Kind("Slow (batch size 16)"), Kind("Fast (batch size 16)")).uncertainty);
}

TEST(InterferenceModelTest, ProfileFeaturesInformColdKinds) {
  InterferenceModel model;
  // Each kind is its own family; how much it suffers follows its busy
  // fraction (a busy job loses more).
  for (int round = 0; round < 4; ++round) {
    for (int k = 0; k < 8; ++k) {
      JobTraits j = Kind("K" + std::to_string(k));
      j.busy = 0.1 + 0.1 * k;
      model.Observe(j, Kind("Peer"), 1.0 - 0.6 * j.busy, std::nan(""));
    }
  }
  JobTraits idle = Kind("NewIdle");
  idle.busy = 0.1;
  JobTraits busy = Kind("NewBusy");
  busy.busy = 0.9;
  EXPECT_GT(model.Predict(idle, Kind("Peer")).throughput,
            model.Predict(busy, Kind("Peer")).throughput + 0.15);
}

// Two memory-bound jobs share DRAM bandwidth and two compute-bound ones the
// SMs, while a memory-bound job next to a compute-bound one barely notices it
// (what simgpu measures of the synthetic kinds in tests/coordinator/daemon/
// models). Trained on some pairs of four kinds, the model must predict the
// pairs it never saw from the kinds' kernel mixes: MemB was only ever seen
// next to compute-bound jobs, CompB only next to memory-bound ones, and the
// model is asked about each next to its own sort.
std::vector<double> LikeWithLikePredictions(bool with_kernel_mix) {
  InterferenceModel model;
  auto kind = [&](const std::string& name, double memory_bound) {
    JobTraits t = Kind(name);
    if (with_kernel_mix) t.memory_bound = memory_bound;
    return t;
  };
  const JobTraits mem_a = kind("MemA", 0.95), mem_b = kind("MemB", 0.90);
  const JobTraits comp_a = kind("CompA", 0.05), comp_b = kind("CompB", 0.10);
  for (int round = 0; round < 6; ++round) {
    model.Observe(mem_a, mem_a, 0.56, 0.56);
    model.Observe(comp_a, comp_a, 0.58, 0.58);
    model.Observe(mem_a, comp_a, 0.86, 0.86);
    model.Observe(mem_b, comp_a, 0.87, 0.85);
    model.Observe(comp_b, mem_a, 0.85, 0.87);
  }
  return {model.Predict(mem_b, mem_a).throughput, model.Predict(comp_b, comp_a).throughput,
          model.Predict(mem_b, comp_b).throughput};
}

TEST(InterferenceModelTest, PredictsUnseenPairsFromTheirKernelMixes) {
  const std::vector<double> p = LikeWithLikePredictions(true);
  EXPECT_LT(p[0], 0.70) << "MemB next to MemA";
  EXPECT_LT(p[1], 0.72) << "CompB next to CompA";
  EXPECT_GT(p[2], 0.78) << "MemB next to CompB";
  // Without the kernel mixes the same evidence says the opposite: MemB and
  // CompB were only ever seen doing well.
  const std::vector<double> blind = LikeWithLikePredictions(false);
  EXPECT_GT(blind[0], p[0] + 0.08);
  EXPECT_GT(blind[1], p[1] + 0.08);
}

TEST(InterferenceModelTest, RejectsBadValues) {
  InterferenceModel model;
  const double inf = std::numeric_limits<double>::infinity();
  model.Observe(Kind("A"), Kind("B"), inf, -0.1);
  model.Observe(Kind("A"), Kind("B"), 1.6, -inf);
  model.Observe(Kind(""), Kind("B"), 0.5, 0.5);
  EXPECT_EQ(model.rejected(), 6);
  EXPECT_EQ(model.observations(), 0);
  EXPECT_EQ(model.error().predictions, 0);
  // NaN is "not measured": neither learned nor rejected.
  model.Observe(Kind("A"), Kind("B"), std::nan(""), 0.4);
  EXPECT_EQ(model.rejected(), 6);
  EXPECT_EQ(model.observations(), 1);
  EXPECT_EQ(model.Predict(Kind("A"), Kind("B")).evidence, 0);
  EXPECT_EQ(model.Predict(Kind("B"), Kind("A")).evidence, 1);
  // The bounds themselves are usable.
  model.Observe(Kind("A"), Kind("B"), 0.0, 1.5);
  EXPECT_EQ(model.rejected(), 6);
  EXPECT_EQ(model.observations(), 3);
}

TEST(InterferenceModelTest, PredictionsStayInRange) {
  InterferenceModel model;
  for (int i = 0; i < 10; ++i) {
    model.Observe(Kind("Zero"), Kind("Max"), 0.0, 1.5);
  }
  const double low = model.Predict(Kind("Zero"), Kind("Max")).throughput;
  const double high = model.Predict(Kind("Max"), Kind("Zero")).throughput;
  EXPECT_GT(low, 0.0);
  EXPECT_LT(low, 0.1);
  EXPECT_LE(high, 1.2);
  EXPECT_GT(high, 1.0);
}

TEST(InterferenceModelTest, DeterministicGivenSeed) {
  const World world;
  const int n = static_cast<int>(world.kinds.size());
  auto run = [&](uint64_t seed) {
    InterferenceModel::Options options;
    options.seed = seed;
    InterferenceModel model(options);
    for (int i = 0; i < n; ++i) {
      for (int j = i; j < n; ++j) {
        if (Train(i, j)) {
          model.Observe(Kind(world.kinds[i].name), Kind(world.kinds[j].name), world.Truth(i, j),
                        world.Truth(j, i));
        }
      }
    }
    std::vector<double> out;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        out.push_back(
            model.Predict(Kind(world.kinds[i].name), Kind(world.kinds[j].name)).throughput);
      }
    }
    out.push_back(model.error().mean_abs_error);
    return out;
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}

TEST(InterferenceModelTest, PrequentialErrorScoresBeforeLearning) {
  InterferenceModel::Options options;
  options.prior_mean = 0.6;
  InterferenceModel model(options);
  // First observation: both directions predicted by the prior.
  model.Observe(Kind("A"), Kind("B"), 0.4, 0.9);
  PredictionError e = model.error();
  EXPECT_EQ(e.predictions, 2);
  EXPECT_NEAR(e.mean_abs_error, (0.2 + 0.3) / 2, 1e-9);
  EXPECT_NEAR(e.recent_abs_error, 0.25, 0.01);  // weighted to the later one
  // A repeat is predicted from what was learned: the error shrinks.
  for (int i = 0; i < 20; ++i) model.Observe(Kind("A"), Kind("B"), 0.4, 0.9);
  e = model.error();
  EXPECT_EQ(e.predictions, 42);
  EXPECT_LT(e.recent_abs_error, 0.05);
  EXPECT_LT(e.mean_abs_error, 0.25 / 2);
  EXPECT_EQ(model.observations(), 42);
}

TEST(InterferenceModelTest, DropsTheOldestBeyondCapacity) {
  InterferenceModel::Options options;
  options.max_observations = 10;
  InterferenceModel model(options);
  for (int i = 0; i < 10; ++i) model.Observe(Kind("A"), Kind("B"), 0.2, std::nan(""));
  EXPECT_EQ(model.Predict(Kind("A"), Kind("B")).evidence, 10);
  for (int i = 0; i < 10; ++i) model.Observe(Kind("A"), Kind("B"), 0.8, std::nan(""));
  const InterferencePrediction p = model.Predict(Kind("A"), Kind("B"));
  EXPECT_EQ(p.evidence, 10);
  EXPECT_NEAR(p.throughput, 0.8, 0.05);
}

TEST(InterferenceModelTest, MovesKeepWhatWasLearned) {
  InterferenceModel model;
  model.Observe(Kind("A"), Kind("B"), 0.3, 0.7);
  InterferenceModel moved = std::move(model);
  EXPECT_EQ(moved.observations(), 2);
  EXPECT_EQ(moved.Predict(Kind("A"), Kind("B")).evidence, 1);
}

}  // namespace
}  // namespace iashim::policy
