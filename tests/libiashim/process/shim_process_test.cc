// libiashim preloaded into real iashim-fakejob processes on simgpu, the way a
// user runs it: the trace counts exactly what the job launched, telemetry
// reaches a coordinator socket, a coordinator that is not there costs the job
// nothing, and bad configuration never stops the job.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "bench/fakejob/model_profile.h"
#include "bench/fakejob/module_image.h"
#include "common/text/text.h"
#include "common/wire/kernel_id.h"
#include "libiashim/src/own_cpu_use.h"
#include "libiashim/src/trace_reader.h"
#include "schemas/telemetry_generated.h"
#include "tests/libiashim/one_busy_cpu.h"
#include "tests/simgpu/test_env.h"

namespace {

struct JobResult {
  int exit_code = -1;
  std::string out;
  std::string err;

  // A number from the fakejob summary line, e.g. Field("launches").
  double Field(const std::string& name) const {
    const size_t at = out.find("\"" + name + "\": ");
    if (at == std::string::npos) return -1;
    return std::atof(out.c_str() + at + name.size() + 4);
  }
  // A key=value from the shim's summary line (IASHIM_LOG=info).
  std::string Summary(const std::string& key) const {
    const size_t line = err.find("iashim: summary ");
    if (line == std::string::npos) return "";
    const size_t at = err.find(" " + key + "=", line);
    if (at == std::string::npos) return "";
    const size_t start = at + key.size() + 2;
    return err.substr(start, err.find_first_of(" \n", start) - start);
  }
};

class ShimProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int test_index = 0;
    ns_ = iashim_test::UniqueNamespace("shimproc") + "-" + std::to_string(test_index++);
    dir_ = "/tmp/" + ns_;
    ASSERT_EQ(std::system(("mkdir -p " + dir_).c_str()), 0);
  }
  void TearDown() override {
    iashim_test::RemoveSimulatedDevices(ns_);
    for (const std::string& ns : other_ns_) iashim_test::RemoveSimulatedDevices(ns);
    std::system(("rm -rf " + dir_).c_str());
  }

  // A running iashim-fakejob; Finish() waits for it.
  struct Job {
    FILE* pipe = nullptr;
    std::string err_path;
  };

  // Starts iashim-fakejob with `env` (KEY=VALUE ...) and the shim preloaded
  // unless `preload` is false.
  Job Start(const std::string& env, const std::string& args, bool preload = true) {
    static int job_index = 0;
    Job job;
    job.err_path = dir_ + "/stderr-" + std::to_string(job_index++);
    std::string cmd = "env SIMGPU_NAMESPACE=" + ns_ + " LD_LIBRARY_PATH=" + SIMGPU_DIR + " ";
    if (preload) cmd += std::string("LD_PRELOAD=") + SHIM_PATH + " ";
    cmd += env + " " + FAKEJOB_PATH + " --quiet " + args + " 2>" + job.err_path;
    job.pipe = popen(cmd.c_str(), "r");
    return job;
  }

  JobResult Finish(Job& job) {
    JobResult r;
    if (job.pipe == nullptr) return r;
    char buf[4096];
    while (fgets(buf, sizeof buf, job.pipe) != nullptr) r.out += buf;
    const int status = pclose(job.pipe);
    job.pipe = nullptr;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream in(job.err_path);
    std::stringstream ss;
    ss << in.rdbuf();
    r.err = ss.str();
    return r;
  }

  JobResult Run(const std::string& env, const std::string& args, bool preload = true) {
    Job job = Start(env, args, preload);
    return Finish(job);
  }

  // The environment that runs a job on simulated GPUs of its own, so that two
  // jobs compared by speed run side by side, under the same host load (a CI
  // machine's CPU changes from one second to the next), without sharing a GPU.
  std::string OwnGpus() {
    other_ns_.push_back(ns_ + "-" + std::to_string(other_ns_.size()));
    return "SIMGPU_NAMESPACE=" + other_ns_.back() + " ";
  }

  std::string ns_;
  std::string dir_;
  std::vector<std::string> other_ns_;
};

