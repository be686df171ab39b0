// The collective groups in shared memory: joining checks names, sizes and who
// holds a rank; a rank of a process that has exited is taken over afresh; a
// collective is released at the last rank's arrival, and not before. With a
// fabric, groups live in <fabric>/collectives: nodes' views of one file see
// each other's ranks, know when a group spans nodes, and simulate only their
// own node's devices.
#include "simgpu/src/collective_groups.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "simgpu/src/shared_device.h"
#include "tests/simgpu/test_env.h"

namespace simgpu {
namespace {

class CollectiveGroupsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ns_ = iashim_test::UniqueNamespace("collective-groups");
    std::string error;
    groups_ = CollectiveGroups::Open(ns_, &error);
    ASSERT_NE(groups_, nullptr) << error;
  }
  void TearDown() override {
    groups_.reset();
    iashim_test::RemoveSimulatedDevices(ns_);
  }
  int Join(std::string_view name, uint32_t rank, uint32_t nranks, std::string* error) {
    return groups_->Join(name, rank, nranks, pid_, start_, /*device=*/int(rank), error);
  }
  // A pid that has exited (reaped), with a start time no live process has.
  static int32_t DeadPid() {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);
    return child;
  }

  std::string ns_;
  std::unique_ptr<CollectiveGroups> groups_;
  int32_t pid_ = static_cast<int32_t>(getpid());
  uint64_t start_ = SelfStartTicks();
};

TEST_F(CollectiveGroupsTest, BadNamesSizesAndRanksAreRefusedWithTheReason) {
  std::string error;
  EXPECT_EQ(Join("", 0, 2, &error), -1);
  EXPECT_NE(error.find("name"), std::string::npos) << error;
  EXPECT_EQ(Join("has space", 0, 2, &error), -1);
  EXPECT_EQ(Join(std::string(64, 'a'), 0, 2, &error), -1);
  EXPECT_EQ(Join("job", 2, 2, &error), -1);
  EXPECT_NE(error.find("rank 2 of 2"), std::string::npos) << error;
  EXPECT_EQ(Join("job", 0, 0, &error), -1);
  EXPECT_EQ(Join("job", 0, kMaxCollectiveRanks + 1, &error), -1);
}

TEST_F(CollectiveGroupsTest, OneProcessMayHoldSeveralRanksButNotAnotherLiveOnesRank) {
  std::string error;
  const int slot = Join("job-a", 0, 2, &error);
  ASSERT_GE(slot, 0) << error;
  EXPECT_EQ(Join("job-a", 1, 2, &error), slot);  // one process driving two devices
  EXPECT_EQ(Join("job-a", 0, 2, &error), slot);  // joining again is harmless
  // Another live process (the same pid with another start time stands for it)
  // cannot take rank 0, and the group's size is fixed while it is alive.
  EXPECT_EQ(groups_->Join("job-a", 0, 2, pid_, start_ + 1, 0, &error), -1);
  EXPECT_NE(error.find("held by live process"), std::string::npos) << error;
  EXPECT_EQ(Join("job-a", 0, 4, &error), -1);
  EXPECT_NE(error.find("has 2 ranks, not 4"), std::string::npos) << error;
  EXPECT_NE(Join("job-b", 0, 2, &error), slot);
}

TEST_F(CollectiveGroupsTest, ACollectiveIsReleasedAtTheLastArrival) {
  std::string error;
  const int g = Join("job", 0, 3, &error);
  ASSERT_GE(Join("job", 1, 3, &error), 0);
  ASSERT_GE(Join("job", 2, 3, &error), 0);
  groups_->Arrive(g, 0, 1, 100);
  groups_->Arrive(g, 2, 1, 300);
  EXPECT_FALSE(groups_->Release(g, 0, 1, 0).has_value());
  // Rank 1 asking counts its own (projected) arrival.
  EXPECT_EQ(groups_->Release(g, 1, 1, 250), 300);
  EXPECT_EQ(groups_->Release(g, 1, 1, 400), 400);
  groups_->Arrive(g, 1, 1, 200);
  groups_->Arrive(g, 1, 1, 999);  // only the first report of an arrival counts
  EXPECT_EQ(groups_->Release(g, 0, 1, 0), 300);
  // Ranks ahead on the next collective do not disturb the one being released.
  groups_->Arrive(g, 0, 2, 500);
  groups_->Arrive(g, 2, 2, 600);
  EXPECT_EQ(groups_->Release(g, 1, 1, 0), 300);
  EXPECT_FALSE(groups_->Release(g, 0, 2, 0).has_value());
  // Rank 1 (on device 1) is the one behind on collective 2.
  EXPECT_EQ(groups_->DevicesBehind(g, 2), std::vector<int>{1});
  EXPECT_TRUE(groups_->DevicesBehind(g, 1).empty());
}

TEST_F(CollectiveGroupsTest, ARankOfAnExitedProcessIsTakenOverAndStartsAgain) {
  std::string error;
  const int32_t dead = DeadPid();
  const int g = groups_->Join("rerun", 1, 2, dead, 12345, 1, &error);
  ASSERT_GE(g, 0) << error;
  groups_->Arrive(g, 1, 7, 700);
  // A new run of the same job: rank 0 joins, and the old rank 1's progress
  // must not count for it.
  ASSERT_EQ(Join("rerun", 0, 2, &error), g);
  groups_->Arrive(g, 0, 1, 10);
  EXPECT_FALSE(groups_->Release(g, 0, 1, 10).has_value());
  ASSERT_EQ(Join("rerun", 1, 2, &error), g);
  // And a group whose processes have all exited may change size.
  const int h = groups_->Join("resized", 0, 2, dead, 12345, 0, &error);
  ASSERT_GE(h, 0) << error;
  EXPECT_EQ(Join("resized", 0, 3, &error), h);
}

