#include "common/wire/kernel_id.h"
#include "libiashim/src/telemetry_encoder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/text/text.h"
#include "schemas/telemetry_generated.h"

namespace iashim {
namespace {

namespace w = ::iashim::wire;

bool Verifies(const uint8_t* data, size_t size) {
  flatbuffers::Verifier verifier(data, size);
  return w::VerifyEnvelopeBuffer(verifier);
}
bool Verifies(const Message& m) { return Verifies(m.data(), m.size()); }

// Verifies `m` and returns its envelope, checking the common header fields.
const w::Envelope* Open(const Message& m, int pid, w::Payload type) {
  EXPECT_TRUE(Verifies(m));
  const w::Envelope* env = w::GetEnvelope(m.data());
  EXPECT_EQ(env->version(), w::Version::Current);
  EXPECT_EQ(static_cast<int>(env->version()), 1);
  EXPECT_EQ(env->pid(), pid);
  EXPECT_EQ(env->payload_type(), type);
  return env;
}

TEST(TelemetryEncoder, Hello) {
  HelloInfo h;
  h.pid = 31337;
  h.host = "gpu-node-07";
  h.job = "bert-large";
  h.command = "python train.py --epochs 3";
  h.window_ms = 250;
  h.mem_limit_bytes = 8ULL << 30;
  h.start_unix_ns = 1'700'000'000'123'456'789ULL;
  h.start_monotonic_ns = 987'654'321;
  const Message m = EncodeHello(h);
  const w::Envelope* env = Open(m, 31337, w::Payload::Hello);
  const w::Hello* hello = env->payload_as_Hello();
  ASSERT_NE(hello, nullptr);
  EXPECT_EQ(env->payload_as_Goodbye(), nullptr);
  EXPECT_EQ(hello->pid(), 31337);
  EXPECT_EQ(hello->host()->str(), "gpu-node-07");
  EXPECT_EQ(hello->job()->str(), "bert-large");
  EXPECT_EQ(hello->command()->str(), "python train.py --epochs 3");
  EXPECT_EQ(hello->shim_version()->str(), ShimVersion());
  EXPECT_EQ(hello->window_ms(), 250u);
  EXPECT_EQ(hello->mem_limit_bytes(), 8ULL << 30);
  EXPECT_EQ(hello->start_unix_ns(), 1'700'000'000'123'456'789ULL);
  EXPECT_EQ(hello->start_monotonic_ns(), 987'654'321u);
}

// Empty strings are still present (not null) so readers need no null checks.
TEST(TelemetryEncoder, HelloWithEmptyStrings) {
  const Message m = EncodeHello(HelloInfo{});
  const w::Envelope* env = Open(m, 0, w::Payload::Hello);
  const w::Hello* hello = env->payload_as_Hello();
  ASSERT_NE(hello, nullptr);
  ASSERT_NE(hello->host(), nullptr);
  ASSERT_NE(hello->job(), nullptr);
  EXPECT_EQ(hello->host()->str(), "");
  EXPECT_EQ(hello->job()->str(), "");
  EXPECT_EQ(hello->mem_limit_bytes(), 0u);
}

TEST(TelemetryEncoder, KernelNames) {
  const std::vector<std::pair<uint64_t, std::string>> names = {
      {Fnv1a("_Z4gemmPfS_S_"), "_Z4gemmPfS_S_"},
      {Fnv1a("void at::native::vectorized_elementwise_kernel<4>(int)"),
       "void at::native::vectorized_elementwise_kernel<4>(int)"},
      {0xffffffffffffffffULL, ""},
  };
  const Message m = EncodeKernelNames(77, names);
  const w::Envelope* env = Open(m, 77, w::Payload::KernelNames);
  const w::KernelNames* kn = env->payload_as_KernelNames();
  ASSERT_NE(kn, nullptr);
  ASSERT_NE(kn->entries(), nullptr);
  ASSERT_EQ(kn->entries()->size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const w::KernelName* e = kn->entries()->Get(flatbuffers::uoffset_t(i));
    EXPECT_EQ(e->kernel(), names[i].first) << i;
    EXPECT_EQ(e->name()->str(), names[i].second) << i;
  }
}

TEST(TelemetryEncoder, NoKernelNames) {
  const Message m = EncodeKernelNames(5, {});
  const w::Envelope* env = Open(m, 5, w::Payload::KernelNames);
  ASSERT_NE(env->payload_as_KernelNames()->entries(), nullptr);
  EXPECT_EQ(env->payload_as_KernelNames()->entries()->size(), 0u);
}

WindowSummary SampleWindow() {
  WindowSummary s;
  s.start_ns = 1'000'000;
  s.end_ns = 1'100'000;
  s.launches = 1234;
  s.graph_launches = 5;
  s.syncs = 17;
  s.iterations = 3;
  s.iteration_ns = 33'000;
  KernelWindow a;
  a.kernel = 1;
  a.launches = 1000;
  a.grid[0] = 80;
  a.grid[1] = 2;
  a.grid[2] = 3;
  a.block[0] = 256;
  a.block[1] = 1;
  a.block[2] = 4;
  a.shared_mem = 49152;
  a.blocks_total = 480'000;
  a.sampled = 15;
  a.gpu_ns_sum = 150'000;
  a.gpu_ns_min = 9'000;
  a.gpu_ns_max = 12'000;
  KernelWindow b;
  b.kernel = 2;
  b.launches = 234;
  b.grid[0] = 0xffffffffu;
  b.blocks_total = 0xffffffffffULL;
  s.kernels = {a, b};
  return s;
}

TEST(TelemetryEncoder, TelemetryBatch) {
  const WindowSummary window = SampleWindow();
  BatchExtras extras;
  extras.seq = 42;
  extras.sample_every = 64;
  extras.batches_dropped = 3;
  extras.records_dropped = 99;
  extras.memory = {{0, 1ULL << 30, 2ULL << 30, 8ULL << 30, 2}, {3, 5, 6, 0, 0}};
  extras.cpu_wait_ns = 7'000'000;
  // The wire carries name hashes, not process-local ids.
  const auto hash_of = [](uint32_t id) { return 0xabcdef0000000000ULL + id; };
  const Message m = EncodeBatch(555, window, extras, hash_of);
  const w::Envelope* env = Open(m, 555, w::Payload::TelemetryBatch);
  const w::TelemetryBatch* b = env->payload_as_TelemetryBatch();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->seq(), 42u);
  EXPECT_EQ(b->window_start_ns(), 1'000'000u);
  EXPECT_EQ(b->window_end_ns(), 1'100'000u);
  EXPECT_EQ(b->launches(), 1234u);
  EXPECT_EQ(b->graph_launches(), 5u);
  EXPECT_EQ(b->syncs(), 17u);
  EXPECT_EQ(b->iterations(), 3u);
  EXPECT_EQ(b->iteration_ns(), 33'000u);
  EXPECT_EQ(b->sample_every(), 64u);
  EXPECT_EQ(b->batches_dropped(), 3u);
  EXPECT_EQ(b->records_dropped(), 99u);
  EXPECT_EQ(b->cpu_wait_ns(), 7'000'000u);

  ASSERT_NE(b->kernels(), nullptr);
  ASSERT_EQ(b->kernels()->size(), 2u);
  const w::KernelStats* ka = b->kernels()->Get(0);
  EXPECT_EQ(ka->kernel(), 0xabcdef0000000001ULL);
  EXPECT_EQ(ka->launches(), 1000u);
  EXPECT_EQ(ka->grid_x(), 80u);
  EXPECT_EQ(ka->grid_y(), 2u);
  EXPECT_EQ(ka->grid_z(), 3u);
  EXPECT_EQ(ka->block_x(), 256u);
  EXPECT_EQ(ka->block_y(), 1u);
  EXPECT_EQ(ka->block_z(), 4u);
  EXPECT_EQ(ka->shared_mem_bytes(), 49152u);
  EXPECT_EQ(ka->blocks_total(), 480'000u);
  EXPECT_EQ(ka->sampled(), 15u);
  EXPECT_EQ(ka->gpu_ns_sum(), 150'000u);
  EXPECT_EQ(ka->gpu_ns_min(), 9'000u);
  EXPECT_EQ(ka->gpu_ns_max(), 12'000u);
  const w::KernelStats* kb = b->kernels()->Get(1);
  EXPECT_EQ(kb->kernel(), 0xabcdef0000000002ULL);
  EXPECT_EQ(kb->launches(), 234u);
  EXPECT_EQ(kb->grid_x(), 0xffffffffu);
  EXPECT_EQ(kb->blocks_total(), 0xffffffffffULL);
  EXPECT_EQ(kb->sampled(), 0u);

  ASSERT_NE(b->memory(), nullptr);
  ASSERT_EQ(b->memory()->size(), 2u);
  const w::DeviceMemory* m0 = b->memory()->Get(0);
  EXPECT_EQ(m0->device(), 0);
  EXPECT_EQ(m0->used_bytes(), 1ULL << 30);
  EXPECT_EQ(m0->peak_bytes(), 2ULL << 30);
  EXPECT_EQ(m0->limit_bytes(), 8ULL << 30);
  EXPECT_EQ(m0->refused(), 2u);
  const w::DeviceMemory* m1 = b->memory()->Get(1);
  EXPECT_EQ(m1->device(), 3);
  EXPECT_EQ(m1->used_bytes(), 5u);
  EXPECT_EQ(m1->peak_bytes(), 6u);
  EXPECT_EQ(m1->limit_bytes(), 0u);
}

TEST(TelemetryEncoder, EmptyBatch) {
  const Message m =
      EncodeBatch(1, WindowSummary{}, BatchExtras{}, [](uint32_t) -> uint64_t { return 0; });
  const w::Envelope* env = Open(m, 1, w::Payload::TelemetryBatch);
  const w::TelemetryBatch* b = env->payload_as_TelemetryBatch();
  ASSERT_NE(b, nullptr);
  ASSERT_NE(b->kernels(), nullptr);
  EXPECT_EQ(b->kernels()->size(), 0u);
  ASSERT_NE(b->memory(), nullptr);
  EXPECT_EQ(b->memory()->size(), 0u);
  EXPECT_EQ(b->launches(), 0u);
}

// A window with many kernels still fits and verifies (the builder grows).
TEST(TelemetryEncoder, LargeBatch) {
  WindowSummary s;
  for (uint32_t id = 1; id <= 2000; ++id) {
    KernelWindow k;
    k.kernel = id;
    k.launches = id;
    s.kernels.push_back(k);
  }
  const Message m = EncodeBatch(9, s, BatchExtras{}, [](uint32_t id) { return uint64_t(id) * 3; });
  const w::Envelope* env = Open(m, 9, w::Payload::TelemetryBatch);
  const auto* kernels = env->payload_as_TelemetryBatch()->kernels();
  ASSERT_EQ(kernels->size(), 2000u);
  for (uint32_t i = 0; i < 2000; ++i) {
    ASSERT_EQ(kernels->Get(i)->kernel(), uint64_t(i + 1) * 3);
    ASSERT_EQ(kernels->Get(i)->launches(), i + 1);
  }
}

TEST(TelemetryEncoder, Goodbye) {
  const Message m = EncodeGoodbye(4321, 1'000'000'000'000ULL, -1);
  const w::Envelope* env = Open(m, 4321, w::Payload::Goodbye);
  const w::Goodbye* g = env->payload_as_Goodbye();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->launches(), 1'000'000'000'000ULL);
  EXPECT_EQ(g->exit_code(), -1);
  const Message ok = EncodeGoodbye(4321, 0, 0);
  EXPECT_EQ(Open(ok, 4321, w::Payload::Goodbye)->payload_as_Goodbye()->exit_code(), 0);
}

std::vector<Message> AllKinds() {
  HelloInfo h;
  h.pid = 12;
  h.host = "host";
  h.job = "job";
  h.command = "cmd";
  BatchExtras extras;
  extras.memory = {{0, 1, 2, 3, 4}};
  return {EncodeHello(h), EncodeKernelNames(12, {{1, "a"}, {2, "bb"}}),
          EncodeBatch(12, SampleWindow(), extras, [](uint32_t id) { return uint64_t(id); }),
          EncodeGoodbye(12, 5, 0)};
}

// Cutting bytes off the end leaves offsets pointing past the buffer. The
// builder may end a buffer with up to 7 bytes of alignment padding that nothing
// references, so only cuts deeper than that must fail.
TEST(TelemetryEncoder, TruncatedBuffersFailVerification) {
  for (const Message& m : AllKinds()) {
    ASSERT_TRUE(Verifies(m));
    ASSERT_GT(m.size(), 8u);
    for (size_t size = 0; size + 8 <= m.size(); ++size) {
      EXPECT_FALSE(Verifies(m.data(), size)) << "size " << size << " of " << m.size();
    }
  }
}

TEST(TelemetryEncoder, CorruptRootOffsetFailsVerification) {
  for (const Message& m : AllKinds()) {
    Message bad = m;
    bad[0] = bad[1] = bad[2] = bad[3] = 0xff;  // root table far past the end
    EXPECT_FALSE(Verifies(bad));
    bad = m;
    bad[3] ^= 0x40;
    EXPECT_FALSE(Verifies(bad));
  }
}

// A vtable offset pointing outside the buffer.
TEST(TelemetryEncoder, CorruptVtableOffsetFailsVerification) {
  for (const Message& m : AllKinds()) {
    Message bad = m;
    uint32_t root;
    std::memcpy(&root, bad.data(), sizeof root);
    ASSERT_LT(root + 4, bad.size());
    const int32_t far = 0x7ffffff0;
    std::memcpy(bad.data() + root, &far, sizeof far);
    EXPECT_FALSE(Verifies(bad));
  }
}

// Flipping any single byte never crashes the verifier; when the result still
// verifies, reading it stays in bounds (ASan watches). Many flips must fail.
TEST(TelemetryEncoder, ByteFlipsAreSafe) {
  for (const Message& m : AllKinds()) {
    size_t rejected = 0;
    for (size_t i = 0; i < m.size(); ++i) {
      Message bad = m;
      bad[i] ^= 0xff;
      if (!Verifies(bad)) {
        ++rejected;
        continue;
      }
      const w::Envelope* env = w::GetEnvelope(bad.data());
      (void)env->pid();
      if (const w::Hello* h = env->payload_as_Hello()) {
        if (h->host() != nullptr) (void)h->host()->str();
      }
      if (const w::KernelNames* kn = env->payload_as_KernelNames()) {
        if (kn->entries() != nullptr) {
          for (const w::KernelName* e : *kn->entries()) {
            if (e->name() != nullptr) (void)e->name()->str();
          }
        }
      }
      if (const w::TelemetryBatch* b = env->payload_as_TelemetryBatch()) {
        if (b->kernels() != nullptr) {
          for (const w::KernelStats* k : *b->kernels()) (void)k->gpu_ns_max();
        }
      }
    }
    EXPECT_GT(rejected, 0u);
  }
}

TEST(TelemetryEncoder, GarbageFailsVerification) {
  const std::string text = "this is not a flatbuffer at all";
  EXPECT_FALSE(Verifies(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  const Message zeros(64, 0);
  EXPECT_FALSE(Verifies(zeros));
}

TEST(ShimVersion, NamesTheShim) { EXPECT_EQ(std::string(ShimVersion()).rfind("iashim ", 0), 0u); }

}  // namespace
}  // namespace iashim
