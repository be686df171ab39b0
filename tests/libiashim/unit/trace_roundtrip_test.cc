// TraceWriter -> file -> ReadTrace, and ReadTrace on damaged files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/text/text.h"
#include "common/wire/kernel_id.h"
#include "libiashim/src/trace_format.h"
#include "libiashim/src/trace_reader.h"
#include "libiashim/src/trace_writer.h"

namespace iashim {
namespace {

namespace fs = std::filesystem;

class TraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "iashim_trace_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = (fs::path(dir_) / "trace.bin").string();
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string ReadBytes() const {
    std::ifstream in(path_, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  void WriteBytes(const std::string& bytes) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
  }

  std::string dir_;
  std::string path_;
};

TraceLaunch MakeLaunch(uint32_t thread, uint64_t seq, uint32_t kernel) {
  TraceLaunch l{};
  l.time_ns = 1'000'000 + seq * 1000 + thread;
  l.seq = seq;
  l.stream = 0x5500 + thread;
  l.thread = thread;
  l.kernel = kernel;
  l.grid[0] = 128 + uint32_t(seq);
  l.grid[1] = 2;
  l.grid[2] = 3;
  l.block[0] = 256;
  l.block[1] = 4;
  l.block[2] = 1;
  l.event = 0;
  l.flags = TraceFlags(uint8_t(seq % 3), seq % 2 == 1);
  l.shared_mem = 48 * 1024;
  return l;
}

void ExpectSameLaunch(const TraceLaunch& a, const TraceLaunch& b) {
  EXPECT_EQ(a.time_ns, b.time_ns);
  EXPECT_EQ(a.seq, b.seq);
  EXPECT_EQ(a.stream, b.stream);
  EXPECT_EQ(a.thread, b.thread);
  EXPECT_EQ(a.kernel, b.kernel);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(a.grid[i], b.grid[i]) << i;
    EXPECT_EQ(a.block[i], b.block[i]) << i;
  }
  EXPECT_EQ(a.event, b.event);
  EXPECT_EQ(a.flags, b.flags);
  EXPECT_EQ(a.shared_mem, b.shared_mem);
  // The struct has no padding, so byte equality is the whole story.
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0);
}

TEST(TraceFlags, PackAndUnpack) {
  for (uint8_t api = 0; api <= 6; ++api) {
    for (bool per_thread : {false, true}) {
      const uint8_t flags = TraceFlags(api, per_thread);
      EXPECT_EQ(TraceApi(flags), api);
      EXPECT_EQ(TracePerThread(flags), per_thread);
    }
  }
}

TEST_F(TraceTest, RoundTripIsExact) {
  std::vector<TraceLaunch> written;
  {
    TraceWriter w;
    std::string error;
    ASSERT_TRUE(w.Open(path_, 4242, &error)) << error;
    EXPECT_TRUE(w.is_open());
    w.KernelName(1, Fnv1a("_Z4gemmPfS_S_"), "_Z4gemmPfS_S_");
    w.KernelName(2, Fnv1a("relu"), "relu");
    for (uint64_t seq = 0; seq < 10; ++seq) {
      written.push_back(MakeLaunch(uint32_t(seq % 2), seq, seq % 2 == 0 ? 1 : 2));
      w.Launch(written.back());
    }
    TraceLaunch graph = MakeLaunch(0, 10, 0);
    graph.event = 1;
    graph.flags = TraceFlags(3, false);
    written.push_back(graph);
    w.Launch(graph);
    TraceLaunch sync = MakeLaunch(1, 11, 0);
    sync.event = 2;
    sync.flags = TraceFlags(4, true);
    written.push_back(sync);
    w.Launch(sync);
    w.Totals(TraceTotals{10, 1, 1, 7, 3, 0});
    EXPECT_EQ(w.records(), 12u);
    w.Close();
    EXPECT_FALSE(w.is_open());
  }

  Trace t;
  std::string error;
  ASSERT_TRUE(ReadTrace(path_, &t, &error)) << error;
  EXPECT_EQ(std::memcmp(t.header.magic, kTraceMagic, sizeof kTraceMagic), 0);
  EXPECT_EQ(t.header.version, kTraceVersion);
  EXPECT_EQ(t.header.pid, 4242u);
  EXPECT_NE(t.header.start_monotonic_ns, 0u);
  EXPECT_NE(t.header.start_unix_ns, 0u);
  EXPECT_FALSE(t.truncated);
  ASSERT_EQ(t.kernel_names.size(), 2u);
  EXPECT_EQ(t.NameOf(1), "_Z4gemmPfS_S_");
  EXPECT_EQ(t.NameOf(2), "relu");
  EXPECT_EQ(t.NameOf(0), "?");
  EXPECT_EQ(t.NameOf(3), "?");
  ASSERT_EQ(t.events.size(), written.size());
  for (size_t i = 0; i < written.size(); ++i) {
    SCOPED_TRACE(i);
    ExpectSameLaunch(t.events[i].launch, written[i]);
    EXPECT_EQ(t.events[i].gpu_ns, 0u);  // nothing was sampled
  }
  ASSERT_TRUE(t.totals.has_value());
  EXPECT_EQ(t.totals->launches, 10u);
  EXPECT_EQ(t.totals->graph_launches, 1u);
  EXPECT_EQ(t.totals->syncs, 1u);
  EXPECT_EQ(t.totals->records_dropped, 7u);
  EXPECT_EQ(t.totals->samples, 3u);
}