iashim::fakejob::ModelProfile Profile(const std::string& model) {
  auto p = iashim::fakejob::LoadModelProfile(std::string(IASHIM_SOURCE_DIR) +
                                             "/bench/data/models/" + model + ".model");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : iashim::fakejob::ModelProfile{};
}

TEST_F(ShimProcessTest, TraceCountsExactlyWhatTheJobLaunched) {
  const std::string trace_path = dir_ + "/job-%p.trace";
  const JobResult r = Run("IASHIM_LOG=info IASHIM_TRACE=" + trace_path + " IASHIM_SAMPLE_EVERY=4",
                          "--model resnet18 --iterations 12");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const int iterations = int(r.Field("iters"));
  ASSERT_EQ(iterations, 12);

  // %p is the job's pid, which the summary line names.
  const std::string pid = r.Summary("pid");
  ASSERT_FALSE(pid.empty()) << r.err;
  iashim::Trace trace;
  std::string error;
  ASSERT_TRUE(iashim::ReadTrace(dir_ + "/job-" + pid + ".trace", &trace, &error)) << error;
  EXPECT_FALSE(trace.truncated);
  ASSERT_TRUE(trace.totals.has_value());

  // Expected: each profile line once per iteration, under the name of the
  // module function the fake job launches for it.
  const iashim::fakejob::ModelProfile profile = Profile("resnet18");
  const iashim::fakejob::ModuleImage image = iashim::fakejob::BuildModuleImage(profile);
  std::map<std::string, uint64_t> expected, seen;
  std::map<std::string, double> duration_us;
  for (size_t i = 0; i < profile.launches.size(); ++i) {
    const std::string& name = image.functions[image.launch_function[i]];
    expected[name] += iterations;
    duration_us[name] = profile.launches[i].duration_us;
  }
  uint64_t launches = 0, syncs = 0, sampled = 0;
  std::map<std::string, double> shortest_us;
  for (const iashim::TraceEvent& e : trace.events) {
    if (e.launch.event == 2) {
      ++syncs;
      continue;
    }
    ASSERT_EQ(e.launch.event, 0);
    ++launches;
    const std::string name = trace.NameOf(e.launch.kernel);
    ++seen[name];
    if (e.gpu_ns != 0) {
      ++sampled;
      double& shortest = shortest_us.try_emplace(name, 1e18).first->second;
      shortest = std::min(shortest, double(e.gpu_ns) / 1000.0);
    }
  }
  // Sampled GPU time is the simulated kernel duration (solo, so close to the
  // profile's). A sample of a launch into an idle stream also spans the host's
  // delay between the start event and the launch (long on a loaded machine),
  // so each kernel's shortest sample is what must match.
  for (const auto& [name, us] : shortest_us) {
    EXPECT_NEAR(us, duration_us[name], 0.5 * duration_us[name] + 5) << name;
  }
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(launches, uint64_t(r.Field("launches")));
  EXPECT_EQ(trace.totals->launches, launches);
  EXPECT_EQ(trace.totals->records_dropped, 0u);
  EXPECT_GE(syncs, uint64_t(iterations));
  EXPECT_GT(sampled, 0u);
  EXPECT_EQ(r.Summary("launches"), std::to_string(launches));
  EXPECT_EQ(r.Summary("launch_lookup"), "proc_v2");
}

// NCCL's kernels are timed on every launch, not 1 in N: how long a rank waits
// in them is how the coordinator finds a gang's straggler.
TEST_F(ShimProcessTest, EveryCollectiveLaunchIsTimed) {
  const std::string trace_path = dir_ + "/ddp.trace";
  const JobResult r = Run("'SIMGPU_DEVICES=2xTesla V100-SXM2-32GB:32GiB:80' IASHIM_TRACE=" +
                              trace_path + " IASHIM_SAMPLE_EVERY=1000",
                          "--model resnet18 --devices 2 --iterations 6");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  iashim::Trace trace;
  std::string error;
  ASSERT_TRUE(iashim::ReadTrace(trace_path, &trace, &error)) << error;
  uint64_t collectives = 0, collectives_timed = 0, others = 0, others_timed = 0;
  for (const iashim::TraceEvent& e : trace.events) {
    if (e.launch.event != 0) continue;
    const bool collective = trace.NameOf(e.launch.kernel).rfind("ncclDevKernel", 0) == 0;
    (collective ? collectives : others) += 1;
    if (e.gpu_ns != 0) (collective ? collectives_timed : others_timed) += 1;
  }
  EXPECT_EQ(collectives, 2u * 6);  // one all-reduce per device per iteration
  EXPECT_EQ(collectives_timed, collectives);
  EXPECT_GT(others, 1000u);
  EXPECT_LT(others_timed, others / 100);  // the rest: 1 in 1000
}

