// Writes the binary seed corpora of the fuzz targets: one encoded Envelope of
// every payload type (and a few variants) for the message targets, and
// records, snapshots and journals for the state targets. Run by
// make_corpus.sh; the output is checked in under corpus/.
//
//   fuzz_seed_corpus CORPUS_DIR
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "common/text/text.h"
#include "common/wire/kernel_id.h"
#include "coordinator/daemon/wire_convert.h"
#include "coordinator/state/frame.h"
#include "coordinator/state/record_codec.h"
#include "coordinator/state/snapshot.h"
#include "libiashim/src/trace_writer.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/daemon/daemon_messages.h"
#include "tests/fuzz/fuzz_input.h"

namespace iashim::fuzz {
namespace {

namespace w = iashim::wire;
namespace messages = iashim::daemon::testing;
using daemon::EnvelopeBytes;
using messages::kUnix;

struct Seed {
  std::string name;
  std::string bytes;
};

std::vector<Seed> Messages() {
  std::vector<Seed> seeds;
  auto add = [&](std::string name, std::string bytes) {
    seeds.push_back({std::move(name), std::move(bytes)});
  };
  add("hello", messages::Hello({.pid = 4242,
                                .job = "resnet",
                                .command = "python train.py",
                                .mem_limit_bytes = 8ULL << 30,
                                .start_unix_ns = kUnix,
                                .start_monotonic_ns = 1000}));
  add("kernel_names",
      messages::KernelNames({{0xabcdef, "volta_sgemm_128x64_nn"}, {0x123456, "elementwise_relu"}}));
  {
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<flatbuffers::Offset<w::KernelStats>> kernels = {
        w::CreateKernelStats(fbb, 0xabcdef, 100, 80, 1, 1, 128, 1, 1, 0, 8000, 10, 10'000'000,
                             1'000'000, 1'000'000)};
    std::vector<flatbuffers::Offset<w::DeviceMemory>> memory = {
        w::CreateDeviceMemory(fbb, 0, 4ULL << 30, 5ULL << 30, 8ULL << 30, 0)};
    const auto b = w::CreateTelemetryBatchDirect(fbb, 3, 1'000'000'000, 1'100'000'000, 100, 0, 4,
                                                 2, 50'000'000, 64, &kernels, &memory, 0, 0, 0.5,
                                                 10, 1'000'000, 1.0, 0.4);
    add("telemetry_batch", EnvelopeBytes(fbb, w::Payload::TelemetryBatch, b.Union()));
  }
  add("goodbye", messages::Goodbye({.launches = 1000}));
  {
    flatbuffers::FlatBufferBuilder fbb;
    const auto b = w::CreateBudget(fbb, 7, 0.3, 4, w::Priority::Opportunistic, 10'000, kUnix);
    add("budget", EnvelopeBytes(fbb, w::Payload::Budget, b.Union()));
  }
  add("place_request", messages::Place({.job = "job-a",
                                        .priority = w::Priority::Opportunistic,
                                        .mem_bytes = 8ULL << 30,
                                        .kind = "resnet50"}));
  // What the Slurm plugin sends: allowed GPUs, batch ids, and a dry run.
  add("place_request_batch", messages::Place({.job = "slurm-1234.0.0",
                                              .mem_bytes = 0,
                                              .slowdown_target = 0,
                                              .allowed_gpus = std::vector<int>{0, 1},
                                              .batch = daemon::BatchIds{"slurm", "1234", "0", 0}}));
  add("place_request_dry_run", messages::Place({.job = "job-a",
                                                .priority = w::Priority::Opportunistic,
                                                .mem_bytes = 1ULL << 30,
                                                .command = "",
                                                .slowdown_target = 0,
                                                .allowed_gpus = std::vector<int>{1},
                                                .dry_run = true}));
  {
    flatbuffers::FlatBufferBuilder fbb;
    const auto p = w::CreatePlaceReplyDirect(fbb, true, nullptr, "job-a", "node1", 1, "GPU-2",
                                             1.0, 0, false, nullptr, true);
    add("place_reply_dry_run", EnvelopeBytes(fbb, w::Payload::PlaceReply, p.Union()));
  }
  add("release_request", messages::Release("job-a", "0123456789abcdef0123456789abcdef"));
  {
    flatbuffers::FlatBufferBuilder fbb;
    const auto r = w::CreateReleaseReplyDirect(fbb, false, "token does not match job 'job-a'");
    add("release_reply", EnvelopeBytes(fbb, w::Payload::ReleaseReply, r.Union()));
  }
  {
    flatbuffers::FlatBufferBuilder fbb;
    const auto p = w::CreatePlaceReplyDirect(fbb, true, nullptr, "job-a", "node1", 1, "GPU-2",
                                             0.5, 8ULL << 30, false);
    add("place_reply_placed", EnvelopeBytes(fbb, w::Payload::PlaceReply, p.Union()));
  }
  {
    flatbuffers::FlatBufferBuilder fbb;
    const auto p = w::CreatePlaceReplyDirect(fbb, false, "no GPU fits now", "job-a", nullptr, 0,
                                             nullptr, 1.0, 0, true);
    add("place_reply_queued", EnvelopeBytes(fbb, w::Payload::PlaceReply, p.Union()));
  }
  {
    flatbuffers::FlatBufferBuilder fbb;
    const auto p = w::CreatePlaceReplyDirect(fbb, false, "job-a is taken");
    add("place_reply_refused", EnvelopeBytes(fbb, w::Payload::PlaceReply, p.Union()));
  }
  {
    flatbuffers::FlatBufferBuilder fbb;
    const auto s = w::CreateStatusRequest(fbb);
    add("status_request", EnvelopeBytes(fbb, w::Payload::StatusRequest, s.Union()));
  }
  {
    flatbuffers::FlatBufferBuilder fbb;
    const auto s = w::CreateStatusRequestDirect(fbb, true, true, "job-a");
    add("status_request_events", EnvelopeBytes(fbb, w::Payload::StatusRequest, s.Union()));
  }
  {
    flatbuffers::FlatBufferBuilder fbb;
    const std::vector<flatbuffers::Offset<flatbuffers::String>> jobs = {fbb.CreateString("job-b"),
                                                                        fbb.CreateString("job-a")};
    const std::vector<flatbuffers::Offset<w::LoggedEvent>> events = {
        w::CreateLoggedEventDirect(fbb, kUnix, &jobs,
                                   "placed job-b (opportunistic) on node1:0 beside job-a"),
        w::CreateLoggedEventDirect(fbb, kUnix + 1'000'000, nullptr,
                                   "node node2 lost: every job on it fell silent")};
    const auto s = w::CreateStateSnapshotDirect(fbb, 13, kUnix, "0.1.0", 12.5, nullptr, 0, nullptr,
                                                nullptr, nullptr, &events);
    add("state_snapshot_events", EnvelopeBytes(fbb, w::Payload::StateSnapshot, s.Union()));
  }
  {
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<flatbuffers::Offset<w::JobState>> jobs = {
        w::CreateJobStateDirect(fbb, "resnet", 100, "node1", "python train.py",
                                w::Priority::Guaranteed, 1.0, 0, 0.15, 0.1, 800, 0.7, 220'000'000,
                                200'000'000, 10ULL << 30, 0, 0, 0, true),
        w::CreateJobStateDirect(fbb, "lstm", 101, "node1", "python lstm.py",
                                w::Priority::Opportunistic, 0.05, 2, -1, 0, 12000, 0.2, 0, 0,
                                2ULL << 30, 8ULL << 30, 1200, 35.5, false)};
    std::vector<flatbuffers::Offset<w::GpuState>> gpus = {
        w::CreateGpuStateDirect(fbb, 0, "node1", "Tesla V100", "GPU-1", 32ULL << 30, 0.9, &jobs),
        w::CreateGpuStateDirect(fbb, 1, "node1", "Tesla V100", "GPU-2", 32ULL << 30, 0, nullptr)};
    const auto s = w::CreateStateSnapshotDirect(fbb, 12, kUnix, "0.1.0", 3725.5, &gpus, 3);
    add("state_snapshot", EnvelopeBytes(fbb, w::Payload::StateSnapshot, s.Union()));
  }
  for (const auto& [kind, name] :
       {std::pair{w::AdviceKind::Info, "advice_info"}, {w::AdviceKind::Refused, "advice_refused"},
        {w::AdviceKind::SendHello, "advice_send_hello"}, {w::AdviceKind::Token, "advice_token"}}) {
    add(name, daemon::EncodeAdvice(kind, kind == w::AdviceKind::Token
                                             ? "0123456789abcdef0123456789abcdef"
                                             : "the coordinator says hello"));
  }
  add("error_reply", daemon::EncodeError("no such job"));
  for (const auto& [action, name] : {std::pair{w::AdminAction::Drain, "admin_drain"},
                                     {w::AdminAction::Undrain, "admin_undrain"},
                                     {w::AdminAction::SetPriority, "admin_set_priority"}}) {
    add(name, messages::Admin({.action = action,
                               .host = "node1",
                               .gpu = 0,
                               .job = "job-a",
                               .priority = w::Priority::Opportunistic}));
  }
  {
    flatbuffers::FlatBufferBuilder fbb;
    const auto text = fbb.CreateString("drained node1:0");
    const auto a = w::CreateAdminReply(fbb, true, 0, text);
    add("admin_reply", EnvelopeBytes(fbb, w::Payload::AdminReply, a.Union()));
  }
  {
    flatbuffers::FlatBufferBuilder fbb;
    const auto b = w::CreateBudget(fbb, 8, 0.5);
    fbb.Finish(w::CreateEnvelope(fbb, static_cast<w::Version>(2), 1, w::Payload::Budget,
                                 b.Union()));
    add("version_2", std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()),
                                 fbb.GetSize()));
  }
  return seeds;
}

state::State SampleState() {
  state::State s;
  state::JobRecord a;
  a.job = "resnet";
  a.pid = 100;
  a.host = "node1";
  a.command = "python train.py";
  a.mem_bytes = 8ULL << 30;
  a.gpu_host = "node1";
  a.gpu_index = 0;
  a.slowdown_target = 0.1;
  a.fingerprint = 0xabc;
  a.registered_unix_ns = kUnix;
  a.kind = "resnet50";
  a.token = "0123456789abcdef0123456789abcdef";
  s.jobs[a.job] = a;
  state::JobRecord b = a;
  b.job = "lstm";
  b.pid = 101;
  b.priority = state::Priority::kOpportunistic;
  b.share = 0.2;
  b.fingerprint = 0xdef;
  b.kind = "lstm";
  s.jobs[b.job] = b;
  s.baselines[0xabc] = {0xabc, 2.2e8, 800, 0.7, 40};
  s.baselines[0xdef] = {0xdef, 3e7, 12000, 0.3, 25};
  s.observations.push_back({"v100", 0xabc, 0xdef, 0.4, 0.3, 1.0, 1.0, kUnix, "resnet50", "lstm"});
  s.observations.push_back(
      {"v100", 0xabc, 0xdef, 0.1, 0.8, 1.0, 0.2, kUnix + 1, "resnet50", "lstm"});
  s.budget_seq = 77;
  s.kv["controller/node1:0"] = std::string("\x01\x02\x00\x03", 4);
  return s;
}

std::vector<state::Mutation> SampleMutations() {
  const state::State s = SampleState();
  std::vector<state::Mutation> m;
  m.push_back(s.jobs.at("resnet"));
  m.push_back(state::JobRemoval{"lstm"});
  m.push_back(s.baselines.at(0xabc));
  m.push_back(s.observations.front());
  m.push_back(state::BudgetSeqUpdate{78});
  m.push_back(state::KvPut{"controller/node1:1", "ceiling=0.5"});
  m.push_back(state::KvRemoval{"controller/node1:0"});
  return m;
}

std::vector<Seed> Records() {
  static const char* kNames[] = {"job_upsert", "job_remove", "baseline", "observation",
                                 "budget_seq", "kv_put",     "kv_remove"};
  std::vector<Seed> seeds;
  const std::vector<state::Mutation> m = SampleMutations();
  for (size_t i = 0; i < m.size(); ++i) {
    seeds.push_back({kNames[m[i].index()], state::EncodeRecord(i + 1, m[i])});
  }
  seeds.push_back({"snapshot_header", state::EncodeSnapshotHeader({5, 8})});
  return seeds;
}

// (snapshot, journal) pairs joined as the state targets split them.
std::vector<Seed> StateFiles() {
  const std::string snapshot = state::SerializeSnapshot(SampleState(), 5);
  std::string journal;
  const std::vector<state::Mutation> m = SampleMutations();
  for (size_t i = 0; i < m.size(); ++i) {
    state::AppendFrame(state::EncodeRecord(4 + i, m[i]), &journal);
  }
  std::string damaged = journal;
  damaged[damaged.size() / 2] ^= 0x10;
  return {
      {"empty", JoinTwo("", "")},
      {"snapshot_only", JoinTwo(snapshot, "")},
      {"journal_only", JoinTwo("", journal)},
      {"snapshot_and_journal", JoinTwo(snapshot, journal)},
      {"damaged_journal", JoinTwo(snapshot, damaged)},
      {"torn_tail", JoinTwo(snapshot, journal.substr(0, journal.size() - 3))},
  };
}

// A short launch trace as the shim writes it: names, launches, one sampled
// GPU time, totals.
void WriteTrace(const std::string& dir) {
  mkdir(dir.c_str(), 0755);
  TraceWriter writer;
  std::string error;
  if (!writer.Open(dir + "/basic", 4242, &error)) Fail("cannot write the trace seed");
  writer.KernelName(1, KernelId("volta_sgemm_128x64_nn"), "volta_sgemm_128x64_nn");
  writer.KernelName(2, KernelId("elementwise_relu"), "elementwise_relu");
  for (uint64_t i = 0; i < 4; ++i) {
    TraceLaunch launch{};
    launch.time_ns = 1'000'000 * (i + 1);
    launch.seq = i;
    launch.kernel = 1 + static_cast<uint32_t>(i % 2);
    launch.grid[0] = 80;
    launch.grid[1] = launch.grid[2] = 1;
    launch.block[0] = 256;
    launch.block[1] = launch.block[2] = 1;
    writer.Launch(launch);
  }
  TraceGpuTime time{};
  time.seq = 2;
  time.gpu_ns = 120'000;
  writer.GpuTime(time);
  TraceTotals totals{};
  totals.launches = 4;
  totals.samples = 1;
  writer.Totals(totals);
  writer.Close();
  std::printf("%-28s 1 seed\n", dir.c_str());
}

void Write(const std::string& dir, const std::vector<Seed>& seeds) {
  mkdir(dir.c_str(), 0755);
  for (const Seed& s : seeds) {
    std::ofstream out(dir + "/" + s.name, std::ios::binary | std::ios::trunc);
    out.write(s.bytes.data(), static_cast<std::streamsize>(s.bytes.size()));
    if (!out) Fail("cannot write a seed");
  }
  std::printf("%-28s %zu seeds\n", dir.c_str(), seeds.size());
}

}  // namespace
}  // namespace iashim::fuzz

int main(int argc, char** argv) {
  using namespace iashim::fuzz;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  const std::string root = argv[1];
  const std::vector<Seed> messages = Messages();
  for (const char* target : {"coordinator_message", "shim_inbound", "cli_reply", "top_snapshot"}) {
    Write(root + "/" + target, messages);
  }
  Write(root + "/state_record", Records());
  Write(root + "/state_recovery", StateFiles());
  Write(root + "/state_dir", StateFiles());
  WriteTrace(root + "/trace_reader");
  return 0;
}