TEST(CollectiveGroupsPathTest, AFabricHoldsTheGroupsInsteadOfDevShm) {
  EXPECT_EQ(CollectiveGroupsPath("ns"), "/dev/shm/ns-collectives");
  EXPECT_EQ(CollectiveGroupsPath("ns", "/shared/fabric"), "/shared/fabric/collectives");
  // A node is the namespace on a host: the cluster's nodes share the namespace.
  EXPECT_NE(NodeId("simgpu-0", "node1"), NodeId("simgpu-0", "node2"));
  EXPECT_NE(NodeId("ns-a", "host"), NodeId("ns-b", "host"));
  EXPECT_EQ(NodeId("ns", "host"), NodeId("ns", "host"));
}

// A temporary fabric directory, removed with its groups file.
class FabricTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/iashim-fabric-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    unsetenv("SIMGPU_FABRIC");
    ::unlink((dir_ + "/collectives").c_str());
    ::rmdir(dir_.c_str());
  }
  std::unique_ptr<CollectiveGroups> OpenNode(uint64_t node) {
    std::string error;
    std::unique_ptr<CollectiveGroups> g =
        CollectiveGroups::OpenAt(CollectiveGroupsPath("unused", dir_), node, &error);
    EXPECT_NE(g, nullptr) << error;
    return g;
  }
  std::string dir_;
  int32_t pid_ = static_cast<int32_t>(getpid());
  uint64_t start_ = SelfStartTicks();
};

TEST_F(FabricTest, RanksOnTwoNodesMeetAndTheGroupSpansNodes) {
  const uint64_t node_a = NodeId("ns", "node-a"), node_b = NodeId("ns", "node-b");
  std::unique_ptr<CollectiveGroups> a = OpenNode(node_a), b = OpenNode(node_b);
  ASSERT_TRUE(a && b);
  std::string error;
  // "dp": ranks 0, 1 on node a's devices 0, 1; ranks 2, 3 on node b's 0, 1.
  const int g = a->Join("dp", 0, 4, pid_, start_, 0, &error);
  ASSERT_GE(g, 0) << error;
  ASSERT_EQ(a->Join("dp", 1, 4, pid_, start_, 1, &error), g) << error;
  ASSERT_EQ(b->Join("dp", 2, 4, pid_, start_, 0, &error), g) << error;
  ASSERT_EQ(b->Join("dp", 3, 4, pid_, start_, 1, &error), g) << error;
  EXPECT_TRUE(a->SpansNodes(g));
  EXPECT_TRUE(b->SpansNodes(g));
  // Each node simulates only its own ranks' devices: the same device numbers
  // on the other node are another node's GPUs.
  a->Arrive(g, 0, 1, 100);
  b->Arrive(g, 2, 1, 200);
  EXPECT_EQ(a->DevicesBehind(g, 1), std::vector<int>{1});
  EXPECT_EQ(b->DevicesBehind(g, 1), std::vector<int>{1});
  a->Arrive(g, 1, 1, 300);
  EXPECT_TRUE(a->DevicesBehind(g, 1).empty());
  EXPECT_FALSE(a->Release(g, 0, 1, 0).has_value());
  b->Arrive(g, 3, 1, 400);
  EXPECT_EQ(a->Release(g, 0, 1, 0), 400);
  EXPECT_EQ(b->Release(g, 2, 1, 0), 400);
  // A group within node b keeps to it.
  const int h = b->Join("local", 0, 2, pid_, start_, 2, &error);
  ASSERT_GE(h, 0) << error;
  ASSERT_EQ(b->Join("local", 1, 2, pid_, start_, 3, &error), h) << error;
  EXPECT_FALSE(a->SpansNodes(h));
  EXPECT_FALSE(b->SpansNodes(h));
  EXPECT_TRUE(a->DevicesBehind(h, 1).empty());  // node a has none of its devices
  EXPECT_EQ(b->DevicesBehind(h, 1), (std::vector<int>{2, 3}));
}

TEST_F(FabricTest, SimgpuFabricPutsTheNamespacesGroupsInTheDirectory) {
  const std::string ns = iashim_test::UniqueNamespace("fabric-env");
  ASSERT_EQ(setenv("SIMGPU_FABRIC", dir_.c_str(), 1), 0);
  NamespaceCollectives collectives(ns);
  ASSERT_NE(collectives.Get(), nullptr);
  struct stat st;
  EXPECT_EQ(::stat((dir_ + "/collectives").c_str(), &st), 0);
  EXPECT_NE(::stat(CollectiveGroupsPath(ns).c_str(), &st), 0) << "nothing in /dev/shm";
}

TEST_F(FabricTest, ABadSimgpuFabricIsReportedAndCollectivesCannotComplete) {
  const std::string ns = iashim_test::UniqueNamespace("fabric-bad");
  ASSERT_EQ(setenv("SIMGPU_FABRIC", "relative/fabric", 1), 0);
  ::testing::internal::CaptureStderr();
  NamespaceCollectives first(ns), second(ns);
  EXPECT_EQ(first.Get(), nullptr);
  EXPECT_EQ(second.Get(), nullptr);  // a second device of the process: said once
  EXPECT_FALSE(first.Release(0, 0, 1, 0).has_value());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err,
            "simgpu: SIMGPU_FABRIC='relative/fabric' is invalid: not an absolute path: give the "
            "absolute path of an existing, writable directory that the nodes share, or unset it; "
            "collectives cannot complete\n");
  struct stat st;
  EXPECT_NE(::stat(CollectiveGroupsPath(ns).c_str(), &st), 0) << "no fallback to /dev/shm";
}

}  // namespace
}  // namespace simgpu