// A key=value summed over every shim summary line in `err` (IASHIM_LOG=info:
// one line per process, so one per rank of a gang).
uint64_t SumOfSummaries(const std::string& err, const std::string& key) {
  uint64_t sum = 0;
  for (size_t line = err.find("iashim: summary "); line != std::string::npos;
       line = err.find("iashim: summary ", line + 1)) {
    const size_t at = err.find(" " + key + "=", line);
    if (at == std::string::npos || at > err.find('\n', line)) continue;
    sum += std::strtoull(err.c_str() + at + key.size() + 2, nullptr, 10);
  }
  return sum;
}

// A throttled 2-rank gang whose rank 1 shares its GPU with an unthrottled
// job: at one share rank 1 computes slower, so rank 0 reaches every
// all-reduce first and would spin in it until rank 1 comes. It holds those
// launches back instead (libiashim/src/collective_pacer.h). Unthrottled, or
// with IASHIM_PACE_COLLECTIVES=off, no collective is held; nor by one process
// driving both GPUs, whose one thread a hold would stop for both.
TEST_F(ShimProcessTest, AThrottledRankEarlyToItsCollectivesHoldsThemBack) {
  const std::string devices = "'SIMGPU_DEVICES=2xTesla V100-SXM2-32GB:32GiB:80' ";
  Job co_runner = Start(devices, "--model resnet50 --device 1 --seconds 10", /*preload=*/false);
  const std::string gang = "--model lstm --ranks 2 --iterations 20";
  // The two that must hold (or would, without the rule) first, while the
  // co-runner certainly runs.
  const JobResult paced = Run(devices + "IASHIM_LOG=info IASHIM_SHARE=0.2", gang);
  const JobResult one_process =
      Run(devices + "IASHIM_LOG=info IASHIM_SHARE=0.2", "--model lstm --devices 2 --iterations 20");
  const JobResult off =
      Run(devices + "IASHIM_LOG=info IASHIM_SHARE=0.2 IASHIM_PACE_COLLECTIVES=off", gang);
  const JobResult unthrottled = Run(devices + "IASHIM_LOG=info", gang);
  EXPECT_EQ(Finish(co_runner).exit_code, 0);
  for (const JobResult* r : {&paced, &off, &unthrottled, &one_process}) {
    ASSERT_EQ(r->exit_code, 0) << r->out << r->err;
    ASSERT_NE(r->err.find("iashim: summary "), std::string::npos) << r->err;
  }
  EXPECT_GT(SumOfSummaries(paced.err, "collectives_paced"), 0u) << paced.err;
  EXPECT_EQ(SumOfSummaries(off.err, "collectives_paced"), 0u) << off.err;
  EXPECT_EQ(SumOfSummaries(unthrottled.err, "collectives_paced"), 0u) << unthrottled.err;
  EXPECT_EQ(SumOfSummaries(one_process.err, "collectives_paced"), 0u) << one_process.err;
}

// A coordinator's socket that keeps what one shim sends, until its Goodbye
// (60 s at most).
class ListeningCoordinator {
 public:
  explicit ListeningCoordinator(const std::string& endpoint)
      : router_(ctx_, zmq::socket_type::router) {
    router_.set(zmq::sockopt::rcvtimeo, 200);
    router_.bind(endpoint);
    receiver_ = std::thread([this] { Receive(); });
  }
  ~ListeningCoordinator() {
    if (receiver_.joinable()) receiver_.join();
  }
  // Every message, in order, once the Goodbye came or the time ran out.
  const std::vector<std::string>& Finish() {
    if (receiver_.joinable()) receiver_.join();
    return messages_;
  }
  bool goodbye() const { return goodbye_; }

