#include "coordinator/policy/kernel_set_fingerprint.h"

#include <gtest/gtest.h>

#include "coordinator/policy/hash.h"

namespace iashim::policy {
namespace {

TEST(KernelSetFingerprintTest, EmptySetIsZero) {
  KernelSetFingerprint f;
  EXPECT_EQ(f.value(), 0u);
  EXPECT_EQ(f.size(), 0u);
}

TEST(KernelSetFingerprintTest, IndependentOfOrderAndRepetition) {
  const uint64_t a = Fnv1a("ampere_sgemm_128x64_tn");
  const uint64_t b = Fnv1a("vectorized_elementwise_kernel");
  const uint64_t c = Fnv1a("bn_fw_tr_1C11_kernel_NCHW");
  KernelSetFingerprint one;
  KernelSetFingerprint two;
  for (uint64_t k : {a, b, c}) one.Add(k);
  for (uint64_t k : {c, a, a, b, c, b}) two.Add(k);
  EXPECT_EQ(one.value(), two.value());
  EXPECT_EQ(two.size(), 3u);
}

TEST(KernelSetFingerprintTest, DifferentSetsDiffer) {
  KernelSetFingerprint one;
  KernelSetFingerprint two;
  one.Add(Fnv1a("a"));
  one.Add(Fnv1a("b"));
  two.Add(Fnv1a("a"));
  two.Add(Fnv1a("c"));
  EXPECT_NE(one.value(), two.value());
  const uint64_t before = one.value();
  EXPECT_TRUE(one.Add(Fnv1a("c")));
  EXPECT_NE(one.value(), before);
  EXPECT_FALSE(one.Add(Fnv1a("c")));
}

TEST(KernelSetFingerprintTest, StopsGrowingAtTheCapAndCounts) {
  KernelSetFingerprint f(2);
  EXPECT_TRUE(f.Add(1));
  EXPECT_TRUE(f.Add(2));
  const uint64_t full = f.value();
  EXPECT_FALSE(f.Add(3));
  EXPECT_FALSE(f.Add(4));
  EXPECT_FALSE(f.Add(1));  // already in: not overflow
  EXPECT_EQ(f.value(), full);
  EXPECT_EQ(f.overflow(), 2u);
}

}  // namespace
}  // namespace iashim::policy