// GPU times join their launch by (thread, seq): two threads use the same
// sequence numbers, and each time lands on its own thread's launch.
TEST_F(TraceTest, GpuTimeJoinsByThreadAndSeq) {
  {
    TraceWriter w;
    std::string error;
    ASSERT_TRUE(w.Open(path_, 1, &error)) << error;
    for (uint64_t seq = 0; seq < 4; ++seq) {
      w.Launch(MakeLaunch(0, seq, 1));
      w.Launch(MakeLaunch(7, seq, 1));
    }
    w.GpuTime(TraceGpuTime{7, 0, 2, 7002});
    w.GpuTime(TraceGpuTime{0, 0, 2, 2});
    w.GpuTime(TraceGpuTime{0, 0, 3, 3});
    w.GpuTime(TraceGpuTime{9, 0, 0, 999});   // no such thread: ignored
    w.GpuTime(TraceGpuTime{0, 0, 42, 999});  // no such launch: ignored
  }  // the destructor flushes and closes
  Trace t;
  std::string error;
  ASSERT_TRUE(ReadTrace(path_, &t, &error)) << error;
  ASSERT_EQ(t.events.size(), 8u);
  for (const TraceEvent& e : t.events) {
    uint64_t expected = 0;
    if (e.launch.thread == 7 && e.launch.seq == 2) expected = 7002;
    if (e.launch.thread == 0 && e.launch.seq == 2) expected = 2;
    if (e.launch.thread == 0 && e.launch.seq == 3) expected = 3;
    EXPECT_EQ(e.gpu_ns, expected) << "thread " << e.launch.thread << " seq " << e.launch.seq;
  }
  EXPECT_FALSE(t.totals.has_value());  // no clean exit recorded
}

// More than the writer's 256 KiB buffer: the intermediate flushes keep order.
TEST_F(TraceTest, LargeTraceSpansSeveralFlushes) {
  constexpr uint64_t kLaunches = 20'000;  // ~1.2 MB
  {
    TraceWriter w;
    std::string error;
    ASSERT_TRUE(w.Open(path_, 1, &error)) << error;
    for (uint64_t seq = 0; seq < kLaunches; ++seq) {
      w.Launch(MakeLaunch(3, seq, 1));
      if (seq % 100 == 0) w.GpuTime(TraceGpuTime{3, 0, seq, seq + 1});
    }
    w.Totals(TraceTotals{kLaunches, 0, 0, 0, kLaunches / 100, 0});
  }
  EXPECT_EQ(fs::file_size(path_),
            sizeof(TraceHeader) + kLaunches * (4 + sizeof(TraceLaunch)) +
                kLaunches / 100 * (4 + sizeof(TraceGpuTime)) + 4 + sizeof(TraceTotals));
  Trace t;
  std::string error;
  ASSERT_TRUE(ReadTrace(path_, &t, &error)) << error;
  ASSERT_EQ(t.events.size(), kLaunches);
  for (uint64_t seq = 0; seq < kLaunches; ++seq) {
    ASSERT_EQ(t.events[seq].launch.seq, seq);
    ASSERT_EQ(t.events[seq].gpu_ns, seq % 100 == 0 ? seq + 1 : 0) << seq;
  }
  ASSERT_TRUE(t.totals.has_value());
  EXPECT_EQ(t.totals->samples, kLaunches / 100);
}