 private:
  void Receive() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!goodbye_ && std::chrono::steady_clock::now() < deadline) {
      zmq::message_t identity, body;
      if (!router_.recv(identity)) continue;
      if (!router_.recv(body)) continue;
      messages_.emplace_back(static_cast<const char*>(body.data()), body.size());
      flatbuffers::Verifier v(reinterpret_cast<const uint8_t*>(messages_.back().data()),
                              messages_.back().size());
      if (iashim::wire::VerifyEnvelopeBuffer(v) &&
          iashim::wire::GetEnvelope(messages_.back().data())->payload_type() ==
              iashim::wire::Payload::Goodbye) {
        goodbye_ = true;
      }
    }
  }

  zmq::context_t ctx_{1};
  zmq::socket_t router_;
  std::vector<std::string> messages_;
  bool goodbye_ = false;
  std::thread receiver_;
};

TEST_F(ShimProcessTest, TelemetryReachesTheCoordinatorSocket) {
  const std::string endpoint = "ipc://" + dir_ + "/coordinator";
  ListeningCoordinator coordinator(endpoint);
  const JobResult r = Run("IASHIM_COORDINATOR=" + endpoint + " IASHIM_JOB=lstm-test IASHIM_WINDOW_MS=50",
                          "--model lstm --iterations 150");
  const std::vector<std::string>& messages = coordinator.Finish();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(coordinator.goodbye()) << messages.size() << " messages, no Goodbye";

  const iashim::fakejob::ModelProfile profile = Profile("lstm");
  std::map<uint64_t, std::string> names;
  uint64_t launches = 0, iterations = 0, iteration_ns_sum = 0, batches = 0, next_seq = 0;
  bool hello = false;
  for (const std::string& m : messages) {
    flatbuffers::Verifier v(reinterpret_cast<const uint8_t*>(m.data()), m.size());
    ASSERT_TRUE(iashim::wire::VerifyEnvelopeBuffer(v));
    const iashim::wire::Envelope* e = iashim::wire::GetEnvelope(m.data());
    EXPECT_EQ(e->version(), iashim::wire::Version::Current);
    switch (e->payload_type()) {
      case iashim::wire::Payload::Hello:
        hello = true;
        EXPECT_EQ(e->payload_as_Hello()->job()->str(), "lstm-test");
        EXPECT_EQ(e->payload_as_Hello()->pid(), e->pid());
        EXPECT_EQ(e->payload_as_Hello()->window_ms(), 50u);
        break;
      case iashim::wire::Payload::KernelNames:
        for (const auto* k : *e->payload_as_KernelNames()->entries()) {
          EXPECT_EQ(k->kernel(), iashim::Fnv1a(k->name()->str()));
          names[k->kernel()] = k->name()->str();
        }
        break;
      case iashim::wire::Payload::TelemetryBatch: {
        const auto* b = e->payload_as_TelemetryBatch();
        EXPECT_EQ(b->seq(), next_seq++);  // nothing dropped
        EXPECT_EQ(b->batches_dropped(), 0u);
        EXPECT_LE(b->window_start_ns(), b->window_end_ns());
        launches += b->launches();
        uint64_t per_kernel = 0;
        for (const auto* k : *b->kernels()) {
          per_kernel += k->launches();
          EXPECT_TRUE(names.count(k->kernel())) << "kernel sent before its name";
        }
        EXPECT_EQ(per_kernel, b->launches());
        iterations += b->iterations();
        iteration_ns_sum += b->iteration_ns() * b->iterations();
        ++batches;
        break;
      }
      default:
        break;
    }
  }
  EXPECT_TRUE(hello);
  EXPECT_GT(batches, 2u);
  EXPECT_EQ(launches, uint64_t(r.Field("launches")));
  for (const std::string& name : iashim::fakejob::BuildModuleImage(profile).functions) {
    EXPECT_TRUE(names.count(iashim::Fnv1a(name))) << name;
  }
  // One synchronisation per iteration: the first opens, each later one closes an iteration.
  EXPECT_GE(iterations, 145u);
  EXPECT_LE(iterations, 150u);
  const double measured_ms = double(iteration_ns_sum) / double(iterations) / 1e6;
  EXPECT_NEAR(measured_ms, r.Field("iter_ms"), 0.25 * r.Field("iter_ms"));
}

