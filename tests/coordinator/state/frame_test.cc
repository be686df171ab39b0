#include "coordinator/state/frame.h"

#include <string>
#include <utility>
#include <vector>

#include "coordinator/state/limits.h"
#include "gtest/gtest.h"

namespace iashim::state {
namespace {

struct Read {
  std::vector<std::string> payloads;
  std::vector<size_t> offsets;
  FrameScan scan;
};

Read ScanAll(std::string_view data) {
  Read r;
  r.scan = ScanFrames(data, [&](std::string_view payload, size_t offset) {
    r.payloads.emplace_back(payload);
    r.offsets.push_back(offset);
  });
  return r;
}

// Three frames of different sizes, and where each starts.
std::pair<std::string, std::vector<size_t>> ThreeFrames() {
  std::string data;
  std::vector<size_t> starts;
  for (const char* p : {"first payload", "second, a little longer payload", "third"}) {
    starts.push_back(data.size());
    AppendFrame(p, &data);
  }
  return {data, starts};
}

const std::vector<std::string> kAll = {"first payload", "second, a little longer payload", "third"};

TEST(FrameTest, ReadsBackWhatWasAppended) {
  auto [data, starts] = ThreeFrames();
  Read r = ScanAll(data);
  EXPECT_EQ(r.payloads, kAll);
  EXPECT_EQ(r.offsets, starts);
  EXPECT_EQ(r.scan.frames, 3u);
  EXPECT_EQ(r.scan.valid_end, data.size());
  EXPECT_EQ(r.scan.dropped_bytes(data.size()), 0u);
  EXPECT_TRUE(r.scan.problems.empty());
}

TEST(FrameTest, EmptyInputHasNoFrames) {
  Read r = ScanAll("");
  EXPECT_EQ(r.scan.frames, 0u);
  EXPECT_EQ(r.scan.valid_end, 0u);
  EXPECT_TRUE(r.scan.problems.empty());
}

TEST(FrameTest, TornTailAtEveryOffsetKeepsTheFramesBefore) {
  auto [data, starts] = ThreeFrames();
  for (size_t cut = starts[2] + 1; cut < data.size(); ++cut) {
    Read r = ScanAll(std::string_view(data).substr(0, cut));
    EXPECT_EQ(r.payloads, std::vector<std::string>(kAll.begin(), kAll.begin() + 2)) << cut;
    EXPECT_EQ(r.scan.valid_end, starts[2]) << cut;
    EXPECT_EQ(r.scan.dropped_bytes(cut), cut - starts[2]) << cut;
    EXPECT_EQ(r.scan.problems.size(), 1u) << cut;
  }
}

TEST(FrameTest, DamagedPayloadOrChecksumCostsOneFrame) {
  auto [data, starts] = ThreeFrames();
  // Every bit of the middle frame past its length field.
  for (size_t byte = starts[1] + 4; byte < starts[2]; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = data;
      damaged[byte] ^= static_cast<char>(1 << bit);
      Read r = ScanAll(damaged);
      EXPECT_EQ(r.payloads, (std::vector<std::string>{kAll[0], kAll[2]})) << byte << ":" << bit;
      EXPECT_EQ(r.scan.skipped_frames, 1u);
      EXPECT_EQ(r.scan.skipped_bytes, starts[2] - starts[1]);
      EXPECT_EQ(r.scan.valid_end, data.size());
      ASSERT_EQ(r.scan.problems.size(), 1u);
      EXPECT_NE(r.scan.problems[0].find("checksum"), std::string::npos) << r.scan.problems[0];
    }
  }
}

TEST(FrameTest, DamagedLengthEndsTheScan) {
  auto [data, starts] = ThreeFrames();
  for (size_t byte = starts[1]; byte < starts[1] + 4; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = data;
      damaged[byte] ^= static_cast<char>(1 << bit);
      Read r = ScanAll(damaged);
      EXPECT_EQ(r.payloads, std::vector<std::string>{kAll[0]}) << byte << ":" << bit;
      EXPECT_EQ(r.scan.valid_end, starts[1]);
      EXPECT_EQ(r.scan.problems.size(), 1u);
    }
  }
}

TEST(FrameTest, DamagedLastFrameIsDroppedAsATail) {
  auto [data, starts] = ThreeFrames();
  data.back() ^= 0x10;
  Read r = ScanAll(data);
  EXPECT_EQ(r.payloads, std::vector<std::string>(kAll.begin(), kAll.begin() + 2));
  EXPECT_EQ(r.scan.valid_end, starts[2]);
}

TEST(FrameTest, ZeroFilledTailIsDropped) {
  auto [data, starts] = ThreeFrames();
  const size_t good = data.size();
  data.append(4096, '\0');
  Read r = ScanAll(data);
  EXPECT_EQ(r.payloads, kAll);
  EXPECT_EQ(r.scan.valid_end, good);
  EXPECT_EQ(r.scan.dropped_bytes(data.size()), 4096u);
}

TEST(FrameTest, ImplausibleLengthIsNotFollowed) {
  std::string data;
  AppendFrame("ok", &data);
  const size_t good = data.size();
  // A header claiming more than the limit: nothing is allocated or read for it.
  const uint32_t huge = static_cast<uint32_t>(kMaxFrameBytes + 1);
  for (int i = 0; i < 4; ++i) data.push_back(static_cast<char>((huge >> (8 * i)) & 0xFF));
  data.append(4, '\0');
  Read r = ScanAll(data);
  EXPECT_EQ(r.payloads, std::vector<std::string>{"ok"});
  EXPECT_EQ(r.scan.valid_end, good);
  ASSERT_EQ(r.scan.problems.size(), 1u);
  EXPECT_NE(r.scan.problems[0].find("implausible"), std::string::npos);
}

}  // namespace
}  // namespace iashim::state