// An entry's length is 16 bits: a longer name is cut to what fits.
TEST_F(TraceTest, VeryLongKernelNameIsCut) {
  const std::string name(70'000, 'k');
  {
    TraceWriter w;
    std::string error;
    ASSERT_TRUE(w.Open(path_, 1, &error)) << error;
    w.KernelName(5, Fnv1a(name), name);
    w.Launch(MakeLaunch(0, 0, 5));
  }
  Trace t;
  std::string error;
  ASSERT_TRUE(ReadTrace(path_, &t, &error)) << error;
  EXPECT_EQ(t.NameOf(5), name.substr(0, 0xffff - sizeof(TraceKernelName)));
  EXPECT_EQ(t.events.size(), 1u);
}

TEST_F(TraceTest, RenamedKernelKeepsTheLastName) {
  {
    TraceWriter w;
    std::string error;
    ASSERT_TRUE(w.Open(path_, 1, &error)) << error;
    w.KernelName(1, Fnv1a("old"), "old");
    w.KernelName(1, Fnv1a("new"), "new");
    w.KernelName(2, Fnv1a(""), "");
  }
  Trace t;
  std::string error;
  ASSERT_TRUE(ReadTrace(path_, &t, &error)) << error;
  EXPECT_EQ(t.NameOf(1), "new");
  EXPECT_EQ(t.NameOf(2), "");
}

TEST_F(TraceTest, HeaderOnlyTraceIsEmpty) {
  {
    TraceWriter w;
    std::string error;
    ASSERT_TRUE(w.Open(path_, 99, &error)) << error;
  }
  EXPECT_EQ(fs::file_size(path_), sizeof(TraceHeader));
  Trace t;
  std::string error;
  ASSERT_TRUE(ReadTrace(path_, &t, &error)) << error;
  EXPECT_EQ(t.header.pid, 99u);
  EXPECT_TRUE(t.events.empty());
  EXPECT_FALSE(t.truncated);
}

TEST_F(TraceTest, OpenFailureSaysWhy) {
  TraceWriter w;
  std::string error;
  const std::string bad = dir_ + "/no/such/dir/trace.bin";
  EXPECT_FALSE(w.Open(bad, 1, &error));
  EXPECT_FALSE(w.is_open());
  EXPECT_NE(error.find(bad), std::string::npos) << error;
  // Writing to a writer that failed to open is harmless.
  w.Launch(MakeLaunch(0, 0, 1));
  w.Flush();
  w.Close();
}

// Reopening truncates: a writer reused for a new file starts from scratch.
TEST_F(TraceTest, ReopenTruncates) {
  TraceWriter w;
  std::string error;
  ASSERT_TRUE(w.Open(path_, 1, &error)) << error;
  for (uint64_t seq = 0; seq < 5; ++seq) w.Launch(MakeLaunch(0, seq, 1));
  ASSERT_TRUE(w.Open(path_, 2, &error)) << error;
  w.Launch(MakeLaunch(0, 100, 1));
  w.Close();
  Trace t;
  ASSERT_TRUE(ReadTrace(path_, &t, &error)) << error;
  EXPECT_EQ(t.header.pid, 2u);
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].launch.seq, 100u);
}

// A process killed mid-write leaves a partial last entry: everything before it
// is read, and the trace says it was truncated.
TEST_F(TraceTest, TruncatedFileReadsWhatIsComplete) {
  {
    TraceWriter w;
    std::string error;
    ASSERT_TRUE(w.Open(path_, 1, &error)) << error;
    w.KernelName(1, Fnv1a("k"), "k");
    for (uint64_t seq = 0; seq < 3; ++seq) w.Launch(MakeLaunch(0, seq, 1));
  }
  const std::string full = ReadBytes();
  const size_t last_entry = 4 + sizeof(TraceLaunch);
  // Cut anywhere inside the last entry, including inside its 4-byte head.
  for (size_t chop = 1; chop < last_entry; ++chop) {
    SCOPED_TRACE(chop);
    WriteBytes(full.substr(0, full.size() - chop));
    Trace t;
    std::string error;
    ASSERT_TRUE(ReadTrace(path_, &t, &error)) << error;
    EXPECT_TRUE(t.truncated);
    ASSERT_EQ(t.events.size(), 2u);
    EXPECT_EQ(t.events[1].launch.seq, 1u);
    EXPECT_EQ(t.NameOf(1), "k");
  }
  // Cut exactly at an entry boundary: nothing looks truncated.
  WriteBytes(full.substr(0, full.size() - last_entry));
  Trace t;
  std::string error;
  ASSERT_TRUE(ReadTrace(path_, &t, &error)) << error;
  EXPECT_FALSE(t.truncated);
  EXPECT_EQ(t.events.size(), 2u);
}

// Every prefix of a valid trace reads without crashing (ASan watches).
TEST_F(TraceTest, EveryPrefixIsSafe) {
  {
    TraceWriter w;
    std::string error;
    ASSERT_TRUE(w.Open(path_, 1, &error)) << error;
    w.KernelName(1, Fnv1a("kern"), "kern");
    w.Launch(MakeLaunch(0, 0, 1));
    w.GpuTime(TraceGpuTime{0, 0, 0, 5});
    w.Totals(TraceTotals{1, 0, 0, 0, 1, 0});
  }
  const std::string full = ReadBytes();
  for (size_t size = 0; size < full.size(); ++size) {
    WriteBytes(full.substr(0, size));
    Trace t;
    std::string error;
    const bool ok = ReadTrace(path_, &t, &error);
    EXPECT_EQ(ok, size >= sizeof(TraceHeader)) << size;
    if (!ok) {
      EXPECT_FALSE(error.empty());
    }
  }
}