// A process driving two GPUs reports each kernel per device it ran on, and
// each device's memory, so the coordinator can tell its GPUs apart.
TEST_F(ShimProcessTest, TelemetrySaysWhichDeviceEachKernelRanOn) {
  const std::string endpoint = "ipc://" + dir_ + "/coordinator";
  ListeningCoordinator coordinator(endpoint);
  const JobResult r = Run("'SIMGPU_DEVICES=2xTesla V100-SXM2-32GB:32GiB:80' IASHIM_COORDINATOR=" +
                              endpoint + " IASHIM_JOB=two-gpus IASHIM_WINDOW_MS=50",
                          "--model resnet18 --devices 2 --iterations 20");
  const std::vector<std::string>& messages = coordinator.Finish();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(coordinator.goodbye()) << messages.size() << " messages, no Goodbye";
  std::map<int, uint64_t> launches_on;  // device -> launches
  std::map<int, uint64_t> memory_on;    // device -> most bytes in use seen
  uint64_t launches = 0;
  for (const std::string& m : messages) {
    const iashim::wire::Envelope* e = iashim::wire::GetEnvelope(m.data());
    const auto* b = e->payload_as_TelemetryBatch();
    if (b == nullptr) continue;
    launches += b->launches();
    for (const auto* k : *b->kernels()) launches_on[k->device()] += k->launches();
    if (b->memory() == nullptr) continue;
    for (const auto* mem : *b->memory()) {
      memory_on[mem->device()] = std::max(memory_on[mem->device()], mem->used_bytes());
    }
  }
  // Each device runs the whole model (fakejob's "launches" counts one
  // device's, without the all-reduce: one per iteration): the same launches
  // on each, none without a device.
  ASSERT_EQ(launches_on.size(), 2u) << "devices: " << launches_on.begin()->first;
  EXPECT_EQ(launches_on[0], uint64_t(r.Field("launches") + r.Field("iters")));
  EXPECT_EQ(launches_on[1], launches_on[0]);
  EXPECT_EQ(launches_on[0] + launches_on[1], launches);
  EXPECT_GT(memory_on[0], 0u);
  EXPECT_GT(memory_on[1], 0u);
}

