#include "bench/fakejob/checkpoint.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace iashim::fakejob {
namespace {

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("fakejob-checkpoint-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "job.ckpt").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Put(const std::string& text) const { std::ofstream(path_) << text; }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(CheckpointTest, NoneYetIsTheFirstIteration) {
  absl::StatusOr<int64_t> done = ReadCheckpoint(path_);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(*done, 0);
}

TEST_F(CheckpointTest, WhatIsWrittenIsReadBackAndNothingIsLeftBeside) {
  ASSERT_TRUE(WriteCheckpoint(path_, 1234).ok());
  ASSERT_TRUE(WriteCheckpoint(path_, 5678).ok());
  absl::StatusOr<int64_t> done = ReadCheckpoint(path_);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(*done, 5678);
  // The temporary file was renamed over it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            1);
  Put("iterations 7");  // no newline: still whole
  EXPECT_EQ(*ReadCheckpoint(path_), 7);
}

TEST_F(CheckpointTest, AnotherFileIsRefusedNamingIt) {
  for (const char* text : {"", "junk\n", "iterations\n", "iterations -3\n", "iterations 4x\n",
                           "steps 12\n"}) {
    Put(text);
    absl::StatusOr<int64_t> done = ReadCheckpoint(path_);
    ASSERT_FALSE(done.ok()) << "'" << text << "'";
    EXPECT_NE(done.status().message().find(path_), std::string::npos) << done.status();
    EXPECT_NE(done.status().message().find("remove it"), std::string::npos) << done.status();
  }
}

TEST_F(CheckpointTest, AnUnwritablePlaceIsAnErrorNotASilentLoss) {
  const std::string nowhere = (dir_ / "gone" / "job.ckpt").string();
  const absl::Status s = WriteCheckpoint(nowhere, 3);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(nowhere), std::string::npos) << s;
  EXPECT_FALSE(WriteCheckpoint(path_, -1).ok());
}

}  // namespace
}  // namespace iashim::fakejob
