#include "coordinator/cli/status_format.h"

#include <array>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/coordinator/client/test_messages.h"

namespace iashim::cli {
namespace {

using client::testing::EncodeSampleSnapshot;
using ::testing::HasSubstr;
using ::testing::Not;
using client::testing::SnapshotOf;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Found by tests/fuzz (cli_reply): an uptime beyond 2^64 s from the
// coordinator overflowed the conversion to an integer (undefined behaviour).
TEST(StatusFormat, HugeUptimeIsNotConverted) {
  EXPECT_EQ(FormatUptime(1.26772e+42), ">30y");
  EXPECT_EQ(FormatUptime(1e9), ">30y");
  EXPECT_EQ(FormatUptime(999'999'999), "11574d01h");
}

TEST(StatusFormat, CellFormats) {
  EXPECT_EQ(FormatUptime(45.9), "45s");
  EXPECT_EQ(FormatUptime(185), "3m05s");
  EXPECT_EQ(FormatUptime(3725.5), "1h02m");
  EXPECT_EQ(FormatUptime(2 * 86400 + 3 * 3600 + 5), "2d03h");
  EXPECT_EQ(FormatUptime(-1), "-");
  EXPECT_EQ(FormatCompactBytes(512), "512B");
  EXPECT_EQ(FormatCompactBytes(uint64_t{8} << 30), "8.0G");
  EXPECT_EQ(FormatCompactBytes(uint64_t{16} << 30), "16G");
  EXPECT_EQ(FormatCompactBytes((uint64_t{10} << 20) - 1), "10M");
  EXPECT_EQ(FormatCompactBytes(uint64_t{3} << 40), "3.0T");
  EXPECT_EQ(FormatAgeMs(0), "-");
  EXPECT_EQ(FormatAgeMs(850), "850ms");
  EXPECT_EQ(FormatAgeMs(1200), "1.2s");
  EXPECT_EQ(FormatAgeMs(185'000), "3m05s");
  EXPECT_EQ(FormatAgeMs(7'200'000), "2h00m");
  EXPECT_EQ(FormatRate(800), "800");
  EXPECT_EQ(FormatRate(12300), "12.3k");
  EXPECT_EQ(FormatRate(1.5e6), "1.5M");
}

TEST(StatusFormat, Table) {
  const client::testing::Bytes bytes = EncodeSampleSnapshot();
  const std::string table = FormatStatusTable(SnapshotOf(bytes));
  const std::vector<std::string> lines = Lines(table);
  ASSERT_GE(lines.size(), 8u) << table;
  EXPECT_EQ(lines[0],
            "coordinator 0.1.0  up 1h02m  snapshot 17  2 GPUs  2 jobs  2 invalid messages dropped");
  EXPECT_EQ(lines[1], "");
  EXPECT_EQ(lines[2],
            "node-a:0 NVIDIA H200  busy 87%  power 213 W  memory 21.0 GiB of 80.0 GiB  2 jobs");
  EXPECT_EQ(lines[3],
            "  JOB        PID  PRIO  SHARE  SLOWDOWN    RUN  BASELINE      TARGET  KERN/S  BUSY  "
            "J/ITER  ENERGY-J  MEM/QUOTA  BUDGET-AGE  CONNECTED");
  EXPECT_EQ(lines[4],
            "  resnet50  1201  guar   0.60     +25%!  +9.2%  probe     10% (9.8%)   12.3k   55%  "
            "  57.3      5412   8.0G/16G        1.2s  yes");
  EXPECT_EQ(lines[5],
            "  gpt2-opp  1203  opp    0.10         -      -  -                  -     800    7%  "
            "     -         -      13G/-           -  no");
  EXPECT_EQ(lines[6], "");
  EXPECT_EQ(lines[7], "node-a:1 NVIDIA H200  busy 0%  memory 0 B of 80.0 GiB  0 jobs");
  EXPECT_EQ(lines.size(), 8u) << table;
}

TEST(StatusFormat, TableWithoutGpus) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto snapshot = wire::CreateStateSnapshotDirect(fbb, 1, 0, "0.1.0", 5.0);
  fbb.Finish(wire::CreateEnvelope(fbb, wire::Version::Current, 1, wire::Payload::StateSnapshot,
                                  snapshot.Union()));
  const client::testing::Bytes bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  const std::string table = FormatStatusTable(SnapshotOf(bytes));
  EXPECT_EQ(table,
            "coordinator 0.1.0  up 5s  snapshot 1  0 GPUs  0 jobs\n"
            "no GPUs known to the coordinator\n");
  EXPECT_THAT(FormatStatusJson(SnapshotOf(bytes)), HasSubstr("\"gpus\": []"));
}

TEST(StatusFormat, LearnedPairs) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<wire::LearnedPair>> pairs = {
      wire::CreateLearnedPairDirect(fbb, "resnet50", "lstm", 12, 0.69, 0.688, 0.71, 0.02)};
  const auto snapshot =
      wire::CreateStateSnapshotDirect(fbb, 1, 0, "0.1.0", 5.0, nullptr, 0, nullptr, &pairs);
  fbb.Finish(wire::CreateEnvelope(fbb, wire::Version::Current, 1, wire::Payload::StateSnapshot,
                                  snapshot.Union()));
  const client::testing::Bytes bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  const std::string table = FormatLearnedPairs(SnapshotOf(bytes));
  EXPECT_THAT(table, HasSubstr("victim"));
  EXPECT_THAT(table, HasSubstr("resnet50             lstm                     12     0.690      0.688    0.710        0.020"));
  const std::string json = FormatStatusJson(SnapshotOf(bytes));
  EXPECT_THAT(json, HasSubstr("\"pairs\": ["));
  EXPECT_THAT(json, HasSubstr("\"aggressor\": \"lstm\""));
  EXPECT_THAT(json, HasSubstr("\"observations\": 12"));
  // A snapshot without pairs (not asked for) has no "pairs" key; asked for
  // but none learned, the table says so.
  const client::testing::Bytes plain = EncodeSampleSnapshot();
  EXPECT_THAT(FormatStatusJson(SnapshotOf(plain)), Not(HasSubstr("\"pairs\"")));
  EXPECT_THAT(FormatLearnedPairs(SnapshotOf(plain)), HasSubstr("none yet"));
}

TEST(StatusFormat, RecentEvents) {
  flatbuffers::FlatBufferBuilder fbb;
  const std::vector<flatbuffers::Offset<flatbuffers::String>> jobs = {fbb.CreateString("b"),
                                                                      fbb.CreateString("a")};
  const std::vector<flatbuffers::Offset<wire::LoggedEvent>> events = {
      wire::CreateLoggedEventDirect(fbb, uint64_t{1'796'666'103'656'000'000}, &jobs,
                                    "placed b on n1:0 beside a\x1b[2J"),
      wire::CreateLoggedEventDirect(fbb, uint64_t{1'796'666'104'000'000'000}, nullptr,
                                    "node n2 lost: every job on it fell silent")};
  const auto snapshot = wire::CreateStateSnapshotDirect(fbb, 1, 0, "0.1.0", 5.0, nullptr, 0,
                                                        nullptr, nullptr, nullptr, &events);
  fbb.Finish(wire::CreateEnvelope(fbb, wire::Version::Current, 1, wire::Payload::StateSnapshot,
                                  snapshot.Union()));
  const client::testing::Bytes bytes(fbb.GetBufferPointer(),
                                     fbb.GetBufferPointer() + fbb.GetSize());
  // Time first, oldest first, and the wire's control characters kept off the terminal.
  EXPECT_EQ(FormatRecentEvents(SnapshotOf(bytes), ""),
            "\nrecent events (UTC, oldest first)\n"
            "2026-12-07T17:55:03.656Z placed b on n1:0 beside a?[2J\n"
            "2026-12-07T17:55:04.000Z node n2 lost: every job on it fell silent\n");
  EXPECT_THAT(FormatRecentEvents(SnapshotOf(bytes), "b"), HasSubstr("recent events of b (UTC"));
  const std::string json = FormatStatusJson(SnapshotOf(bytes));
  EXPECT_THAT(json, HasSubstr("\"events\": ["));
  EXPECT_THAT(json, HasSubstr("\"time\": \"2026-12-07T17:55:03.656Z\""));
  EXPECT_THAT(json, HasSubstr("\"unix_ns\": 1796666103656000000"));
  EXPECT_THAT(json, HasSubstr("\"b\""));
  // Not asked for: no "events" key; asked for and none kept: said so.
  const client::testing::Bytes plain = EncodeSampleSnapshot();
  EXPECT_THAT(FormatStatusJson(SnapshotOf(plain)), Not(HasSubstr("\"events\"")));
  EXPECT_THAT(FormatRecentEvents(SnapshotOf(plain), "a"), HasSubstr("recent events of a: none"));
}

TEST(StatusFormat, TableKeepsControlCharactersOffTheTerminal) {
  const client::testing::Bytes bytes = EncodeSampleSnapshot();
  const std::string table = FormatStatusTable(SnapshotOf(bytes));
  for (char c : table) {
    const unsigned char u = static_cast<unsigned char>(c);
    EXPECT_TRUE(c == '\n' || (u >= 0x20 && u != 0x7F)) << static_cast<int>(u);
  }
}

TEST(StatusFormat, Json) {
  const client::testing::Bytes bytes = EncodeSampleSnapshot();
  const std::string json = FormatStatusJson(SnapshotOf(bytes));
  EXPECT_EQ(json.back(), '\n');
  EXPECT_THAT(json, HasSubstr("\"seq\": 17,"));
  EXPECT_THAT(json, HasSubstr("\"uptime_s\": 3725.5,"));
  EXPECT_THAT(json, HasSubstr("\"coordinator_version\": \"0.1.0\","));
  EXPECT_THAT(json, HasSubstr("\"gpus\": ["));
  EXPECT_THAT(json, HasSubstr("\"id\": 0,"));
  EXPECT_THAT(json, HasSubstr("\"host\": \"node-a\","));
  EXPECT_THAT(json, HasSubstr("\"name\": \"NVIDIA H200\","));
  EXPECT_THAT(json, HasSubstr("\"uuid\": \"GPU-1234\","));
  EXPECT_THAT(json, HasSubstr("\"memory_bytes\": 85899345920,"));
  EXPECT_THAT(json, HasSubstr("\"power_w\": 213.4,"));
  EXPECT_THAT(json, HasSubstr("\"energy_j\": 5412,"));
  EXPECT_THAT(json, HasSubstr("\"energy_per_iteration_j\": 57.3,"));
  EXPECT_THAT(json, HasSubstr("\"energy_j\": null,"));
  EXPECT_THAT(json, HasSubstr("\"busy\": 0.87,"));
  EXPECT_THAT(json, HasSubstr("\"job\": \"resnet50\","));
  EXPECT_THAT(json, HasSubstr("\"pid\": 1201,"));
  EXPECT_THAT(json, HasSubstr("\"priority\": \"guaranteed\","));
  EXPECT_THAT(json, HasSubstr("\"priority\": \"opportunistic\","));
  EXPECT_THAT(json, HasSubstr("\"share\": 0.6,"));
  EXPECT_THAT(json, HasSubstr("\"slowdown\": 0.25,"));
  EXPECT_THAT(json, HasSubstr("\"slowdown\": null,"));  // gpt2-opp: unknown
  EXPECT_THAT(json, HasSubstr("\"run_slowdown\": 0.092,"));
  EXPECT_THAT(json, HasSubstr("\"run_slowdown\": null,"));  // gpt2-opp: not guaranteed
  EXPECT_THAT(json, HasSubstr("\"loop_target\": 0.098,"));  // its run repaid: held lower
  EXPECT_THAT(json, HasSubstr("\"loop_target\": null,"));   // gpt2-opp: not held so
  EXPECT_THAT(json, HasSubstr("\"baseline_source\": \"probe\","));
  EXPECT_THAT(json, HasSubstr("\"baseline_source\": null,"));  // gpt2-opp: none
  EXPECT_THAT(json, HasSubstr("\"probing\": false,"));
  EXPECT_THAT(json, HasSubstr("\"cpu_wait\": 0.042,"));
  EXPECT_THAT(json, HasSubstr("\"cpu_wait\": null,"));  // gpt2-opp: unknown
  EXPECT_THAT(json, HasSubstr("\"baseline_cpu_contended\": true,"));
  EXPECT_THAT(json, HasSubstr("\"baseline_cpu_contended\": false,"));
  EXPECT_THAT(json, HasSubstr("\"slowdown_target\": 0.1,"));
  EXPECT_THAT(json, HasSubstr("\"kernels_per_s\": 12300,"));
  EXPECT_THAT(json, HasSubstr("\"mem_bytes\": 8589934592,"));
  EXPECT_THAT(json, HasSubstr("\"mem_limit_bytes\": 17179869184,"));
  EXPECT_THAT(json, HasSubstr("\"budget_age_ms\": 1200,"));
  EXPECT_THAT(json, HasSubstr("\"connected\": true"));
  EXPECT_THAT(json, HasSubstr("\"connected\": false"));
  EXPECT_THAT(json, HasSubstr("\"jobs\": []"));  // node-a:1
  // The command's quote, newline and broken byte, escaped and replaced.
  EXPECT_THAT(json, HasSubstr("\"command\": \"python \\\"gpt2\\\".py\\n\xef\xbf\xbd\""));
  EXPECT_THAT(json, Not(HasSubstr("\xff")));
}

// A gang of two on node-a:0 and node-a:1, its rank 1 twice as slow as rank 0
// (so the gang's iteration time is rank 1's), and a one-GPU job on node-a:2.
// With `waiting` (each rank's share of time waiting for the other; -1 =
// unknown) and `memory_used` per GPU (-1 = not said, as before either), and
// the guaranteed jobs beside the gang (JobState.beside_guaranteed; empty: none), and the GPU
// whose loop set its share (JobState.share_set_by; -1: none), defending those.
client::testing::Bytes EncodeGangSnapshot(std::array<double, 2> waiting = {-1, -1},
                                          int64_t memory_used = -1,
                                          const std::vector<std::string>& beside_guaranteed = {},
                                          int share_set_on = -1) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<flatbuffers::String>> beside;
  for (const std::string& y : beside_guaranteed) beside.push_back(fbb.CreateString(y));
  flatbuffers::Offset<wire::ShareSource> set_by;
  if (share_set_on >= 0)
    set_by = wire::CreateShareSourceDirect(fbb, "node-a", share_set_on, &beside);
  const std::vector<int32_t> gang_gpus = {0, 1};
  const std::vector<flatbuffers::Offset<wire::RankState>> ranks = {
      wire::CreateRankState(fbb, 0, 4100, 0, true, 100'000'000, 2000, waiting[0]),
      wire::CreateRankState(fbb, 1, 4101, 1, true, 200'000'000, 1000, waiting[1])};
  std::vector<flatbuffers::Offset<wire::JobState>> gang_jobs = {wire::CreateJobStateDirect(
      fbb, "ddp", 4100, "node-a", "torchrun train.py", wire::Priority::Guaranteed, 1.0, 0, -1, 0.1,
      3000, 0.9, 200'000'000, 0, uint64_t{8} << 30, uint64_t{16} << 30, 0, 0, true, 0,
      wire::BaselineSource::None, false, -1, -1, &gang_gpus, &ranks, false, -1,
      beside.empty() ? nullptr : &beside, -1, set_by)};
  std::vector<flatbuffers::Offset<wire::JobState>> solo_jobs = {wire::CreateJobStateDirect(
      fbb, "solo", 4200, "node-a", "python x.py", wire::Priority::Guaranteed, 1.0, 0, -1, 0.1,
      100, 0.5, 0, 0, 0, 0, 0, 0, true)};
  std::vector<flatbuffers::Offset<wire::JobState>> none;
  std::vector<flatbuffers::Offset<wire::GpuState>> gpus = {
      wire::CreateGpuStateDirect(fbb, 0, "node-a", "H200", "GPU-0", uint64_t{80} << 30, 0.9,
                                 &gang_jobs, false, -1, memory_used),
      wire::CreateGpuStateDirect(fbb, 1, "node-a", "H200", "GPU-1", uint64_t{80} << 30, 0.9, &none,
                                 false, -1, memory_used),
      wire::CreateGpuStateDirect(fbb, 2, "node-a", "H200", "GPU-2", uint64_t{80} << 30, 0.5,
                                 &solo_jobs)};
  const auto snapshot = wire::CreateStateSnapshotDirect(fbb, 3, 0, "0.1.0", 5.0, &gpus);
  fbb.Finish(wire::CreateEnvelope(fbb, wire::Version::Current, 1, wire::Payload::StateSnapshot,
                                  snapshot.Union()));
  return client::testing::Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

TEST(StatusFormat, AGangIsOneRowWithItsGpusAndALinePerRank) {
  const client::testing::Bytes bytes = EncodeGangSnapshot();
  const std::string table = FormatStatusTable(SnapshotOf(bytes));
  const std::vector<std::string> lines = Lines(table);
  // Counted once.
  EXPECT_THAT(lines[0], HasSubstr("3 GPUs  2 jobs"));
  EXPECT_THAT(table, HasSubstr("  ddp [gpu 0,1]  4100  guar"));
  EXPECT_THAT(table, HasSubstr("\n      rank 0  pid 4100  gpu 0  10.00 it/s  2000 kern/s\n"));
  EXPECT_THAT(table, HasSubstr("\n      rank 1  pid 4101  gpu 1  5.00 it/s  1000 kern/s  slowest\n"));
  // The gang's other GPU says whose it is.
  EXPECT_THAT(table, HasSubstr("node-a:1 H200  busy 90%  memory 0 B of 80.0 GiB  0 jobs  gang ddp "
                               "(listed under node-a:0)\n"));
  // A one-GPU job has neither.
  EXPECT_THAT(table, HasSubstr("  solo           4200"));
  EXPECT_THAT(table, Not(HasSubstr("solo [gpu")));
  size_t rank_lines = 0;
  for (const std::string& line : lines) rank_lines += line.starts_with("      rank ");
  EXPECT_EQ(rank_lines, 2u);
}

// Every rank of a gang iterates at its pace; the one the others wait for is
// its slowest, and each GPU counts the memory of the rank on it.
TEST(StatusFormat, TheRankTheOthersWaitForIsMarkedAndEachGpuCountsItsRanksMemory) {
  const client::testing::Bytes bytes = EncodeGangSnapshot({0.25, 0.0}, int64_t{8} << 30);
  const std::string table = FormatStatusTable(SnapshotOf(bytes));
  EXPECT_THAT(table, HasSubstr("\n      rank 0  pid 4100  gpu 0  10.00 it/s  2000 kern/s  waits 25%\n"));
  EXPECT_THAT(table,
              HasSubstr("\n      rank 1  pid 4101  gpu 1  5.00 it/s  1000 kern/s  waits 0%  slowest\n"));
  EXPECT_THAT(table, HasSubstr("node-a:1 H200  busy 90%  memory 8.0 GiB of 80.0 GiB  0 jobs"));
  const std::string json = FormatStatusJson(SnapshotOf(bytes));
  EXPECT_THAT(json, HasSubstr("\"waiting\": 0.25"));
  EXPECT_THAT(json, HasSubstr("\"memory_used_bytes\": 8589934592"));
  // Ranks that wait alike: by iteration time.
  const client::testing::Bytes alike = EncodeGangSnapshot({0.0, 0.005});
  EXPECT_THAT(FormatStatusTable(SnapshotOf(alike)),
              HasSubstr("\n      rank 1  pid 4101  gpu 1  5.00 it/s  1000 kern/s  waits 0%  slowest\n"));
  EXPECT_THAT(FormatStatusTable(SnapshotOf(alike)),
              Not(HasSubstr("rank 0  pid 4100  gpu 0  10.00 it/s  2000 kern/s  waits 0%  slowest")));
}

TEST(StatusFormat, JsonHasAGangsGpusAndRanks) {
  const client::testing::Bytes bytes = EncodeGangSnapshot();
  const std::string json = FormatStatusJson(SnapshotOf(bytes));
  EXPECT_THAT(json, HasSubstr("\"gpus\": [\n"));
  EXPECT_THAT(json, HasSubstr("\"ranks\": ["));
  EXPECT_THAT(json, HasSubstr("\"rank\": 1,"));
  EXPECT_THAT(json, HasSubstr("\"pid\": 4101,"));
  EXPECT_THAT(json, HasSubstr("\"iteration_ns\": 200000000,"));
  EXPECT_THAT(json, HasSubstr("\"iterations_per_s\": 5,"));
  EXPECT_THAT(json, HasSubstr("\"iterations_per_s\": 10,"));
  // Only the gang has them: one "ranks" key in the whole snapshot.
  EXPECT_EQ(json.find("\"ranks\""), json.rfind("\"ranks\""));
  // The one-GPU job's object has no "gpus" key of its own.
  const size_t solo = json.find("\"job\": \"solo\"");
  ASSERT_NE(solo, std::string::npos);
  const size_t solo_end = json.find('}', solo);
  EXPECT_EQ(json.substr(solo, solo_end - solo).find("\"gpus\""), std::string::npos);
}

// A guaranteed gang beside a guaranteed job, neither held for the other:
// "g+g", and the jobs it is beside.
TEST(StatusFormat, AGangBesideGuaranteedJobsNamesThem) {
  const client::testing::Bytes bytes = EncodeGangSnapshot({-1, -1}, -1, {"solo"});
  EXPECT_THAT(FormatStatusTable(SnapshotOf(bytes)), HasSubstr("  ddp [gpu 0,1]  4100  g+g"));
  const std::string json = FormatStatusJson(SnapshotOf(bytes));
  const size_t beside = json.find("\"beside_guaranteed\": [");
  ASSERT_NE(beside, std::string::npos) << json;
  EXPECT_LT(json.find("\"solo\"", beside), json.find(']', beside)) << json;
  // Beside none: no such key.
  EXPECT_THAT(FormatStatusJson(SnapshotOf(EncodeGangSnapshot())),
              Not(HasSubstr("beside_guaranteed")));
}

// A gang held under a full share runs at the least share any of its GPUs'
// loops gives it: a line under it names that GPU and whom its loop defends.
TEST(StatusFormat, AGangSaysWhichLoopSetsItsShare) {
  const client::testing::Bytes bytes = EncodeGangSnapshot({-1, -1}, -1, {"solo"}, 1);
  const std::string table = FormatStatusTable(SnapshotOf(bytes));
  EXPECT_THAT(table, HasSubstr("  ddp [gpu 0,1]  4100  g+g"));
  EXPECT_THAT(table,
              HasSubstr("\n      share set by the loop on node-a:1, for solo\n      rank 0"));
  const std::string json = FormatStatusJson(SnapshotOf(bytes));
  EXPECT_THAT(json, HasSubstr("\"share_set_by\": {\n"));
  EXPECT_THAT(json, HasSubstr("\"host\": \"node-a\",\n"));
  const size_t set_by = json.find("\"share_set_by\"");
  EXPECT_LT(json.find("\"gpu\": 1,", set_by), json.find("\"defends\": [", set_by)) << json;
  EXPECT_LT(json.find("\"solo\"", json.find("\"defends\"")),
            json.find(']', json.find("\"defends\"")));
  // Held by no loop: neither.
  const client::testing::Bytes free = EncodeGangSnapshot();
  EXPECT_THAT(FormatStatusTable(SnapshotOf(free)), Not(HasSubstr("share set by")));
  EXPECT_THAT(FormatStatusJson(SnapshotOf(free)), Not(HasSubstr("share_set_by")));
}

// A lost node (every job of it fell silent without a Goodbye) and its job.
TEST(StatusFormat, ALostNodeAndItsJobSaySo) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<wire::JobState>> jobs = {wire::CreateJobStateDirect(
      fbb, "gone", 4300, "node-b", "python x.py", wire::Priority::Guaranteed, 1.0, 0, -1, 0.1, 0,
      0, 0, 0, 0, 0, 0, 0, /*connected=*/false, 0, wire::BaselineSource::None, false, -1, -1,
      nullptr, nullptr, /*lost=*/true)};
  std::vector<flatbuffers::Offset<wire::GpuState>> gpus = {wire::CreateGpuStateDirect(
      fbb, 0, "node-b", "H200", "GPU-0", uint64_t{80} << 30, 0, &jobs, false, -1, 0,
      /*node_lost_s=*/7.4)};
  const auto snapshot = wire::CreateStateSnapshotDirect(fbb, 3, 0, "0.1.0", 5.0, &gpus);
  fbb.Finish(wire::CreateEnvelope(fbb, wire::Version::Current, 1, wire::Payload::StateSnapshot,
                                  snapshot.Union()));
  const client::testing::Bytes bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  const std::string table = FormatStatusTable(SnapshotOf(bytes));
  EXPECT_THAT(table, HasSubstr("1 job  NODE LOST (no shim heard for 7 s)\n"));
  EXPECT_THAT(Lines(table).back(), HasSubstr("  lost"));
  const std::string json = FormatStatusJson(SnapshotOf(bytes));
  EXPECT_THAT(json, HasSubstr("\"node_lost_s\": 7.4"));
  EXPECT_THAT(json, HasSubstr("\"lost\": true"));
}

// A gang's reservation holds both its GPUs: a line under each; the title
// counts it once.
TEST(StatusFormat, AReservationIsALineUnderEachOfItsGpus) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<wire::JobState>> none;
  std::vector<flatbuffers::Offset<wire::GpuState>> gpus;
  for (int i = 0; i < 3; ++i) {
    gpus.push_back(
        wire::CreateGpuStateDirect(fbb, i, "node-a", "H200", "GPU", uint64_t{80} << 30, 0, &none));
  }
  const std::vector<int32_t> gang = {0, 1};
  std::vector<flatbuffers::Offset<wire::Reservation>> reservations = {wire::CreateReservationDirect(
      fbb, "node-a", &gang, wire::Priority::Opportunistic, "", uint64_t{4} << 30, 12.4)};
  const auto snapshot = wire::CreateStateSnapshotDirect(fbb, 3, 0, "0.1.0", 5.0, &gpus, 0, nullptr,
                                                        nullptr, &reservations);
  fbb.Finish(wire::CreateEnvelope(fbb, wire::Version::Current, 1, wire::Payload::StateSnapshot,
                                  snapshot.Union()));
  const client::testing::Bytes bytes(fbb.GetBufferPointer(),
                                     fbb.GetBufferPointer() + fbb.GetSize());
  const std::string table = FormatStatusTable(SnapshotOf(bytes));
  EXPECT_THAT(Lines(table)[0], HasSubstr("3 GPUs  0 jobs  1 reservation"));
  const std::string line =
      "  reserved for 1 job on its way (a dry run's): opp 4.0G gang 0,1 (12s left)\n";
  EXPECT_THAT(table, HasSubstr("node-a:0 H200  busy 0%  memory 0 B of 80.0 GiB  0 jobs\n" + line));
  EXPECT_THAT(table, HasSubstr("node-a:1 H200  busy 0%  memory 0 B of 80.0 GiB  0 jobs\n" + line));
  EXPECT_THAT(table, HasSubstr("node-a:2 H200  busy 0%  memory 0 B of 80.0 GiB  0 jobs\n"));
  EXPECT_THAT(table, Not(HasSubstr("0 jobs\n" + line + line)));
  const std::string json = FormatStatusJson(SnapshotOf(bytes));
  EXPECT_THAT(json, HasSubstr("\"priority\": \"opportunistic\",\n      \"kind\": \"\",\n"
                              "      \"mem_bytes\": 4294967296,\n      \"expires_in_s\": 12.4"));
}

