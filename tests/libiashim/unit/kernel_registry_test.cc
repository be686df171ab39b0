#include "common/wire/kernel_id.h"
#include "libiashim/src/kernel_registry.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/text/text.h"

namespace iashim {
namespace {

// The registry lives for the whole process in the shim and never frees its
// tables or names (a reader may hold them). Keep every test's registry
// reachable so LeakSanitizer does not report that deliberate design.
KernelRegistry& NewRegistry() {
  static auto* registries = new std::vector<KernelRegistry*>;
  registries->push_back(new KernelRegistry);
  return *registries->back();
}

// Names replaced by a rename are deliberately leaked; keep them reachable too.
void KeepReachable(const char* name) {
  static auto* kept = new std::vector<const char*>;
  kept->push_back(name);
}

const void* Handle(uintptr_t value) { return reinterpret_cast<const void*>(value); }

TEST(KernelRegistry, SameHandleSameId) {
  KernelRegistry& r = NewRegistry();
  EXPECT_EQ(r.count(), 0u);
  const uint32_t id = r.IdOf(Handle(0x7f0012345600));
  EXPECT_NE(id, KernelRegistry::kOtherKernel);
  EXPECT_EQ(r.IdOf(Handle(0x7f0012345600)), id);
  EXPECT_EQ(r.IdOf(Handle(0x7f0012345600)), id);
  EXPECT_EQ(r.count(), 1u);
  EXPECT_EQ(r.info(id).handle.load(), uintptr_t(0x7f0012345600));
}

TEST(KernelRegistry, DistinctHandlesDistinctDenseIds) {
  KernelRegistry& r = NewRegistry();
  std::set<uint32_t> ids;
  for (uintptr_t i = 0; i < 1000; ++i) ids.insert(r.IdOf(Handle(0x7f0000000000 + i * 64)));
  EXPECT_EQ(ids.size(), 1000u);
  EXPECT_EQ(*ids.begin(), 1u);  // ids are 1..count(), 0 is "other"
  EXPECT_EQ(*ids.rbegin(), 1000u);
  EXPECT_EQ(r.count(), 1000u);
  // Looked up again, in another order: the same ids.
  for (uintptr_t i = 1000; i-- > 0;) {
    const uint32_t id = r.IdOf(Handle(0x7f0000000000 + i * 64));
    EXPECT_EQ(r.info(id).handle.load(), 0x7f0000000000 + i * 64);
  }
  EXPECT_EQ(r.count(), 1000u);
}

TEST(KernelRegistry, UnpackableHandlesAreOther) {
  KernelRegistry& r = NewRegistry();
  EXPECT_EQ(r.IdOf(nullptr), KernelRegistry::kOtherKernel);
  // The id shares the slot word with the handle: the top 16 bits must be free.
  EXPECT_EQ(r.IdOf(Handle(0xffff800000001000)), KernelRegistry::kOtherKernel);
  EXPECT_EQ(r.IdOf(Handle(uintptr_t(1) << 48)), KernelRegistry::kOtherKernel);
  EXPECT_EQ(r.count(), 0u);
  // The largest packable handle is fine.
  EXPECT_NE(r.IdOf(Handle((uintptr_t(1) << 48) - 1)), KernelRegistry::kOtherKernel);
}

TEST(KernelRegistry, SetNameStoresNameAndHash) {
  KernelRegistry& r = NewRegistry();
  const std::string name = "_Z10matmul_f32PKfS0_Pfiii";
  r.SetName(Handle(0x5000), name);
  const uint32_t id = r.IdOf(Handle(0x5000));  // named before first launch: same id
  ASSERT_NE(id, KernelRegistry::kOtherKernel);
  EXPECT_EQ(r.count(), 1u);
  ASSERT_NE(r.info(id).name.load(), nullptr);
  EXPECT_STREQ(r.info(id).name.load(), name.c_str());
  EXPECT_EQ(r.info(id).hash.load(), Fnv1a(name));
}

TEST(KernelRegistry, NcclKernelsAreKnownAsCollectives) {
  KernelRegistry& reg = NewRegistry();
  reg.SetName(Handle(0x1000), "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  reg.SetName(Handle(0x2000), "_Z28ncclKernel_AllGather_RING_LLP11ncclDevComm");
  reg.SetName(Handle(0x3000), "volta_sgemm_128x64_nn");
  EXPECT_TRUE(reg.IsCollective(reg.IdOf(Handle(0x1000))));
  EXPECT_TRUE(reg.IsCollective(reg.IdOf(Handle(0x2000))));
  EXPECT_FALSE(reg.IsCollective(reg.IdOf(Handle(0x3000))));
  EXPECT_FALSE(reg.IsCollective(reg.IdOf(Handle(0x4000))));  // not named yet
  // A handle reused for another kernel follows its new name.
  KeepReachable(reg.info(reg.IdOf(Handle(0x1000))).name.load());
  reg.SetName(Handle(0x1000), "volta_sgemm_128x64_nn");
  EXPECT_FALSE(reg.IsCollective(reg.IdOf(Handle(0x1000))));
}

TEST(KernelRegistry, WithoutACollectiveNamedNoKernelIsOne) {
  KernelRegistry& reg = NewRegistry();
  reg.SetName(Handle(0x5000), "volta_sgemm_128x64_nn");
  EXPECT_FALSE(reg.IsCollective(reg.IdOf(Handle(0x5000))));
  EXPECT_FALSE(reg.IsCollective(KernelRegistry::kOtherKernel));
}

TEST(KernelRegistry, UnnamedKernelHasNoNameAndZeroHash) {
  KernelRegistry& r = NewRegistry();
  const uint32_t id = r.IdOf(Handle(0x6000));
  EXPECT_EQ(r.info(id).name.load(), nullptr);
  EXPECT_EQ(r.info(id).hash.load(), 0u);
}

// A handle reused for another kernel (module unloaded, address recycled).
TEST(KernelRegistry, RenamingUpdatesNameAndHash) {
  KernelRegistry& r = NewRegistry();
  r.SetName(Handle(0x7000), "first");
  const uint32_t id = r.IdOf(Handle(0x7000));
  const char* old_name = r.info(id).name.load();
  KeepReachable(old_name);
  r.SetName(Handle(0x7000), "second_kernel");
  EXPECT_EQ(r.IdOf(Handle(0x7000)), id);
  EXPECT_STREQ(r.info(id).name.load(), "second_kernel");
  EXPECT_EQ(r.info(id).hash.load(), Fnv1a("second_kernel"));
  EXPECT_STREQ(old_name, "first");  // the old string stays valid for readers
}

// Naming again with the same name keeps the existing string (no new copy).
TEST(KernelRegistry, SameNameAgainIsANoOp) {
  KernelRegistry& r = NewRegistry();
  r.SetName(Handle(0x8000), "k");
  const uint32_t id = r.IdOf(Handle(0x8000));
  const char* before = r.info(id).name.load();
  r.SetName(Handle(0x8000), "k");
  EXPECT_EQ(r.info(id).name.load(), before);
}

// A name is copied: the caller's buffer can go away. Embedded data after the
// view's end is not included.
TEST(KernelRegistry, NameIsCopied) {
  KernelRegistry& r = NewRegistry();
  std::string buffer = "kernel_name_and_more";
  r.SetName(Handle(0x9000), std::string_view(buffer).substr(0, 11));
  buffer.assign(buffer.size(), 'x');
  const uint32_t id = r.IdOf(Handle(0x9000));
  EXPECT_STREQ(r.info(id).name.load(), "kernel_name");
  EXPECT_EQ(r.info(id).hash.load(), Fnv1a("kernel_name"));
}

TEST(KernelRegistry, SetNameOnUnpackableHandleIsIgnored) {
  KernelRegistry& r = NewRegistry();
  r.SetName(nullptr, "nothing");
  r.SetName(Handle(0xffff000000000010), "nothing");
  EXPECT_EQ(r.count(), 0u);
  EXPECT_EQ(r.info(KernelRegistry::kOtherKernel).name.load(), nullptr);
}

// Past kMaxKernels distinct handles, new ones are "other"; the known ones keep
// their ids.
TEST(KernelRegistry, IdsRunOutIntoOther) {
  KernelRegistry& r = NewRegistry();
  const uint32_t max = KernelRegistry::kMaxKernels;
  for (uintptr_t i = 1; i <= max; ++i) {
    ASSERT_EQ(r.IdOf(Handle(i * 16)), uint32_t(i)) << i;
  }
  EXPECT_EQ(r.count(), max);
  EXPECT_EQ(r.IdOf(Handle((max + 1) * 16)), KernelRegistry::kOtherKernel);
  EXPECT_EQ(r.IdOf(Handle((max + 2) * 16)), KernelRegistry::kOtherKernel);
  EXPECT_EQ(r.count(), max);
  EXPECT_EQ(r.IdOf(Handle(16)), 1u);
  EXPECT_EQ(r.IdOf(Handle(max * 16)), max);
}

// Launch threads see handles at the same time; every thread must get the
// same id for the same handle, and distinct handles distinct ids. Runs under
// TSan.
TEST(KernelRegistry, ConcurrentRegistrationAgrees) {
  KernelRegistry& r = NewRegistry();
  constexpr int kThreads = 8;
  constexpr int kHandles = 600;
  std::vector<std::vector<uint32_t>> seen(kThreads, std::vector<uint32_t>(kHandles));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&r, &seen, t] {
      // Each thread walks the handles from a different starting point so that
      // first registrations race.
      for (int n = 0; n < kHandles; ++n) {
        const int i = (n + t * 75) % kHandles;
        seen[t][i] = r.IdOf(Handle(0x7f5500000000 + uintptr_t(i) * 128));
        // Each handle is named by one thread only: concurrent first namings of
        // one handle would each leave a copy (harmless, but LSan reports it).
        if (i % (kThreads * 4) == t) {
          r.SetName(Handle(0x7f5500000000 + uintptr_t(i) * 128), "k" + std::to_string(i));
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<uint32_t> distinct;
  for (int i = 0; i < kHandles; ++i) {
    EXPECT_NE(seen[0][i], KernelRegistry::kOtherKernel) << i;
    for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t][i], seen[0][i]) << "handle " << i;
    distinct.insert(seen[0][i]);
    EXPECT_EQ(r.IdOf(Handle(0x7f5500000000 + uintptr_t(i) * 128)), seen[0][i]);
  }
  EXPECT_EQ(distinct.size(), size_t(kHandles));
  for (int i = 0; i < kHandles; i += kThreads * 4) {
    EXPECT_EQ(r.info(seen[0][i]).hash.load(), Fnv1a("k" + std::to_string(i))) << i;
  }
  // Lost races may waste ids, never hand out too few.
  EXPECT_GE(r.count(), uint32_t(kHandles));
}

}  // namespace
}  // namespace iashim
