// The coordinator's interference model: what it learns from jobs sharing a
// GPU, what it remembers across a restart, and how placement uses it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/wire_convert.h"
#include "schemas/telemetry_generated.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kUnix = 1'800'000'000LL * kSecond;
constexpr int64_t kTick = 100'000'000;

policy::Cluster OneGpu() {
  policy::Cluster c;
  c.gpus.push_back({{"node1", 0}, "v100", "Tesla V100", "GPU-1", 32ULL << 30});
  return c;
}

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// `token`: the job's, from its PlaceReply.
std::string Hello(int pid, const std::string& job, const std::string& token) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto h = w::CreateHelloDirect(fbb, pid, "node1", job.c_str(), "train.py", "0.1.0", 100, 0,
                                      0, 0, w::Priority::Opportunistic, 1.0, token.c_str());
  return EnvelopeBytes(fbb, w::Payload::Hello, h.Union());
}

// One 100 ms window with one iteration of `iteration_ms`, unthrottled.
std::string Batch(uint64_t seq, int64_t start_ns, double iteration_ms) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<w::KernelStats>> kernels = {
      w::CreateKernelStats(fbb, 0xabcdef, 100, 80, 1, 1, 128, 1, 1, 0, 8000, 10, 10'000'000,
                           1'000'000, 1'000'000)};
  const auto b = w::CreateTelemetryBatchDirect(
      fbb, seq, start_ns, start_ns + kTick, 100, 0, 1, 1, uint64_t(iteration_ms * 1e6), 10,
      &kernels, nullptr, 0, 0, 1.0, 0, 0, 1.0, -1.0);
  return EnvelopeBytes(fbb, w::Payload::TelemetryBatch, b.Union());
}

std::string Place(const std::string& job, const std::string& kind, uint64_t mem) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto p = w::CreatePlaceRequestDirect(fbb, job.c_str(), w::Priority::Opportunistic, mem, -1,
                                             "node1", "python train.py", 0, kind.c_str());
  return EnvelopeBytes(fbb, w::Payload::PlaceRequest, p.Union());
}

const w::PlaceReply* LastReply(const std::vector<Outgoing>& out, std::vector<uint64_t>* buffer) {
  if (out.empty()) return nullptr;
  const w::Envelope* e = wire::OpenEnvelope(out.back().bytes.data(), out.back().bytes.size(), buffer).envelope;
  return e ? e->payload_as_PlaceReply() : nullptr;
}

class CoordinatorInterferenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("iashim-interference-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<state::StateStore> OpenStore() {
    auto s = state::StateStore::Open(dir_.string());
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }
  // The daemon's own placement: InterferenceAwarePlacement over its model.
  std::unique_ptr<Coordinator> Make(state::StateStore* store, int64_t now = 0) {
    return std::make_unique<Coordinator>(DaemonOptions{}, OneGpu(), store, nullptr, now);
  }

  std::filesystem::path dir_;
  std::vector<Outgoing> out_;
};

