// How fast the coordinator takes in telemetry, and what a job costs it in
// memory. Goal (issue 5): at least 200,000 messages/s on one core.
//
//   BM_IngestCore/N    Coordinator::OnMessage on N jobs' batches, one thread:
//                      the decode + verify + profile cost per message.
//   BM_IngestZmq/N     the daemon's whole loop (server.h) on its own thread,
//                      fed by N DEALER sockets (N simulated shims) over ipc://:
//                      what the single serving thread sustains.
//   BM_MemoryPerJob    heap growth per registered, profiled job.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <zmq.hpp>

#include "coordinator/daemon/coordinator.h"
#include "coordinator/daemon/server.h"
#include "coordinator/daemon/wire_convert.h"
#include "coordinator/policy/simple_placement.h"
#include "schemas/telemetry_generated.h"

namespace iashim::daemon {
namespace {

namespace w = iashim::wire;
constexpr int64_t kUnix = 1'800'000'000'000'000'000LL;

policy::Cluster OneGpu() {
  policy::Cluster c;
  c.gpus.push_back({{"node1", 0}, "v100", "Tesla V100", "GPU-1", 32ULL << 30});
  return c;
}

std::string Hello(int pid) {
  flatbuffers::FlatBufferBuilder fbb;
  const std::string job = "job-" + std::to_string(pid);
  const auto h = w::CreateHelloDirect(fbb, pid, "node1", job.c_str(), "python train.py", "0.1.0",
                                      100, 0, 0, 0, w::Priority::Opportunistic, 1.0);
  return EnvelopeBytes(fbb, w::Payload::Hello, h.Union());
}

// A realistic batch: 20 distinct kernels in a 100 ms window.
std::string Batch(uint64_t seq) {
  flatbuffers::FlatBufferBuilder fbb(2048);
  std::vector<flatbuffers::Offset<w::KernelStats>> kernels;
  for (uint64_t k = 0; k < 20; ++k) {
    kernels.push_back(w::CreateKernelStats(fbb, 0x1000 + k, 40, 80, 1, 1, 256, 1, 1, 0, 3200, 1,
                                           200'000, 200'000, 200'000));
  }
  const int64_t start = int64_t(seq) * 100'000'000;
  const auto b = w::CreateTelemetryBatchDirect(fbb, seq, start, start + 100'000'000, 800, 0, 4, 1,
                                               100'000'000, 64, &kernels, nullptr, 0, 0, 1.0, 0,
                                               0, 1.0, -1.0);
  return EnvelopeBytes(fbb, w::Payload::TelemetryBatch, b.Union());
}

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

void BM_IngestCore(benchmark::State& state) {
  const int jobs = int(state.range(0));
  Coordinator c({}, OneGpu(), nullptr, std::make_unique<policy::SimplePlacement>(), 0);
  std::vector<Outgoing> out;
  std::vector<std::string> ids;
  for (int j = 0; j < jobs; ++j) {
    ids.push_back("shim-" + std::to_string(j));
    c.OnMessage(ids.back(), Bytes(Hello(1000 + j)), 0, kUnix, &out);
  }
  std::vector<std::string> batches;
  for (uint64_t s = 0; s < 64; ++s) batches.push_back(Batch(s));
  uint64_t n = 0;
  for (auto _ : state) {
    // Windows must advance per job: batch k of job j is window k / jobs.
    const std::string& b = batches[(n / jobs) % batches.size()];
    c.OnMessage(ids[n % jobs], Bytes(b), int64_t(n), kUnix, &out);
    out.clear();
    ++n;
  }
  state.SetItemsProcessed(int64_t(n));
  state.counters["msgs_per_s"] = benchmark::Counter(double(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_IngestCore)->Arg(1)->Arg(16)->Arg(256);

void BM_IngestZmq(benchmark::State& state) {
  const int shims = int(state.range(0));
  const std::string dir = "/tmp/iashim-ingest-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  DaemonOptions options;
  options.listen = "ipc://" + dir + "/router";
  options.pub = "ipc://" + dir + "/pub";
  options.control = false;
  Coordinator c(options, OneGpu(), nullptr, std::make_unique<policy::SimplePlacement>(), 0);
  std::atomic<bool> stop{false};
  std::thread server([&] { (void)Serve(options, c, nullptr, &stop); });
  zmq::context_t ctx(1);
  std::vector<zmq::socket_t> dealers;
  for (int i = 0; i < shims; ++i) {
    dealers.emplace_back(ctx, zmq::socket_type::dealer);
    dealers.back().set(zmq::sockopt::sndhwm, 0);
    dealers.back().set(zmq::sockopt::linger, 0);
    dealers.back().connect(options.listen);
    const std::string h = Hello(2000 + i);
    dealers.back().send(zmq::buffer(h));
  }
  flatbuffers::FlatBufferBuilder fbb;
  const std::string status =
      EnvelopeBytes(fbb, w::Payload::StatusRequest, w::CreateStatusRequest(fbb).Union());
  std::vector<std::string> batches;
  for (uint64_t s = 0; s < 64; ++s) batches.push_back(Batch(s));
  constexpr int kPerShimPerRound = 2000;
  uint64_t sent = 0;
  for (auto _ : state) {
    for (int k = 0; k < kPerShimPerRound; ++k) {
      for (zmq::socket_t& d : dealers) {
        d.send(zmq::buffer(batches[k % batches.size()]), zmq::send_flags::none);
        ++sent;
      }
    }
    // Each shim's messages are handled in order: once every shim has its
    // status reply, everything it sent before has been taken in.
    for (zmq::socket_t& d : dealers) d.send(zmq::buffer(status), zmq::send_flags::none);
    for (zmq::socket_t& d : dealers) {
      zmq::message_t reply;
      (void)d.recv(reply, zmq::recv_flags::none);
    }
  }
  state.SetItemsProcessed(int64_t(sent));
  state.counters["msgs_per_s"] = benchmark::Counter(double(sent), benchmark::Counter::kIsRate);
  stop = true;
  server.join();
  dealers.clear();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_IngestZmq)->Arg(4)->Arg(32)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MemoryPerJob(benchmark::State& state) {
  constexpr int kJobs = 2000;
  double per_job = 0;
  for (auto _ : state) {
    const size_t before = mallinfo2().uordblks;
    auto c = std::make_unique<Coordinator>(DaemonOptions{}, OneGpu(), nullptr,
                                           std::make_unique<policy::SimplePlacement>(), 0);
    std::vector<Outgoing> out;
    const std::string b0 = Batch(0), b1 = Batch(1);
    for (int j = 0; j < kJobs; ++j) {
      const std::string id = "shim-" + std::to_string(j);
      c->OnMessage(id, Bytes(Hello(10000 + j)), 0, kUnix, &out);
      c->OnMessage(id, Bytes(b0), 1, kUnix, &out);
      c->OnMessage(id, Bytes(b1), 2, kUnix, &out);
      out.clear();
    }
    per_job = double(mallinfo2().uordblks - before) / kJobs;
    benchmark::DoNotOptimize(c);
  }
  state.counters["bytes_per_job"] = per_job;
}
BENCHMARK(BM_MemoryPerJob)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace iashim::daemon

BENCHMARK_MAIN();
