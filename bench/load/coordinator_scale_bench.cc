// What a coordinator with many jobs on many GPUs costs per message and per
// snapshot: the shape iashim-loadgen runs (4 jobs per GPU, one GPU per node),
// which the single-GPU coordinator_ingest_bench does not exercise.
//
//   BM_TelemetryManyGpus/N  Coordinator::OnMessage on N jobs' TelemetryBatches,
//                           jobs on N/4 single-GPU nodes (AloneOnGpu on each).
//   BM_SnapshotManyGpus/N   Coordinator::EncodeSnapshot with N jobs on N/4 GPUs
//                           (the PUB stream runs it 4 times a second).
#include <benchmark/benchmark.h>

#include "absl/strings/str_format.h"
#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/wire_convert.h"
#include "coordinator/policy/simple_placement.h"
#include "schemas/telemetry_generated.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
constexpr int64_t kUnix = 1'800'000'000'000'000'000LL;
constexpr int kJobsPerGpu = 4;

std::string Host(int gpu) { return absl::StrFormat("load-node-%04d", gpu); }

policy::Cluster Nodes(int gpus) {
  policy::Cluster c;
  for (int g = 0; g < gpus; ++g) {
    c.gpus.push_back({{Host(g), 0}, "h100", "H100", absl::StrFormat("GPU-%d", g), 80ULL << 30});
  }
  return c;
}

std::string Hello(int pid, const std::string& host, bool opportunistic) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto h = w::CreateHelloDirect(fbb, pid, host.c_str(), "", "python train.py", "0.1.0", 100,
                                      0, 0, 0,
                                      opportunistic ? w::Priority::Opportunistic : w::Priority::Guaranteed,
                                      1.0);
  return EnvelopeBytes(fbb, w::Payload::Hello, h.Union());
}

std::string Batch(uint64_t seq) {
  flatbuffers::FlatBufferBuilder fbb(1024);
  std::vector<flatbuffers::Offset<w::KernelStats>> kernels;
  for (uint64_t k = 0; k < 5; ++k) {
    kernels.push_back(w::CreateKernelStats(fbb, 0x1000 + k, 8, 80, 1, 1, 256, 1, 1, 0, 640, 1,
                                           200'000, 200'000, 200'000));
  }
  const int64_t start = int64_t(seq) * 100'000'000;
  const auto b = w::CreateTelemetryBatchDirect(fbb, seq, start, start + 100'000'000, 40, 0, 2, 2,
                                               50'000'000, 8, &kernels);
  return EnvelopeBytes(fbb, w::Payload::TelemetryBatch, b.Union());
}

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// N registered jobs, kJobsPerGpu per GPU, the first of each guaranteed.
struct Loaded {
  explicit Loaded(int jobs)
      : c({}, Nodes((jobs + kJobsPerGpu - 1) / kJobsPerGpu), nullptr,
          std::make_unique<policy::SimplePlacement>(), 0) {
    std::vector<Outgoing> out;
    for (int j = 0; j < jobs; ++j) {
      ids.push_back(absl::StrFormat("shim-%05d", j));
      c.OnMessage(ids.back(), Bytes(Hello(10000 + j, Host(j / kJobsPerGpu), j % kJobsPerGpu != 0)), 0,
                  kUnix, &out);
    }
  }
  Coordinator c;
  std::vector<std::string> ids;
};

void BM_TelemetryManyGpus(benchmark::State& state) {
  const int jobs = int(state.range(0));
  Loaded l(jobs);
  std::vector<std::string> batches;
  for (uint64_t s = 0; s < 64; ++s) batches.push_back(Batch(s));
  std::vector<Outgoing> out;
  uint64_t n = 0;
  for (auto _ : state) {
    const std::string& b = batches[(n / jobs) % batches.size()];
    l.c.OnMessage(l.ids[n % jobs], Bytes(b), int64_t(n), kUnix, &out);
    out.clear();
    ++n;
  }
  state.counters["msgs_per_s"] = benchmark::Counter(double(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TelemetryManyGpus)->Arg(100)->Arg(1000)->Arg(4000);

void BM_SnapshotManyGpus(benchmark::State& state) {
  Loaded l(int(state.range(0)));
  int64_t now = 1;
  for (auto _ : state) benchmark::DoNotOptimize(l.c.EncodeSnapshot(++now, kUnix));
}
BENCHMARK(BM_SnapshotManyGpus)->Arg(100)->Arg(1000)->Arg(4000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace iashim::daemon

BENCHMARK_MAIN();