// Two opportunistic jobs (never throttled) share the GPU and each runs at
// half its solo speed: the model learns that pair, and after a restart it
// still knows it, from the observations in the state store.
TEST_F(CoordinatorInterferenceTest, LearnsFromASharedGpuAndRemembersAfterARestart) {
  const policy::JobTraits a{.kind = "resnet50"};
  const policy::JobTraits b{.kind = "lstm"};
  double before = 0;
  {
    auto store = OpenStore();
    auto c = Make(store.get());
    before = c->interference().Predict(a, b).throughput;
    c->OnMessage("cli", Bytes(Place("ja", "resnet50", 8ULL << 30)), 0, kUnix, &out_);
    std::vector<uint64_t> placed;
    const w::PlaceReply* ra = LastReply(out_, &placed);
    ASSERT_NE(ra, nullptr);
    ASSERT_NE(ra->token(), nullptr);
    c->OnMessage("shim-a", Bytes(Hello(100, "ja", ra->token()->str())), 0, kUnix, &out_);
    int64_t t = 0;
    uint64_t seq = 0;
    for (int i = 0; i < 40; ++i, t += kTick) {  // alone: the solo baseline, 100 ms
      c->OnMessage("shim-a", Bytes(Batch(seq++, t, 100)), t, kUnix + t, &out_);
      c->OnTick(t, kUnix + t, &out_);
    }
    c->OnMessage("cli", Bytes(Place("jb", "lstm", 8ULL << 30)), t, kUnix + t, &out_);
    std::vector<uint64_t> buf;
    const w::PlaceReply* r = LastReply(out_, &buf);
    ASSERT_NE(r, nullptr);
    ASSERT_TRUE(r->ok()) << r->error()->str();
    ASSERT_NE(r->token(), nullptr);
    c->OnMessage("shim-b", Bytes(Hello(200, "jb", r->token()->str())), t, kUnix + t, &out_);
    for (int i = 0; i < 300; ++i, t += kTick) {  // together: 200 ms, half speed
      c->OnMessage("shim-a", Bytes(Batch(seq, t, 200)), t, kUnix + t, &out_);
      c->OnMessage("shim-b", Bytes(Batch(seq, t, 50)), t, kUnix + t, &out_);
      ++seq;
      c->OnTick(t, kUnix + t, &out_);
    }
    EXPECT_GT(c->interference().observations(), 0);
    const double learned = c->interference().Predict(a, b).throughput;
    EXPECT_LT(learned, before);
    EXPECT_LT(learned, 0.62);
  }
  auto store = OpenStore();
  auto c = Make(store.get(), 100 * kSecond);
  EXPECT_GT(c->interference().observations(), 0);
  EXPECT_LT(c->interference().Predict(a, b).throughput, 0.62);
  EXPECT_EQ(c->jobs().at("ja").kind, "resnet50");
}

// Jobs whose kinds are known to cripple each other are not put together: the
// second waits (queued) although memory would fit; a job of a kind known to
// share well with the first is placed next to it.
TEST_F(CoordinatorInterferenceTest, QueuesAJobPredictedToCostMoreThanItGains) {
  {
    auto store = OpenStore();
    for (int i = 0; i < 40; ++i) {
      state::ObservationRecord o;
      o.gpu_type = "v100";
      o.kind_a = "vgg16";
      o.kind_b = i % 2 ? "bert" : "lstm";
      o.slowdown_a = o.slowdown_b = i % 2 ? 3.0 : 0.1;  // bert: a quarter of solo speed
      o.share_a = o.share_b = 1.0;
      o.unix_ns = kUnix + i;
      ASSERT_TRUE(store->AddObservation(o).ok());
    }
  }
  auto store = OpenStore();
  auto c = Make(store.get());
  std::vector<uint64_t> buf;
  c->OnMessage("cli", Bytes(Place("v", "vgg16", 8ULL << 30)), 0, kUnix, &out_);
  ASSERT_NE(LastReply(out_, &buf), nullptr);
  EXPECT_TRUE(LastReply(out_, &buf)->ok());
  c->OnMessage("cli", Bytes(Place("b", "bert", 8ULL << 30)), 0, kUnix, &out_);
  const w::PlaceReply* r = LastReply(out_, &buf);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->ok());
  EXPECT_TRUE(r->queued()) << r->error()->str();
  c->OnMessage("cli", Bytes(Place("l", "lstm", 8ULL << 30)), 0, kUnix, &out_);
  r = LastReply(out_, &buf);
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->ok()) << r->error()->str();
}

TEST_F(CoordinatorInterferenceTest, AKindThatIsNotPrintableIsRefused) {
  auto c = Make(nullptr);
  std::vector<uint64_t> buf;
  c->OnMessage("cli", Bytes(Place("x", std::string("bad\x01kind"), 8ULL << 30)), 0, kUnix, &out_);
  const w::PlaceReply* r = LastReply(out_, &buf);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->ok());
  EXPECT_FALSE(r->queued());
  EXPECT_NE(r->error()->str().find("kind"), std::string::npos);
  EXPECT_TRUE(c->jobs().empty());
}

}  // namespace
}  // namespace iashim::daemon
