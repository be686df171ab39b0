#include "common/wire/kernel_id.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace iashim {
namespace {

// The wire identifies kernels by this hash, so the values must never change
// between runs, builds or machines. These are the published FNV-1a 64-bit test
// vectors (offset basis 14695981039346656037, prime 1099511628211).
TEST(KernelIdHash, StandardTestVectors) {
  EXPECT_EQ(kFnvOffset, 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a("foobar"), 0x85944171f73967e8ULL);
}

// The same vectors with the basis passed explicitly: checks the loop itself
// (xor then multiply, bytes taken unsigned) independently of the default basis.
TEST(KernelIdHash, AlgorithmWithExplicitBasis) {
  constexpr uint64_t kBasis = 0xcbf29ce484222325ULL;
  EXPECT_EQ(Fnv1a("", kBasis), kBasis);
  EXPECT_EQ(Fnv1a("a", kBasis), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a("foobar", kBasis), 0x85944171f73967e8ULL);
  EXPECT_EQ(Fnv1a("\xff", kBasis), (kBasis ^ 0xffULL) * 1099511628211ULL);
}

TEST(KernelIdHash, ChainsAndDistinguishes) {
  EXPECT_EQ(Fnv1a("bar", Fnv1a("foo")), Fnv1a("foobar"));
  EXPECT_EQ(Fnv1a("_Z6kernelPfi"), Fnv1a(std::string("_Z6kernelPfi")));
  EXPECT_NE(Fnv1a("_Z6kernelPfi"), Fnv1a("_Z6kernelPfj"));
  // Embedded NULs are part of the name.
  EXPECT_NE(Fnv1a(std::string_view("a\0b", 3)), Fnv1a("a"));
}

TEST(KernelIdHash, IsTheNamesFnv1a) {
  static_assert(KernelId("volta_sgemm_128x64_nn") == Fnv1a("volta_sgemm_128x64_nn"));
  EXPECT_EQ(KernelId("a"), 0xaf63dc4c8601ec8cULL);
}

}  // namespace
}  // namespace iashim
