// A stand-in for the coordinator's PUB stream, for driving iashim-top in
// tests: binds ENDPOINT and publishes a StateSnapshot of one GPU and three
// jobs every 200 ms for SECONDS, with values that change over time, plus one
// invalid message a second (iashim-top must count and drop it).
//
//   snapshot_publisher ENDPOINT SECONDS
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "tests/coordinator/top/snapshot_encoder.h"

namespace {

using iashim::top::ClusterView;
using iashim::top::GpuView;
using iashim::top::JobView;
using iashim::top::Priority;

constexpr uint64_t kGiB = uint64_t{1} << 30;

JobView Job(const char* name, int pid, Priority priority, double share, double t) {
  JobView j;
  j.job = name;
  j.pid = pid;
  j.host = "node-a";
  j.command = std::string("python train.py --job ") + name;
  j.priority = priority;
  j.share = share;
  j.max_inflight = 8;
  j.slowdown_target = priority == Priority::kGuaranteed ? 0.1 : 0;
  j.connected = true;
  // Each job swings on its own period so sort orders change while watching.
  const double wave = std::sin(t / (1.0 + pid % 3));
  j.kernels_per_s = 5000.0 * share * (1.2 + wave);
  j.busy = share * (0.8 + 0.15 * wave);
  j.slowdown = t < 1 ? -1 : 0.05 + 0.04 * (1 + wave) * (priority == Priority::kGuaranteed ? 1 : 3);
  j.iteration_ns = static_cast<uint64_t>(120e6 * (1 + j.slowdown));
  j.baseline_iteration_ns = 120'000'000;
  j.mem_bytes = static_cast<uint64_t>((2.0 + 6.0 * share + wave) * static_cast<double>(kGiB));
  j.mem_limit_bytes = priority == Priority::kGuaranteed ? 16 * kGiB : 0;
  j.budget_age_ms = static_cast<uint64_t>(std::fmod(t, 2.0) * 1000) + 1;
  return j;
}

ClusterView Snapshot(uint64_t seq, double t) {
  ClusterView c;
  c.seq = seq;
  c.unix_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
  c.coordinator_version = "0.1.0-test";
  c.uptime_s = 3600 + t;
  GpuView g;
  g.id = 0;
  g.host = "node-a";
  g.name = "Simulated H200";
  g.uuid = "GPU-00000000-test";
  g.memory_bytes = 141 * kGiB;
  g.jobs = {Job("resnet50-guar", 4101, Priority::kGuaranteed, 0.5, t),
            Job("bert-large-guar", 4102, Priority::kGuaranteed, 0.35, t),
            Job("gpt2-opp", 4103, Priority::kOpportunistic, 0.15, t)};
  for (const JobView& j : g.jobs) g.busy += j.busy;
  g.busy = std::min(g.busy, 1.0);
  c.gpus.push_back(g);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s ENDPOINT SECONDS\n", argv[0]);
    return 2;
  }
  const std::string endpoint = argv[1];
  const double seconds = std::atof(argv[2]);
  try {
    zmq::context_t context(1);
    zmq::socket_t pub(context, zmq::socket_type::pub);
    pub.set(zmq::sockopt::linger, 0);
    pub.bind(endpoint);
    const auto start = std::chrono::steady_clock::now();
    const auto period = std::chrono::milliseconds(200);
    auto next = start;
    for (uint64_t seq = 1;; ++seq) {
      const double t =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (t >= seconds) break;
      const std::vector<uint8_t> bytes =
          iashim::top::test_support::EncodeSnapshot(Snapshot(seq, t));
      pub.send(zmq::const_buffer(bytes.data(), bytes.size()), zmq::send_flags::none);
      if (seq % 5 == 0) {
        const char junk[] = "not a flatbuffer";
        pub.send(zmq::const_buffer(junk, sizeof(junk)), zmq::send_flags::none);
      }
      next += period;
      std::this_thread::sleep_until(next);
    }
  } catch (const zmq::error_t& e) {
    std::fprintf(stderr, "snapshot_publisher: %s: %s\n", endpoint.c_str(), e.what());
    return 1;
  }
  return 0;
}
