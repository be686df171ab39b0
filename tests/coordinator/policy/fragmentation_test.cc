#include "coordinator/policy/fragmentation.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace iashim::policy {
namespace {

GpuRoom Free(uint64_t free, uint64_t size = 1000) {
  return GpuRoom{.free_bytes = free, .memory_bytes = size, .empty = free == size, .full = false};
}

TEST(Fragmentation, AShareClassCannotUseGpusWithLessFreeThanItAsks) {
  const std::vector<RequestClass> mix = {{.gpus = 1, .mem_bytes = 500, .weight = 1}};
  FragmentationMeter meter(mix);
  // 300 free is too little for 500; 600 and the empty GPU are usable.
  const std::vector<GpuRoom> node = {Free(300), Free(600), Free(1000)};
  EXPECT_DOUBLE_EQ(meter.Unusable(node), 0.3);
  // None usable: all free capacity is lost.
  EXPECT_DOUBLE_EQ(meter.Unusable(std::vector<GpuRoom>{Free(300), Free(400)}), 0.7);
}

TEST(Fragmentation, WholeGpuClassesUseOnlyEmptyGpusAndNeedEnoughOfThem) {
  const std::vector<RequestClass> one = {{.gpus = 1, .mem_bytes = 0, .weight = 1}};
  const std::vector<RequestClass> gang = {{.gpus = 2, .mem_bytes = 0, .weight = 1}};
  const std::vector<GpuRoom> node = {Free(200), Free(1000)};
  // One whole GPU fits: only the partial GPU's 200 is lost.
  EXPECT_DOUBLE_EQ(FragmentationMeter(one).Unusable(node), 0.2);
  // A gang of two cannot start here: everything free is lost.
  EXPECT_DOUBLE_EQ(FragmentationMeter(gang).Unusable(node), 1.2);
}

TEST(Fragmentation, ClassesAreWeighedByTheirShareOfArrivals) {
  const std::vector<RequestClass> mix = {{.gpus = 1, .mem_bytes = 500, .weight = 0.25},
                                         {.gpus = 1, .mem_bytes = 0, .weight = 0.75}};
  const std::vector<GpuRoom> node = {Free(300), Free(1000)};
  EXPECT_DOUBLE_EQ(FragmentationMeter(mix).Unusable(node), 0.25 * 0.3 + 0.75 * 0.3);
}

TEST(Fragmentation, FullAndUnknownGpus) {
  const std::vector<RequestClass> mix = {{.gpus = 1, .mem_bytes = 500, .weight = 0.5},
                                         {.gpus = 1, .mem_bytes = 0, .weight = 0.5}};
  // A GPU at its job limit has nothing free; a busy GPU of unknown size
  // takes any share and counts nothing free either.
  GpuRoom full = Free(700);
  full.full = true;
  const GpuRoom unknown_busy{.free_bytes = 0, .memory_bytes = 0, .empty = false, .full = false};
  const GpuRoom unknown_empty{.free_bytes = 0, .memory_bytes = 0, .empty = true, .full = false};
  EXPECT_DOUBLE_EQ(FragmentationMeter(mix).Unusable(std::vector<GpuRoom>{full, unknown_busy}),
                   0.0);
  EXPECT_DOUBLE_EQ(FragmentationMeter(mix).Unusable(std::vector<GpuRoom>{unknown_empty}), 0.0);
}

TEST(Fragmentation, RoomAfterAPlacement) {
  const GpuRoom empty = Free(1000);
  const GpuRoom after = RoomAfter(empty, 300, 0, /*max_jobs_per_gpu=*/0);
  EXPECT_EQ(after.free_bytes, 700u);
  EXPECT_FALSE(after.empty);
  EXPECT_FALSE(after.full);
  EXPECT_TRUE(RoomAfter(empty, 0, 0, 0).full);               // the whole GPU
  EXPECT_TRUE(RoomAfter(Free(700), 300, 1, /*max=*/2).full);  // the job limit reached
}

// Delta and DeltaSet must equal the difference of two full counts, for
// every mix shape (shares, whole GPUs, gangs of both) and any node.
TEST(Fragmentation, DeltaIsTheDifferenceOfTwoCounts) {
  std::mt19937 rng(7);
  const std::vector<RequestClass> mix = {{.gpus = 1, .mem_bytes = 0, .weight = 0.3},
                                         {.gpus = 2, .mem_bytes = 0, .weight = 0.1},
                                         {.gpus = 1, .mem_bytes = 200, .weight = 0.2},
                                         {.gpus = 1, .mem_bytes = 650, .weight = 0.25},
                                         {.gpus = 2, .mem_bytes = 400, .weight = 0.15}};
  std::uniform_int_distribution<int> size(1, 8), milli(0, 10);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<GpuRoom> node;
    for (int g = size(rng); g > 0; --g) node.push_back(Free(static_cast<uint64_t>(milli(rng)) * 100));
    FragmentationMeter meter(mix);
    for (size_t i = 0; i < node.size(); ++i) {
      for (uint64_t ask : {0ull, 100ull, 300ull}) {
        if (ask == 0 ? !node[i].empty : node[i].free_bytes < ask) continue;
        const GpuRoom after = RoomAfter(node[i], ask, node[i].empty ? 0 : 1, 0);
        std::vector<GpuRoom> changed = node;
        changed[i] = after;
        const double want = meter.Unusable(changed) - meter.Unusable(node);
        EXPECT_NEAR(meter.Delta(node, i, after), want, 1e-12) << "trial " << trial;
        const size_t chosen[] = {i};
        EXPECT_NEAR(meter.DeltaSet(node, chosen, std::vector<GpuRoom>{after}), want, 1e-12);
      }
    }
  }
}

}  // namespace
}  // namespace iashim::policy