// The job shares one CPU with two busy loops: each window says how long its
// longest-waiting thread waited for that CPU (the coordinator keeps such
// windows out of the job's solo speed). The fakejob's threads mostly sleep
// (host gaps, synchronisations), so they wait only when they wake: 4.4% of the
// time (the launching thread alone) here.
TEST_F(ShimProcessTest, TelemetrySaysHowLongItsThreadsWaitedForACpu) {
  if (!std::ifstream("/proc/self/schedstat"))
    GTEST_SKIP() << "this kernel counts no run-queue wait";
  // The job inherits this thread's CPU (popen forks from it).
  iashim_test::OneBusyCpu busy(/*loops=*/2);
  ASSERT_TRUE(busy.ok());
  const std::string endpoint = "ipc://" + dir_ + "/coordinator";
  ListeningCoordinator coordinator(endpoint);
  const JobResult r =
      Run("IASHIM_COORDINATOR=" + endpoint + " IASHIM_JOB=waits IASHIM_WINDOW_MS=50",
          "--model lstm --iterations 40");
  busy.Release();
  const std::vector<std::string>& messages = coordinator.Finish();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  uint64_t waited_ns = 0, window_ns = 0;
  for (const std::string& m : messages) {
    const auto* b = iashim::wire::GetEnvelope(m.data())->payload_as_TelemetryBatch();
    if (b == nullptr) continue;
    waited_ns += b->cpu_wait_ns();
    window_ns += b->window_end_ns() - b->window_start_ns();
  }
  ASSERT_GT(window_ns, 0u);
  EXPECT_GT(double(waited_ns) / double(window_ns), 0.005);
  EXPECT_LE(waited_ns, window_ns + 1'000'000'000);
}

// The job crowds its one CPU itself (two busy host threads beside its
// launching thread): its threads wait for the CPU as they would beside other
// processes, but that wait is its speed alone, and a window in which it kept
// its CPU busy itself sends none (libiashim/src/own_cpu_use.h). Each window's
// own reading comes from the shim's debug line of the same number.
TEST_F(ShimProcessTest, AWaitTheJobCausesItselfIsNotSentAsTheHosts) {
  if (!std::ifstream("/proc/self/schedstat"))
    GTEST_SKIP() << "this kernel counts no run-queue wait";
  iashim_test::OneBusyCpu one_cpu(/*loops=*/0);  // the job inherits this thread's one CPU
  ASSERT_TRUE(one_cpu.ok());
  const std::string endpoint = "ipc://" + dir_ + "/coordinator";
  ListeningCoordinator coordinator(endpoint);
  const JobResult r = Run(
      "IASHIM_COORDINATOR=" + endpoint + " IASHIM_JOB=crowds IASHIM_WINDOW_MS=50 IASHIM_LOG=debug",
      "--model lstm --iterations 40 --host-threads 2");
  one_cpu.Release();
  const std::vector<std::string>& messages = coordinator.Finish();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  struct Reading {
    double waited_ms;
    double used;
  };
  std::map<uint64_t, Reading> by_window;
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find("window ");
    unsigned long long seq = 0;
    unsigned long long ms = 0;
    unsigned iterations = 0;
    double iteration_ms = 0, waited_ms = 0, used = 0, cpus = 0;
    if (at != std::string::npos &&
        std::sscanf(line.c_str() + at,
                    "window %llu: %llu ms, %u iterations of %lf ms, a thread waited up to %lf ms "
                    "for a CPU, the job used %lf of its %lf CPUs",
                    &seq, &ms, &iterations, &iteration_ms, &waited_ms, &used, &cpus) == 7) {
      by_window[seq] = Reading{waited_ms, used};
    }
  }
  int own = 0;
  int compared = 0;
  for (const std::string& m : messages) {
    const auto* b = iashim::wire::GetEnvelope(m.data())->payload_as_TelemetryBatch();
    if (b == nullptr) continue;
    const auto found = by_window.find(b->seq());
    if (found == by_window.end()) continue;
    ++compared;
    const Reading& w = found->second;
    if (std::abs(w.used - iashim::kOwnCpusBusy) < 0.001) continue;  // printed rounded
    if (w.used >= iashim::kOwnCpusBusy) {
      own += w.waited_ms > 0 ? 1 : 0;
      EXPECT_EQ(b->cpu_wait_ns(), 0u) << "window " << b->seq();
    } else {
      EXPECT_NEAR(double(b->cpu_wait_ns()) / 1e6, w.waited_ms, 0.001) << "window " << b->seq();
    }
  }
  EXPECT_GT(compared, 0) << r.err;
  // Its threads did wait behind each other, in windows it kept its CPU busy.
  EXPECT_GT(own, 0) << r.err;
}

TEST_F(ShimProcessTest, AbsentCoordinatorDoesNotSlowTheJob) {
  Job unshimmed = Start(OwnGpus(), "--model resnet18 --seconds 2", /*preload=*/false);
  Job with_shim =
      Start("IASHIM_LOG=info IASHIM_QUEUE_BATCHES=4 IASHIM_COORDINATOR=tcp://127.0.0.1:9",
            "--model resnet18 --seconds 2");
  const JobResult alone = Finish(unshimmed);
  const JobResult shimmed = Finish(with_shim);
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  ASSERT_EQ(shimmed.exit_code, 0) << shimmed.err;
  const double ratio = shimmed.Field("iters_per_s") / alone.Field("iters_per_s");
  EXPECT_GT(ratio, 0.9) << "alone " << alone.out << "shimmed " << shimmed.out;
  EXPECT_LT(ratio, 1.1);
  // Telemetry was built and dropped, not queued without bound.
  EXPECT_GT(std::stoull(shimmed.Summary("telemetry_dropped")), 0u) << shimmed.err;
}

