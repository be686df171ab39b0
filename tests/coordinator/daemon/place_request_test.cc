#include "coordinator/daemon/place_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/coordinator/daemon/daemon_messages.h"

namespace iashim::daemon {
namespace {

using ::testing::HasSubstr;
using testing::PlaceSpec;

// A plain, valid request; each test changes the fields it is about.
PlaceSpec Valid() {
  return {.job = "train-1",
          .priority = wire::Priority::Opportunistic,
          .mem_bytes = uint64_t{8} << 30,
          .host = "node-a",
          .slowdown_target = 0,
          .allowed_gpus = std::vector<int>{}};
}

absl::StatusOr<PlaceAsk> Read(const PlaceSpec& spec) {
  const std::string bytes = testing::Place(spec);
  const testing::ReceivedMessage message(bytes);
  return ReadPlaceRequest(*message.envelope()->payload_as_PlaceRequest());
}

TEST(ReadPlaceRequestTest, AValidRequestIsReadWhole) {
  PlaceSpec f = Valid();
  f.kind = "resnet50";
  f.allowed_gpus = std::vector<int>{0, 1};
  f.gpu = 1;
  f.slowdown_target = 0.2;
  f.batch = BatchIds{"slurm", "1234", "0", 0};
  const absl::StatusOr<PlaceAsk> ask = Read(f);
  ASSERT_TRUE(ask.ok()) << ask.status();
  EXPECT_EQ(ask->job, "train-1");
  EXPECT_EQ(ask->host, "node-a");
  EXPECT_EQ(ask->command, "python train.py");
  EXPECT_EQ(ask->kind, "resnet50");
  EXPECT_EQ(ask->priority, policy::Priority::kOpportunistic);
  EXPECT_EQ(ask->mem_bytes, uint64_t{8} << 30);
  EXPECT_EQ(ask->gpu, 1);
  EXPECT_DOUBLE_EQ(ask->slowdown_target, 0.2);
  EXPECT_EQ(ask->allowed_gpus, (std::set<int>{0, 1}));
  EXPECT_EQ(ask->batch.system, "slurm");
  EXPECT_EQ(ask->batch.job, "1234");
  EXPECT_EQ(ask->batch.task, 0);
}

TEST(ReadPlaceRequestTest, EachBadFieldIsNamed) {
  auto error = [](const PlaceSpec& f) {
    const absl::StatusOr<PlaceAsk> ask = Read(f);
    EXPECT_FALSE(ask.ok());
    return ask.ok() ? std::string() : std::string(ask.status().message());
  };
  PlaceSpec f = Valid();
  f.job = "bad job name";
  EXPECT_THAT(error(f), HasSubstr("job id"));
  f = Valid();
  f.kind = std::string(200, 'k');
  EXPECT_THAT(error(f), HasSubstr("kind"));
  f = Valid();
  f.slowdown_target = 11;
  EXPECT_THAT(error(f), HasSubstr("slowdown_target"));
  f = Valid();
  f.gpu = 256;
  EXPECT_THAT(error(f), HasSubstr("gpu must be"));
  f = Valid();
  f.allowed_gpus = std::vector<int>{0, 300};
  EXPECT_THAT(error(f), HasSubstr("allowed_gpus entry 300"));
  f = Valid();
  f.allowed_gpus = std::vector<int>{0};
  f.host = "";
  EXPECT_THAT(error(f), HasSubstr("allowed_gpus needs host"));
  f = Valid();
  f.allowed_gpus = std::vector<int>{0};
  f.gpu = 1;
  EXPECT_THAT(error(f), HasSubstr("gpu 1 is not in allowed_gpus"));
  f = Valid();
  f.batch = BatchIds{"Slurm!", "1234", "0", 0};
  EXPECT_THAT(error(f), HasSubstr("batch.system"));
  f = Valid();
  f.batch = BatchIds{"slurm", "1234", "0", 70000};
  EXPECT_THAT(error(f), HasSubstr("batch.task"));
}

TEST(ReadPlaceRequestTest, AGangsSizeIsReadAndOneIsTheDefault) {
  const absl::StatusOr<PlaceAsk> one = Read(Valid());
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->gpus, 1);
  PlaceSpec f = Valid();
  f.gpus = 4;
  const absl::StatusOr<PlaceAsk> gang = Read(f);
  ASSERT_TRUE(gang.ok()) << gang.status();
  EXPECT_EQ(gang->gpus, 4);
  f.gpus = kMaxGangGpus;
  EXPECT_TRUE(Read(f).ok());
}

TEST(ReadPlaceRequestTest, ABadGangSizeIsNamed) {
  auto error = [](const PlaceSpec& f) {
    const absl::StatusOr<PlaceAsk> ask = Read(f);
    EXPECT_FALSE(ask.ok());
    return ask.ok() ? std::string() : std::string(ask.status().message());
  };
  PlaceSpec f = Valid();
  f.gpus = 0;
  EXPECT_THAT(error(f), HasSubstr("gpus must be 1..64"));
  f.gpus = -3;
  EXPECT_THAT(error(f), HasSubstr("not -3"));
  f.gpus = 65;
  EXPECT_THAT(error(f), HasSubstr("gpus must be 1..64"));
  // A gang cannot be pinned to one GPU.
  f = Valid();
  f.gpus = 2;
  f.gpu = 1;
  EXPECT_THAT(error(f), HasSubstr("a gang of 2 GPUs cannot be pinned"));
  // Nor fit in fewer GPUs than it asks for.
  f = Valid();
  f.gpus = 3;
  f.allowed_gpus = std::vector<int>{0, 1};
  EXPECT_THAT(error(f), HasSubstr("gpus asks for 3 GPUs; allowed_gpus names only 2"));
}

}  // namespace
}  // namespace iashim::daemon
