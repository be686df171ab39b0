#include "bench/fakejob/model_profile.h"

#include <string>

#include "gtest/gtest.h"

namespace iashim::fakejob {
namespace {

constexpr char kGood[] = R"(# a comment
model tiny   # trailing comment
batch_size 8
memory_mib 1.5
host_gap_us 100
streams 2
source: made up for the test
source: second line
gemm 2 10.5 0.2 160
repeat 3
  relu 1 1.0 0.9 80
  repeat 2
    add 1 2.0 0.95 40 1
  end
end
)";

TEST(ModelProfileTest, ParsesHeaderAndExpandsCountsAndRepeats) {
  absl::StatusOr<ModelProfile> p = ParseModelProfile(kGood, "tiny.model");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->name, "tiny");
  EXPECT_EQ(p->batch_size, 8);
  EXPECT_EQ(p->memory_bytes, 1572864u);
  EXPECT_DOUBLE_EQ(p->host_gap_us, 100);
  EXPECT_EQ(p->streams, 2);
  ASSERT_EQ(p->sources.size(), 2u);
  EXPECT_EQ(p->sources[0], "made up for the test");
  // 2 gemm + 3 * (1 relu + 2 add) = 11 launches.
  ASSERT_EQ(p->launches.size(), 11u);
  const char* expected[] = {"gemm", "gemm", "relu", "add", "add", "relu",
                            "add",  "add",  "relu", "add", "add"};
  for (size_t i = 0; i < 11; ++i) EXPECT_EQ(p->launches[i].name, expected[i]);
  EXPECT_EQ(p->launches[3].stream, 1);
  EXPECT_EQ(p->launches[3].grid_blocks, 40u);
  EXPECT_EQ(p->launches[3].line, 13);
  EXPECT_DOUBLE_EQ(p->launches[0].mem_intensity, 0.2);
  EXPECT_DOUBLE_EQ(p->GpuTimeUs(), 2 * 10.5 + 3 * (1.0 + 2 * 2.0));
  EXPECT_DOUBLE_EQ(p->SoloIterationUs(), p->GpuTimeUs() + 100);
}

TEST(ModelProfileTest, MemoryBytesAndDefaultStream) {
  absl::StatusOr<ModelProfile> p =
      ParseModelProfile("model m\nmemory_bytes 4096\nhost_gap_us 0\nk 1 1 0 1\n", "m");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->memory_bytes, 4096u);
  EXPECT_EQ(p->streams, 1);
  EXPECT_EQ(p->launches[0].stream, 0);
}

struct BadCase {
  const char* what;
  std::string text;
  std::string expected;  // substring of the message, incl. "file:line"
};

class BadProfileTest : public testing::TestWithParam<BadCase> {};

constexpr char kHead[] = "model m\nmemory_mib 1\nhost_gap_us 1\n";  // 3 lines

TEST_P(BadProfileTest, ErrorNamesFileAndLine) {
  absl::StatusOr<ModelProfile> p = ParseModelProfile(GetParam().text, "x.model");
  ASSERT_FALSE(p.ok()) << GetParam().what;
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(p.status().message()).find(GetParam().expected), std::string::npos)
      << GetParam().what << ": " << p.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, BadProfileTest,
    testing::Values(
        BadCase{"unknown key", std::string(kHead) + "frobnicate 3\n",
                "x.model:4: unknown key 'frobnicate'"},
        BadCase{"too many fields", std::string(kHead) + "k 1 1 0.5 80 0 7\n", "x.model:4:"},
        BadCase{"bad name", std::string(kHead) + "9k 1 1 0.5 80\n",
                "x.model:4: bad kernel name '9k'"},
        BadCase{"zero count", std::string(kHead) + "k 0 1 0.5 80\n", "x.model:4: bad count '0'"},
        BadCase{"text count", std::string(kHead) + "k two 1 0.5 80\n",
                "x.model:4: bad count 'two'"},
        BadCase{"negative duration", std::string(kHead) + "k 1 -1 0.5 80\n",
                "x.model:4: bad duration_us '-1'"},
        BadCase{"nan duration", std::string(kHead) + "k 1 nan 0.5 80\n",
                "x.model:4: bad duration_us 'nan'"},
        BadCase{"mem above 1", std::string(kHead) + "k 1 1 1.5 80\n",
                "x.model:4: bad mem_intensity '1.5'"},
        BadCase{"zero grid", std::string(kHead) + "k 1 1 0.5 0\n",
                "x.model:4: bad grid_blocks '0'"},
        BadCase{"trailing junk", std::string(kHead) + "k 1 1 0.5 80x\n",
                "x.model:4: bad grid_blocks '80x'"},
        BadCase{"stream out of range", std::string(kHead) + "k 1 1 0.5 80 2\n",
                "x.model:4: bad stream '2'"},
        BadCase{"stream above streams", std::string(kHead) + "k 1 1 0.5 80 1\n",
                "x.model:4: stream 1 but 'streams 1'"},
        BadCase{"header after kernels", std::string(kHead) + "k 1 1 0.5 80\nstreams 2\n",
                "x.model:5: header key 'streams' after the first kernel line"},
        BadCase{"duplicate key", std::string(kHead) + "model n\n", "x.model:4: duplicate 'model'"},
        BadCase{"key without value", std::string(kHead) + "batch_size\n",
                "x.model:4: 'batch_size' takes exactly one value"},
        BadCase{"bad memory", "model m\nmemory_mib -3\n", "x.model:2: bad memory_mib '-3'"},
        BadCase{"bad gap", "model m\nhost_gap_us soon\n", "x.model:2: bad host_gap_us 'soon'"},
        BadCase{"bad streams", "streams 3\n", "x.model:1: bad streams '3'"},
        BadCase{"bad model name", "model a-b\n", "x.model:1: bad model 'a-b'"},
        BadCase{"empty source", "source:\n", "x.model:1: 'source:' needs a description"},
        BadCase{"bad repeat", std::string(kHead) + "repeat 0\n", "x.model:4: bad repeat count '0'"},
        BadCase{"end without repeat", std::string(kHead) + "end\n",
                "x.model:4: 'end' without 'repeat'"},
        BadCase{"unclosed repeat", std::string(kHead) + "repeat 2\nk 1 1 0.5 80\n",
                "x.model:4: 'repeat' without matching 'end'"},
        BadCase{"empty repeat", std::string(kHead) + "repeat 2\nend\n",
                "x.model:5: empty repeat block"},
        BadCase{"too many launches", std::string(kHead) + "repeat 1000\nk 1000 1 0.5 80\nend\n",
                "x.model:6: iteration expands to more than"},
        BadCase{"missing model", "memory_mib 1\nhost_gap_us 1\nk 1 1 0 1\n",
                "x.model:3: missing 'model"},
        BadCase{"missing memory", "model m\nhost_gap_us 1\nk 1 1 0 1\n",
                "x.model:3: missing 'memory_bytes' or 'memory_mib'"},
        BadCase{"both memory keys", std::string(kHead) + "memory_bytes 5\nk 1 1 0 1\n",
                "x.model:5: give only one of"},
        BadCase{"missing gap", "model m\nmemory_mib 1\nk 1 1 0 1\n",
                "x.model:3: missing 'host_gap_us'"},
        BadCase{"no kernels", kHead, "x.model:3: no kernel lines"},
        BadCase{"empty file", "", "x.model:1: missing 'model"}));

TEST(ModelProfileTest, LoadMissingFileIsNotFound) {
  absl::StatusOr<ModelProfile> p = LoadModelProfile("/nonexistent/x.model");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace iashim::fakejob