TEST_F(TraceTest, BadMagicIsRejected) {
  WriteBytes(std::string(64, 'x'));
  Trace t;
  std::string error;
  EXPECT_FALSE(ReadTrace(path_, &t, &error));
  EXPECT_NE(error.find("not an iashim trace"), std::string::npos) << error;
  EXPECT_NE(error.find(path_), std::string::npos) << error;
}

TEST_F(TraceTest, ShortFileIsRejected) {
  WriteBytes(std::string(kTraceMagic, sizeof kTraceMagic));  // magic, no header
  Trace t;
  std::string error;
  EXPECT_FALSE(ReadTrace(path_, &t, &error));
  EXPECT_FALSE(error.empty());
}

TEST_F(TraceTest, WrongVersionIsRejected) {
  {
    TraceWriter w;
    std::string error;
    ASSERT_TRUE(w.Open(path_, 1, &error)) << error;
    w.Launch(MakeLaunch(0, 0, 1));
  }
  std::string bytes = ReadBytes();
  const uint32_t version = 2;
  std::memcpy(bytes.data() + offsetof(TraceHeader, version), &version, sizeof version);
  WriteBytes(bytes);
  Trace t;
  std::string error;
  EXPECT_FALSE(ReadTrace(path_, &t, &error));
  EXPECT_NE(error.find("version 2"), std::string::npos) << error;
  EXPECT_TRUE(t.events.empty());
}

TEST_F(TraceTest, MissingFileIsAnError) {
  Trace t;
  std::string error;
  EXPECT_FALSE(ReadTrace(dir_ + "/absent.bin", &t, &error));
  EXPECT_NE(error.find("absent.bin"), std::string::npos) << error;
}

void AppendEntry(std::string* bytes, uint16_t type, const std::string& payload) {
  const uint16_t head[2] = {type, uint16_t(payload.size())};
  bytes->append(reinterpret_cast<const char*>(head), sizeof head);
  bytes->append(payload);
}

// A newer writer's entry types are skipped by their length; known types that
// are too short to hold their struct are skipped too.
TEST_F(TraceTest, UnknownAndShortEntriesAreSkipped) {
  {
    TraceWriter w;
    std::string error;
    ASSERT_TRUE(w.Open(path_, 1, &error)) << error;
    w.Launch(MakeLaunch(0, 0, 1));
  }
  std::string bytes = ReadBytes();
  AppendEntry(&bytes, 99, std::string(10, '\x01'));
  AppendEntry(&bytes, 0, "");
  AppendEntry(&bytes, 0xffff, std::string(300, '\xee'));
  AppendEntry(&bytes, uint16_t(TraceEntry::kLaunch), std::string(20, '\x02'));
  AppendEntry(&bytes, uint16_t(TraceEntry::kKernelName), std::string(8, '\x03'));
  AppendEntry(&bytes, uint16_t(TraceEntry::kGpuTime), std::string(4, '\x04'));
  AppendEntry(&bytes, uint16_t(TraceEntry::kTotals), std::string(47, '\x05'));
  const TraceLaunch after = MakeLaunch(1, 1, 2);
  AppendEntry(&bytes, uint16_t(TraceEntry::kLaunch),
              std::string(reinterpret_cast<const char*>(&after), sizeof after));
  WriteBytes(bytes);

  Trace t;
  std::string error;
  ASSERT_TRUE(ReadTrace(path_, &t, &error)) << error;
  EXPECT_FALSE(t.truncated);
  ASSERT_EQ(t.events.size(), 2u);
  ExpectSameLaunch(t.events[1].launch, after);
  EXPECT_TRUE(t.kernel_names.empty());
  EXPECT_FALSE(t.totals.has_value());
}

// An entry longer than its struct (a future version appending fields) is read
// for the fields this reader knows.
TEST_F(TraceTest, LongerKnownEntriesReadTheirPrefix) {
  {
    TraceWriter w;
    std::string error;
    ASSERT_TRUE(w.Open(path_, 1, &error)) << error;
  }
  std::string bytes = ReadBytes();
  const TraceLaunch l = MakeLaunch(2, 9, 4);
  AppendEntry(&bytes, uint16_t(TraceEntry::kLaunch),
              std::string(reinterpret_cast<const char*>(&l), sizeof l) + "extra");
  WriteBytes(bytes);
  Trace t;
  std::string error;
  ASSERT_TRUE(ReadTrace(path_, &t, &error)) << error;
  ASSERT_EQ(t.events.size(), 1u);
  ExpectSameLaunch(t.events[0].launch, l);
}

}  // namespace
}  // namespace iashim
