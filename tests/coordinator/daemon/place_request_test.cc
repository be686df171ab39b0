#include "coordinator/daemon/place_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/wire/envelope.h"

namespace iashim::daemon {
namespace {

using ::testing::HasSubstr;

// What a client may put in a PlaceRequest; defaults are a plain, valid one.
struct Fields {
  std::string job = "train-1";
  std::string host = "node-a";
  std::string kind;
  int gpu = -1;
  double target = 0;
  std::vector<int32_t> allowed;
  bool batch = false;
  std::string batch_system = "slurm";
  int batch_task = 0;
};

class ReadPlaceRequestTest : public ::testing::Test {
 protected:
  absl::StatusOr<PlaceAsk> Read(const Fields& f) {
    fbb_.Clear();
    const auto job = fbb_.CreateString(f.job);
    const auto host = fbb_.CreateString(f.host);
    const auto command = fbb_.CreateString("python train.py");
    const auto kind = fbb_.CreateString(f.kind);
    const auto allowed = fbb_.CreateVector(f.allowed);
    flatbuffers::Offset<wire::BatchJob> batch;
    if (f.batch) {
      batch = wire::CreateBatchJobDirect(fbb_, f.batch_system.c_str(), "1234", "0", f.batch_task);
    }
    wire::PlaceRequestBuilder b(fbb_);
    b.add_job(job);
    b.add_priority(wire::Priority::Opportunistic);
    b.add_mem_bytes(uint64_t{8} << 30);
    b.add_gpu(f.gpu);
    b.add_host(host);
    b.add_command(command);
    b.add_slowdown_target(f.target);
    b.add_kind(kind);
    b.add_allowed_gpus(allowed);
    if (f.batch) b.add_batch(batch);
    wire::FinishEnvelope(fbb_, wire::Payload::PlaceRequest, b.Finish().Union());
    const wire::Envelope* e = wire::GetEnvelope(fbb_.GetBufferPointer());
    return ReadPlaceRequest(*e->payload_as_PlaceRequest());
  }

  flatbuffers::FlatBufferBuilder fbb_;
};

TEST_F(ReadPlaceRequestTest, AValidRequestIsReadWhole) {
  Fields f;
  f.kind = "resnet50";
  f.allowed = {0, 1};
  f.gpu = 1;
  f.target = 0.2;
  f.batch = true;
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

TEST_F(ReadPlaceRequestTest, EachBadFieldIsNamed) {
  auto error = [&](Fields f) {
    const absl::StatusOr<PlaceAsk> ask = Read(f);
    EXPECT_FALSE(ask.ok());
    return ask.ok() ? std::string() : std::string(ask.status().message());
  };
  Fields f;
  f.job = "bad job name";
  EXPECT_THAT(error(f), HasSubstr("job id"));
  f = {};
  f.kind = std::string(200, 'k');
  EXPECT_THAT(error(f), HasSubstr("kind"));
  f = {};
  f.target = 11;
  EXPECT_THAT(error(f), HasSubstr("slowdown_target"));
  f = {};
  f.gpu = 256;
  EXPECT_THAT(error(f), HasSubstr("gpu must be"));
  f = {};
  f.allowed = {0, 300};
  EXPECT_THAT(error(f), HasSubstr("allowed_gpus entry 300"));
  f = {};
  f.allowed = {0};
  f.host = "";
  EXPECT_THAT(error(f), HasSubstr("allowed_gpus needs host"));
  f = {};
  f.allowed = {0};
  f.gpu = 1;
  EXPECT_THAT(error(f), HasSubstr("gpu 1 is not in allowed_gpus"));
  f = {};
  f.batch = true;
  f.batch_system = "Slurm!";
  EXPECT_THAT(error(f), HasSubstr("batch.system"));
  f = {};
  f.batch = true;
  f.batch_task = 70000;
  EXPECT_THAT(error(f), HasSubstr("batch.task"));
}

}  // namespace
}  // namespace iashim::daemon
