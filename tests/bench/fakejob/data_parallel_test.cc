// A rank's place from torchrun's environment, checked variable by variable,
// and the group name every rank of one rendezvous derives alike.
#include "bench/fakejob/data_parallel.h"

#include <map>
#include <string>

#include "gtest/gtest.h"

namespace iashim::fakejob {
namespace {

EnvLookup Env(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(DataParallelTest, NoWorldSizeIsNoRank) {
  absl::StatusOr<std::optional<RankEnvironment>> r = ReadRankEnvironment(Env({{"RANK", "1"}}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->has_value());
}

TEST(DataParallelTest, TorchrunsVariablesGiveTheRankAndItsGroup) {
  absl::StatusOr<std::optional<RankEnvironment>> r = ReadRankEnvironment(
      Env({{"WORLD_SIZE", "4"}, {"RANK", "2"}, {"LOCAL_RANK", "0"},
           {"MASTER_ADDR", "10.0.0.7"}, {"MASTER_PORT", "29500"}}));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->rank, 2);
  EXPECT_EQ((*r)->world_size, 4);
  EXPECT_EQ((*r)->local_rank, 0);
  EXPECT_EQ((*r)->group, "fakejob-10.0.0.7-29500");
  // Without LOCAL_RANK, a rank's GPU is its rank.
  r = ReadRankEnvironment(Env({{"WORLD_SIZE", "2"}, {"RANK", "1"}, {"MASTER_ADDR", "h"},
                               {"MASTER_PORT", "1"}}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)->local_rank, 1);
}

TEST(DataParallelTest, BadOrMissingVariablesAreNamed) {
  const std::map<std::string, std::string> good = {
      {"WORLD_SIZE", "2"}, {"RANK", "0"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}};
  auto error_with = [&](const std::string& name, const char* value) {
    std::map<std::string, std::string> vars = good;
    if (value == nullptr) {
      vars.erase(name);
    } else {
      vars[name] = value;
    }
    absl::StatusOr<std::optional<RankEnvironment>> r = ReadRankEnvironment(Env(vars));
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  EXPECT_NE(error_with("RANK", "2").find("RANK='2' must be an integer in 0..1"), std::string::npos);
  EXPECT_NE(error_with("RANK", nullptr).find("RANK is not set"), std::string::npos);
  EXPECT_NE(error_with("WORLD_SIZE", "0").find("WORLD_SIZE='0'"), std::string::npos);
  EXPECT_NE(error_with("WORLD_SIZE", "65").find("1..64"), std::string::npos);
  EXPECT_NE(error_with("LOCAL_RANK", "x").find("LOCAL_RANK='x'"), std::string::npos);
  EXPECT_NE(error_with("MASTER_PORT", nullptr).find("MASTER_ADDR and MASTER_PORT"),
            std::string::npos);
}

TEST(DataParallelTest, GroupNamesHoldOnlyWhatSimgpuAccepts) {
  EXPECT_EQ(GroupForEndpoint("[::1]", "29500"), "fakejob-___1_-29500");
  EXPECT_EQ(GroupForEndpoint(std::string(100, 'a'), "1").size(), 63u);
}

}  // namespace
}  // namespace iashim::fakejob
