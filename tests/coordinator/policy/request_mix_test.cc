#include "coordinator/policy/request_mix.h"

#include <gtest/gtest.h>

namespace iashim::policy {
namespace {

TEST(RequestMix, WeighsEachShapeByHowOftenItArrived) {
  RequestMix mix;
  EXPECT_TRUE(mix.Classes().empty());
  mix.Observe(1, 300);
  mix.Observe(1, 300);
  mix.Observe(1, 0);
  mix.Observe(8, 0);
  mix.Observe(0, 300);  // no GPUs: not a request for any
  EXPECT_EQ(mix.observed(), 4);
  ASSERT_EQ(mix.Classes().size(), 3u);
  EXPECT_EQ(mix.Classes()[0].gpus, 1);
  EXPECT_EQ(mix.Classes()[0].mem_bytes, 0u);
  EXPECT_DOUBLE_EQ(mix.Classes()[0].weight, 0.25);
  EXPECT_EQ(mix.Classes()[1].mem_bytes, 300u);
  EXPECT_DOUBLE_EQ(mix.Classes()[1].weight, 0.5);
  EXPECT_EQ(mix.Classes()[2].gpus, 8);
  mix.Observe(1, 0);  // the weights follow what arrives
  EXPECT_DOUBLE_EQ(mix.Classes()[0].weight, 0.4);
}

TEST(RequestMix, KeepsTheMostCommonShapesOnly) {
  RequestMix mix;
  for (uint64_t m = 1; m <= RequestMix::kMaxClasses + 5; ++m) mix.Observe(1, m);
  for (int i = 0; i < 3; ++i) mix.Observe(1, 1000);  // the most common
  const auto& classes = mix.Classes();
  ASSERT_EQ(classes.size(), RequestMix::kMaxClasses);
  double sum = 0;
  for (const RequestClass& c : classes) sum += c.weight;
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_EQ(classes.back().mem_bytes, 1000u);
  EXPECT_DOUBLE_EQ(classes.back().weight, 3.0 / (RequestMix::kMaxClasses + 2));
}

}  // namespace
}  // namespace iashim::policy
