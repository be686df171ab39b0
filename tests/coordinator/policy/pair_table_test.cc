#include "coordinator/policy/pair_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace iashim::policy {
namespace {

JobTraits Kind(const char* kind) { return JobTraits{.kind = kind}; }

TEST(PairTableTest, PriorBeforeAnyObservation) {
  const PairTable table(0.6);
  const InterferencePrediction p = table.Predict(Kind("A"), Kind("B"));
  EXPECT_DOUBLE_EQ(p.throughput, 0.6);
  EXPECT_EQ(p.evidence, 0);
}

TEST(PairTableTest, ObservedPairIsItsMeanPerDirection) {
  PairTable table;
  table.Observe(Kind("A"), Kind("B"), 0.4, 0.9);
  table.Observe(Kind("A"), Kind("B"), 0.6, 0.7);
  const InterferencePrediction ab = table.Predict(Kind("A"), Kind("B"));
  EXPECT_DOUBLE_EQ(ab.throughput, 0.5);
  EXPECT_EQ(ab.evidence, 2);
  EXPECT_DOUBLE_EQ(table.Predict(Kind("B"), Kind("A")).throughput, 0.8);
  // Learned from the other side too.
  table.Observe(Kind("B"), Kind("A"), 0.5, 0.2);
  EXPECT_NEAR(table.Predict(Kind("A"), Kind("B")).throughput, 0.4, 1e-12);
  EXPECT_EQ(table.Predict(Kind("A"), Kind("B")).evidence, 3);
}

TEST(PairTableTest, UnseenPairIsTheMeanOfEverything) {
  PairTable table;
  table.Observe(Kind("A"), Kind("B"), 0.4, 0.8);
  table.Observe(Kind("C"), Kind("D"), 0.6, std::nan(""));
  // Related kinds do not help a table: only the exact pair does.
  const InterferencePrediction p = table.Predict(Kind("A"), Kind("D"));
  EXPECT_NEAR(p.throughput, 0.6, 1e-12);
  EXPECT_EQ(p.evidence, 0);
}

TEST(PairTableTest, IgnoresBadValues) {
  PairTable table(0.5);
  const double inf = std::numeric_limits<double>::infinity();
  table.Observe(Kind("A"), Kind("B"), inf, -0.5);
  table.Observe(Kind("A"), Kind("B"), 2.0, std::nan(""));
  table.Observe(Kind(""), Kind("B"), 0.9, 0.9);
  EXPECT_DOUBLE_EQ(table.Predict(Kind("A"), Kind("B")).throughput, 0.5);
  EXPECT_EQ(table.Predict(Kind("A"), Kind("B")).evidence, 0);
  EXPECT_DOUBLE_EQ(table.Predict(Kind("X"), Kind("Y")).throughput, 0.5);
}

TEST(PairTableTest, KindsWithSharedPrefixesDoNotCollide) {
  PairTable table;
  table.Observe(Kind("AB"), Kind("C"), 0.2, std::nan(""));
  table.Observe(Kind("A"), Kind("BC"), 0.9, std::nan(""));
  EXPECT_DOUBLE_EQ(table.Predict(Kind("AB"), Kind("C")).throughput, 0.2);
  EXPECT_DOUBLE_EQ(table.Predict(Kind("A"), Kind("BC")).throughput, 0.9);
}

}  // namespace
}  // namespace iashim::policy