// The control loop's last decision: a line under its GPU and a "loop" object;
// where it does not run, no line and null.
TEST(StatusFormat, TheLoopsDecisionIsALineUnderItsGpu) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<wire::JobState>> none;
  const auto loop = wire::CreateLoopStateDirect(fbb, "hold: calming", 0.642, 0.7, 0.8);
  std::vector<flatbuffers::Offset<wire::GpuState>> gpus = {
      wire::CreateGpuStateDirect(fbb, 0, "node-a", "H200", "GPU", uint64_t{80} << 30, 0, &none,
                                 false, -1, 0, -1, loop),
      wire::CreateGpuStateDirect(fbb, 1, "node-a", "H200", "GPU", uint64_t{80} << 30, 0, &none)};
  const auto snapshot = wire::CreateStateSnapshotDirect(fbb, 3, 0, "0.1.0", 5.0, &gpus);
  fbb.Finish(wire::CreateEnvelope(fbb, wire::Version::Current, 1, wire::Payload::StateSnapshot,
                                  snapshot.Union()));
  const client::testing::Bytes bytes(fbb.GetBufferPointer(),
                                     fbb.GetBufferPointer() + fbb.GetSize());
  const std::string table = FormatStatusTable(SnapshotOf(bytes));
  EXPECT_THAT(table, HasSubstr("node-a:0 H200  busy 0%  memory 0 B of 80.0 GiB  0 jobs\n"
                               "  loop: hold: calming; worst guaranteed job at 0.64 of its target "
                               "(raises after a calm run under 0.70, aiming at 0.80)\n"));
  EXPECT_THAT(table, HasSubstr("node-a:1 H200  busy 0%  memory 0 B of 80.0 GiB  0 jobs\n"));
  EXPECT_EQ(table.find("loop:"), table.rfind("loop:"));
  const std::string json = FormatStatusJson(SnapshotOf(bytes));
  EXPECT_THAT(json, HasSubstr("\"loop\": {\n        \"action\": \"hold: calming\",\n"
                              "        \"worst_ratio\": 0.642,\n        \"calm_below\": 0.7,\n"
                              "        \"aim\": 0.8\n      }"));
  EXPECT_THAT(json, HasSubstr("\"loop\": null"));
}

// A snapshot from a coordinator without reservations: an empty array, no line.
TEST(StatusFormat, NoReservations) {
  const client::testing::Bytes bytes = EncodeSampleSnapshot();
  EXPECT_THAT(FormatStatusJson(SnapshotOf(bytes)), HasSubstr("\"reservations\": []"));
  EXPECT_THAT(FormatStatusTable(SnapshotOf(bytes)), Not(HasSubstr("reserv")));
}

}  // namespace
}  // namespace iashim::cli
