#include "coordinator/cluster/cluster_file.h"

#include <unistd.h>

#include <fstream>
#include <ostream>
#include <string>

#include "gtest/gtest.h"

namespace iashim::cluster {
namespace {

using policy::GpuId;

constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(ClusterFileTest, ParsesNodesRangesAndOptionalFields) {
  const char* text =
      "# The lab cluster\n"
      "node gpu-01.lab\n"
      "  gpu 0-1 v100 32GiB name=\"Tesla V100-SXM2-32GB\"\n"
      "  gpu 2 v100 34359738368 uuid=GPU-0a1b2c3d-0000-1111-2222-333344445555  # bytes\n"
      "\n"
      "node gpu-02   # a comment after a node\r\n"
      "\tgpu 0 a100 80GB uuid=GPU-ff name=\"A100 #1 \\\"spare\\\" \\\\\"\r\n";
  absl::StatusOr<policy::Cluster> cluster = ParseClusterText(text, "c.txt");
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ASSERT_EQ(cluster->gpus.size(), 4u);

  const policy::GpuInfo& g0 = cluster->gpus[0];
  EXPECT_EQ(g0.id, (GpuId{"gpu-01.lab", 0}));
  EXPECT_EQ(g0.type, "v100");
  EXPECT_EQ(g0.name, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(g0.uuid, "");
  EXPECT_EQ(g0.memory_bytes, 32 * kGiB);

  EXPECT_EQ(cluster->gpus[1].id, (GpuId{"gpu-01.lab", 1}));
  EXPECT_EQ(cluster->gpus[1].name, "Tesla V100-SXM2-32GB");

  const policy::GpuInfo& g2 = cluster->gpus[2];
  EXPECT_EQ(g2.id, (GpuId{"gpu-01.lab", 2}));
  EXPECT_EQ(g2.name, "");
  EXPECT_EQ(g2.uuid, "GPU-0a1b2c3d-0000-1111-2222-333344445555");
  EXPECT_EQ(g2.memory_bytes, 32 * kGiB);

  const policy::GpuInfo& g3 = cluster->gpus[3];
  EXPECT_EQ(g3.id, (GpuId{"gpu-02", 0}));
  EXPECT_EQ(g3.type, "a100");
  EXPECT_EQ(g3.name, "A100 #1 \"spare\" \\");
  EXPECT_EQ(g3.uuid, "GPU-ff");
  EXPECT_EQ(g3.memory_bytes, uint64_t{80'000'000'000});
}

TEST(ClusterFileTest, KeepsFileOrderAndAcceptsTheLimits) {
  absl::StatusOr<policy::Cluster> cluster = ParseClusterText(
      "node b\ngpu 255 h200 16TiB\ngpu 0 h200 256MiB\nnode a\ngpu 0 t4 16GiB", "c.txt");
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ASSERT_EQ(cluster->gpus.size(), 3u);
  EXPECT_EQ(cluster->gpus[0].id, (GpuId{"b", 255}));
  EXPECT_EQ(cluster->gpus[0].memory_bytes, uint64_t{16} << 40);
  EXPECT_EQ(cluster->gpus[1].id, (GpuId{"b", 0}));
  EXPECT_EQ(cluster->gpus[1].memory_bytes, uint64_t{256} << 20);
  EXPECT_EQ(cluster->gpus[2].id, (GpuId{"a", 0}));
}

struct RejectCase {
  const char* name;
  const char* text;
  const char* error;
};

// What ctest shows after the test's name: a stable word, not the bytes of the
// struct (pointers that change from run to run).
void PrintTo(const RejectCase& c, std::ostream* os) { *os << c.name; }

class ClusterFileRejectTest : public testing::TestWithParam<RejectCase> {};

TEST_P(ClusterFileRejectTest, NamesFileLineAndProblem) {
  absl::StatusOr<policy::Cluster> cluster = ParseClusterText(GetParam().text, "c.txt");
  ASSERT_FALSE(cluster.ok()) << "accepted: " << GetParam().text;
  EXPECT_EQ(cluster.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cluster.status().message(), GetParam().error);
}

constexpr const char* kNoGpus =
    "c.txt: defines no GPUs (expected a 'node NAME' line followed by 'gpu INDEX TYPE MEMORY' "
    "lines)";

INSTANTIATE_TEST_SUITE_P(
    Cases, ClusterFileRejectTest,
    testing::Values(
        RejectCase{"Empty", "", kNoGpus}, RejectCase{"OnlyComments", "# nothing\n\n   \n", kNoGpus},
        RejectCase{"UnknownKeyword", "node a\ngpus 0 v100 32GiB\n",
                   "c.txt:2: unknown keyword 'gpus' (expected 'node' or 'gpu')"},
        RejectCase{"GpuBeforeNode", "gpu 0 v100 32GiB\n",
                   "c.txt:1: 'gpu' line before any 'node' line"},
        RejectCase{"NodeWithoutName", "node\n",
                   "c.txt:1: 'node' needs a NAME (the node's host name)"},
        RejectCase{"NodeExtraField", "node a b\n", "c.txt:1: unexpected 'b' after the node name"},
        RejectCase{"BadNodeName", "node -a\n",
                   "c.txt:1: invalid node name '-a': use a host name (letters, digits, '.', "
                   "'-', '_', at most 253)"},
        RejectCase{"NodeWithoutGpus", "node a\n", "c.txt:1: node 'a' has no 'gpu' lines"},
        RejectCase{"EarlierNodeWithoutGpus", "node a\nnode b\ngpu 0 v100 32GiB\n",
                   "c.txt:1: node 'a' has no 'gpu' lines"},
        RejectCase{"DuplicateNode", "node a\ngpu 0 v100 32GiB\nnode a\n",
                   "c.txt:3: node 'a' is already defined at line 1"},
        RejectCase{"DuplicateGpu", "node a\ngpu 0 v100 32GiB\n# x\ngpu 0 v100 32GiB\n",
                   "c.txt:4: GPU 0 of node 'a' is already defined at line 2"},
        RejectCase{"OverlappingRange", "node a\ngpu 0-3 v100 32GiB\ngpu 2 v100 32GiB\n",
                   "c.txt:3: GPU 2 of node 'a' is already defined at line 2"},
        RejectCase{"GpuWithoutFields", "node a\ngpu\n",
                   "c.txt:2: 'gpu' line is missing INDEX, TYPE and MEMORY (expected 'gpu INDEX "
                   "TYPE MEMORY [name=\"...\"] [uuid=GPU-...]')"},
        RejectCase{"GpuWithoutTypeAndMemory", "node a\ngpu 0\n",
                   "c.txt:2: 'gpu' line is missing TYPE and MEMORY (expected 'gpu INDEX TYPE "
                   "MEMORY [name=\"...\"] [uuid=GPU-...]')"},
        RejectCase{"GpuWithoutMemory", "node a\ngpu 0 v100 name=x\n",
                   "c.txt:2: 'gpu' line is missing MEMORY (expected 'gpu INDEX TYPE MEMORY "
                   "[name=\"...\"] [uuid=GPU-...]')"},
        RejectCase{"IndexTooLarge", "node a\ngpu 256 v100 32GiB\n",
                   "c.txt:2: invalid GPU index '256': expected an integer 0..255 or a range "
                   "such as 0-7"},
        RejectCase{"NegativeIndex", "node a\ngpu -1 v100 32GiB\n",
                   "c.txt:2: invalid GPU index '-1': expected an integer 0..255 or a range "
                   "such as 0-7"},
        RejectCase{"BadRange", "node a\ngpu 0-x v100 32GiB\n",
                   "c.txt:2: invalid GPU index '0-x': expected an integer 0..255 or a range "
                   "such as 0-7"},
        RejectCase{"EmptyRange", "node a\ngpu 3-1 v100 32GiB\n",
                   "c.txt:2: GPU range '3-1' is empty (FIRST > LAST)"},
        RejectCase{"UppercaseType", "node a\ngpu 0 V100 32GiB\n",
                   "c.txt:2: invalid GPU type 'V100': use lowercase letters, digits, '-' and "
                   "'_', such as v100 or a100"},
        RejectCase{"BadMemoryUnit", "node a\ngpu 0 v100 32XB\n",
                   "c.txt:2: invalid memory size '32XB': expected a number with a unit such as "
                   "32GiB or 80GB, or a byte count"},
        RejectCase{"AmbiguousMemoryUnit", "node a\ngpu 0 v100 80G\n",
                   "c.txt:2: ambiguous memory size '80G': write 80GiB (binary) or 80GB "
                   "(decimal)"},
        RejectCase{"MemoryTooSmall", "node a\ngpu 0 v100 1MiB\n",
                   "c.txt:2: memory size '1MiB' is outside 256MiB..16TiB; is the unit right?"},
        RejectCase{"MemoryTooLarge", "node a\ngpu 0 v100 32TiB\n",
                   "c.txt:2: memory size '32TiB' is outside 256MiB..16TiB; is the unit right?"},
        RejectCase{"MemoryOverflow", "node a\ngpu 0 v100 99999999999999999999999\n",
                   "c.txt:2: invalid memory size '99999999999999999999999': expected a number "
                   "with a unit such as 32GiB or 80GB, or a byte count"},
        RejectCase{"ExtraPositional", "node a\ngpu 0 v100 32GiB extra\n",
                   "c.txt:2: unexpected 'extra' after MEMORY (optional fields are name=\"...\" "
                   "and uuid=GPU-...)"},
        RejectCase{"UnknownField", "node a\ngpu 0 v100 32GiB color=red\n",
                   "c.txt:2: unknown field 'color=' (expected name= or uuid=)"},
        RejectCase{"FieldTwice", "node a\ngpu 0 v100 32GiB name=x name=y\n",
                   "c.txt:2: 'name=' is given twice"},
        RejectCase{"EmptyField", "node a\ngpu 0 v100 32GiB name=\n", "c.txt:2: 'name=' is empty"},
        RejectCase{"UnterminatedQuote", "node a\ngpu 0 v100 32GiB name=\"Tesla\n",
                   "c.txt:2: unterminated quote"},
        RejectCase{"UnknownEscape", "node a\ngpu 0 v100 32GiB name=\"a\\tb\"\n",
                   "c.txt:2: unknown escape '\\t' in quotes (only \\\" and \\\\)"},
        RejectCase{"BadUuid", "node a\ngpu 0 v100 32GiB uuid=1234\n",
                   "c.txt:2: invalid uuid '1234': expected GPU- and hex digits, as nvidia-smi -L "
                   "prints"},
        RejectCase{"UuidForRange", "node a\ngpu 0-1 v100 32GiB uuid=GPU-12\n",
                   "c.txt:2: uuid= cannot be given for a range of GPUs (each GPU has its own)"},
        RejectCase{"DuplicateUuid",
                   "node a\ngpu 0 v100 32GiB uuid=GPU-12\nnode b\ngpu 0 v100 32GiB uuid=GPU-12\n",
                   "c.txt:4: uuid 'GPU-12' is already used at line 2"},
        RejectCase{"ControlCharacter", "node a\ngpu 0 v100\x01 32GiB\n",
                   "c.txt:2: control character 0x01"}));

TEST(ClusterFileTest, RejectsOverlongLinesAndNames) {
  const std::string long_line = "node a\n# " + std::string(kMaxLineBytes, 'x') + "\n";
  EXPECT_EQ(ParseClusterText(long_line, "c.txt").status().message(),
            "c.txt:2: line is longer than 4096 bytes");
  const std::string long_name = "node a\ngpu 0 v100 32GiB name=" + std::string(96, 'n') + "\n";
  EXPECT_EQ(ParseClusterText(long_name, "c.txt").status().message(),
            "c.txt:2: name is longer than 95 bytes");
}

TEST(ClusterFileTest, RejectsMoreGpusThanTheLimit) {
  std::string text;
  for (int node = 0; node * 256 <= kMaxGpus; ++node) {
    text += "node n" + std::to_string(node) + "\ngpu 0-255 v100 32GiB\n";
  }
  absl::StatusOr<policy::Cluster> cluster = ParseClusterText(text, "c.txt");
  ASSERT_FALSE(cluster.ok());
  EXPECT_EQ(cluster.status().message(), "c.txt:514: more than 65536 GPUs in the file");
}

class ClusterFileReadTest : public testing::Test {
 protected:
  std::string Path(const std::string& name) {
    return testing::TempDir() + "/cluster_file_test_" + std::to_string(::getpid()) + "_" + name;
  }
};

TEST_F(ClusterFileReadTest, ReadsAFileAndNamesItInErrors) {
  const std::string good = Path("good");
  std::ofstream(good) << "node a\ngpu 0 v100 32GiB\n";
  absl::StatusOr<policy::Cluster> cluster = ReadClusterFile(good);
  ::unlink(good.c_str());
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  EXPECT_EQ(cluster->gpus.size(), 1u);

  const std::string bad = Path("bad");
  std::ofstream(bad) << "node a\ngpu 0 v100 32GiB\ngpu 0 v100 32GiB\n";
  cluster = ReadClusterFile(bad);
  ::unlink(bad.c_str());
  EXPECT_EQ(cluster.status().message(), bad + ":3: GPU 0 of node 'a' is already defined at line 2");
}

TEST_F(ClusterFileReadTest, ReportsFilesThatCannotBeRead) {
  const std::string missing = Path("missing");
  absl::StatusOr<policy::Cluster> cluster = ReadClusterFile(missing);
  EXPECT_EQ(cluster.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(cluster.status().message(),
            "cannot read cluster file '" + missing + "': No such file or directory");

  cluster = ReadClusterFile(testing::TempDir());
  EXPECT_EQ(cluster.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(cluster.status().message(),
            "cannot read cluster file '" + testing::TempDir() + "': Is a directory");
}

}  // namespace
}  // namespace iashim::cluster