TEST_F(ShimProcessTest, BadConfigurationIsReportedAndTheJobRuns) {
  const JobResult r = Run(
      "IASHIM_MEM_LIMIT=lots IASHIM_WINDOW_MS=5 IASHIM_COORDINATOR=http://x IASHIM_LOG=loud",
      "--model resnet18 --iterations 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.Field("iters"), 3);
  for (const char* expect : {"IASHIM_MEM_LIMIT='lots'", "IASHIM_WINDOW_MS='5'",
                             "IASHIM_COORDINATOR='http://x'", "IASHIM_LOG='loud'"}) {
    size_t count = 0;
    for (size_t at = r.err.find(expect); at != std::string::npos; at = r.err.find(expect, at + 1)) {
      ++count;
    }
    EXPECT_EQ(count, 1u) << expect << " in:\n" << r.err;
  }
}

TEST_F(ShimProcessTest, QuotaStopsAnOversizedJobWithOutOfMemory) {
  const JobResult r = Run("IASHIM_MEM_LIMIT=64MiB", "--model resnet18 --iterations 3");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;  // fakejob's exit code for OOM
  EXPECT_NE(r.err.find("refused"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("IASHIM_MEM_LIMIT"), std::string::npos) << r.err;
}

// Two GPU-bound copies of one model with shares 0.2 and 0.6 share the GPU in
// that order and roughly that ratio (their GPU time is proportional to their
// throughput, being the same model).
TEST_F(ShimProcessTest, SharesSplitTheGpuBetweenTwoJobs) {
  const std::string args = "--model resnet18 --seconds 4 --host-gap-us 0";
  Job small = Start("IASHIM_SHARE=0.2", args);
  Job large = Start("IASHIM_SHARE=0.6", args);
  const JobResult a = Finish(small);
  const JobResult b = Finish(large);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const double ratio = a.Field("iters_per_s") / b.Field("iters_per_s");
  EXPECT_GT(ratio, 0.2) << a.out << b.out;
  EXPECT_LT(ratio, 0.5) << a.out << b.out;
}

// A share is of each GPU a process uses: one process driving two GPUs at 0.5
// runs at half its speed, not a quarter (half of one GPU spread over two).
TEST_F(ShimProcessTest, AShareHoldsOnEachDeviceOfAProcess) {
  const std::string env = "'SIMGPU_DEVICES=2xTesla V100-SXM2-32GB:32GiB:80' ";
  const std::string args = "--model resnet18 --devices 2 --seconds 4 --host-gap-us 0";
  Job at_full = Start(env + OwnGpus() + "IASHIM_SHARE=1", args);
  Job at_half = Start(env + "IASHIM_SHARE=0.5", args);
  const JobResult full = Finish(at_full);
  const JobResult half = Finish(at_half);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  ASSERT_EQ(half.exit_code, 0) << half.err;
  const double ratio = half.Field("iters_per_s") / full.Field("iters_per_s");
  EXPECT_GT(ratio, 0.38) << half.out << full.out;
  EXPECT_LT(ratio, 0.65) << half.out << full.out;
}

// A job that synchronises after every kernel never has a kernel queued, so a
// throttle that only paces queued work would leave it alone; the gate still
// holds it to its share (unthrottled, the two would split about evenly).
TEST_F(ShimProcessTest, SyncAfterEveryKernelIsHeldToItsShareToo) {
  const std::string args = "--model resnet18 --seconds 4 --host-gap-us 0";
  Job small = Start("IASHIM_SHARE=0.25", args + " --sync kernel");
  Job large = Start("IASHIM_SHARE=0.75", args);
  const JobResult a = Finish(small);
  const JobResult b = Finish(large);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const double ratio = a.Field("iters_per_s") / b.Field("iters_per_s");
  EXPECT_GT(ratio, 0.15) << a.out << b.out;
  EXPECT_LT(ratio, 0.55) << a.out << b.out;
}

TEST_F(ShimProcessTest, DisabledShimWritesNothing) {
  const JobResult r = Run("IASHIM_DISABLE=1 IASHIM_TRACE=" + dir_ + "/none.trace",
                          "--model resnet18 --iterations 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(access((dir_ + "/none.trace").c_str(), F_OK), 0);
}

}  // namespace
