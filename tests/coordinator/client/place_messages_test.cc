#include "coordinator/client/place_messages.h"

#include <string>
#include <vector>

#include "coordinator/client/coordinator_client.h"
#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "tests/coordinator/client/test_messages.h"

namespace iashim::client {
namespace {

using testing::EncodeErrorReply;
using testing::EncodePlaceReply;
using testing::PlaceReplyFields;

Placement Decode(const testing::Bytes& bytes) {
  const Reply reply(bytes.data(), bytes.size());
  EXPECT_EQ(CheckReply(reply, wire::Payload::PlaceReply), ReplyCheck::kUsable);
  return DecodePlacement(*reply.envelope());
}

TEST(PlaceMessages, JoinCommand) {
  EXPECT_EQ(JoinCommand({"python", "train.py", "--lr", "0.1"}, 256), "python train.py --lr 0.1");
  EXPECT_EQ(JoinCommand({}, 256), "");
  EXPECT_EQ(JoinCommand({"abcdef", "gh"}, 4), "abcd");
  EXPECT_EQ(JoinCommand({std::string(300, 'x')}, 256), std::string(256, 'x'));
  // "é" is two bytes; a cut through it backs off to before it.
  EXPECT_EQ(JoinCommand({"ab\xc3\xa9"}, 3), "ab");
  EXPECT_EQ(JoinCommand({"ab\xc3\xa9"}, 4), "ab\xc3\xa9");
}

TEST(PlaceMessages, EncodeRequestCarriesEveryField) {
  PlacementOptions p;
  p.job = "bert";
  p.priority = Priority::kOpportunistic;
  p.mem_bytes = 123;
  p.gpu = 5;
  p.slowdown_target = 0.2;
  p.kind = "ResNet-50 (batch size 64)";
  const std::vector<uint8_t> bytes = EncodePlaceRequest(p, "node-a", "python x.py", 4242);
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  ASSERT_TRUE(wire::VerifyEnvelopeBuffer(verifier));
  const wire::Envelope* envelope = wire::GetEnvelope(bytes.data());
  EXPECT_EQ(envelope->version(), wire::Version::Current);
  EXPECT_EQ(envelope->pid(), 4242);
  const wire::PlaceRequest* r = envelope->payload_as_PlaceRequest();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->job()->str(), "bert");
  EXPECT_EQ(r->priority(), wire::Priority::Opportunistic);
  EXPECT_EQ(r->mem_bytes(), 123u);
  EXPECT_EQ(r->gpu(), 5);
  EXPECT_EQ(r->host()->str(), "node-a");
  EXPECT_EQ(r->command()->str(), "python x.py");
  EXPECT_DOUBLE_EQ(r->slowdown_target(), 0.2);
  ASSERT_NE(r->kind(), nullptr);
  EXPECT_EQ(r->kind()->str(), "ResNet-50 (batch size 64)");
}

TEST(PlaceMessages, EncodeRequestDefaultsMeanAuto) {
  const std::vector<uint8_t> bytes = EncodePlaceRequest(PlacementOptions{}, "h", "", 1);
  const wire::PlaceRequest* r = wire::GetEnvelope(bytes.data())->payload_as_PlaceRequest();
  EXPECT_EQ(r->gpu(), -1);
  EXPECT_EQ(r->mem_bytes(), 0u);
  EXPECT_EQ(r->priority(), wire::Priority::Guaranteed);
  EXPECT_EQ(r->job()->str(), "");
  // No allowed GPUs, no batch ids, not a dry run: left out.
  EXPECT_EQ(r->allowed_gpus(), nullptr);
  EXPECT_EQ(r->batch(), nullptr);
  EXPECT_FALSE(r->dry_run());
}

TEST(PlaceMessages, EncodeRequestCarriesAllowedGpusBatchIdsAndDryRun) {
  PlacementOptions p;
  p.allowed_gpus = {0, 3};
  p.dry_run = true;
  p.batch = {"slurm", "1234", "batch", 2};
  const std::vector<uint8_t> bytes = EncodePlaceRequest(p, "node-a", "", 1);
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  ASSERT_TRUE(wire::VerifyEnvelopeBuffer(verifier));
  const wire::PlaceRequest* r = wire::GetEnvelope(bytes.data())->payload_as_PlaceRequest();
  ASSERT_NE(r, nullptr);
  ASSERT_NE(r->allowed_gpus(), nullptr);
  EXPECT_EQ(std::vector<int>(r->allowed_gpus()->begin(), r->allowed_gpus()->end()),
            (std::vector<int>{0, 3}));
  EXPECT_TRUE(r->dry_run());
  ASSERT_NE(r->batch(), nullptr);
  EXPECT_EQ(r->batch()->system()->str(), "slurm");
  EXPECT_EQ(r->batch()->job()->str(), "1234");
  EXPECT_EQ(r->batch()->step()->str(), "batch");
  EXPECT_EQ(r->batch()->task(), 2);
  // Batch ids without a system are not sent.
  p.batch.system.clear();
  const std::vector<uint8_t> without = EncodePlaceRequest(p, "node-a", "", 1);
  EXPECT_EQ(wire::GetEnvelope(without.data())->payload_as_PlaceRequest()->batch(), nullptr);
}

TEST(PlaceMessages, DecodeDryRun) {
  PlaceReplyFields f;
  f.dry_run = true;
  Placement p = Decode(EncodePlaceReply(f));
  EXPECT_EQ(p.outcome, Placement::Outcome::kPlaced);
  EXPECT_TRUE(p.dry_run);
  EXPECT_TRUE(p.token.empty());
  f.dry_run = false;
  f.token = "0123456789abcdef0123456789abcdef";
  p = Decode(EncodePlaceReply(f));
  EXPECT_FALSE(p.dry_run);
  EXPECT_EQ(p.token, "0123456789abcdef0123456789abcdef");
}

TEST(PlaceMessages, DecodePlaced) {
  PlaceReplyFields f;
  f.host = "node-a";
  const Placement p = Decode(EncodePlaceReply(f));
  EXPECT_EQ(p.outcome, Placement::Outcome::kPlaced);
  EXPECT_EQ(p.job, "job-1");
  EXPECT_EQ(p.host, "node-a");
  EXPECT_EQ(p.gpu, 1);
  EXPECT_EQ(p.gpu_uuid, "GPU-1111");
  EXPECT_DOUBLE_EQ(p.share, 0.5);
  EXPECT_EQ(p.mem_limit_bytes, uint64_t{16} << 30);
}

TEST(PlaceMessages, DecodeAGangsGpus) {
  PlaceReplyFields f;
  f.gpu = 2;
  f.gpu_uuid = "GPU-2";
  f.gpus = {2, 3, 0};
  f.gpu_uuids = {"GPU-2", "GPU-3", "GPU-0"};
  Placement p = Decode(EncodePlaceReply(f));
  EXPECT_EQ(p.outcome, Placement::Outcome::kPlaced);
  EXPECT_EQ(p.gpu, 2);
  EXPECT_EQ(p.gpus, (std::vector<int>{2, 3, 0}));
  EXPECT_EQ(p.gpu_uuids, (std::vector<std::string>{"GPU-2", "GPU-3", "GPU-0"}));
  // In rank order, as the coordinator listed them.
  EXPECT_EQ(VisibleDevices(p), "2,3,0");
  RefuseShortGang(3, &p);
  EXPECT_EQ(p.outcome, Placement::Outcome::kPlaced);
}

TEST(PlaceMessages, ACoordinatorFromBeforeGangsPlacesOneGpu) {
  PlaceReplyFields f;  // no gpu_indices
  Placement p = Decode(EncodePlaceReply(f));
  EXPECT_EQ(p.gpus, (std::vector<int>{1}));
  EXPECT_EQ(p.gpu_uuids, (std::vector<std::string>{"GPU-1111"}));
  EXPECT_EQ(VisibleDevices(p), "1");
  RefuseShortGang(1, &p);
  EXPECT_EQ(p.outcome, Placement::Outcome::kPlaced);
  // Asked for four, it placed one: the ranks would find one GPU.
  RefuseShortGang(4, &p);
  EXPECT_EQ(p.outcome, Placement::Outcome::kRefused);
  EXPECT_EQ(p.reason,
            "it placed 1 of the 4 GPUs asked (a coordinator from before gangs ignores the GPU "
            "count)");
}

TEST(PlaceMessages, EncodeRequestCarriesTheGpuCount) {
  PlacementOptions o;
  EXPECT_EQ(wire::GetEnvelope(EncodePlaceRequest(o, "node-a", "", 1).data())
                ->payload_as_PlaceRequest()
                ->gpus(),
            1);
  o.gpus = 8;
  EXPECT_EQ(wire::GetEnvelope(EncodePlaceRequest(o, "node-a", "", 1).data())
                ->payload_as_PlaceRequest()
                ->gpus(),
            8);
}

TEST(PlaceMessages, DecodeQueuedRefusedAndError) {
  PlaceReplyFields queued;
  queued.ok = false;
  queued.queued = true;
  queued.error = "all GPUs busy";
  Placement p = Decode(EncodePlaceReply(queued));
  EXPECT_EQ(p.outcome, Placement::Outcome::kQueued);
  EXPECT_EQ(p.reason, "all GPUs busy");

  // Queued wins over ok: the job has not been placed yet.
  queued.ok = true;
  queued.error = "";
  p = Decode(EncodePlaceReply(queued));
  EXPECT_EQ(p.outcome, Placement::Outcome::kQueued);
  EXPECT_EQ(p.reason, "no GPU fits now");

  PlaceReplyFields refused;
  refused.ok = false;
  refused.error = "needs 200 GiB";
  p = Decode(EncodePlaceReply(refused));
  EXPECT_EQ(p.outcome, Placement::Outcome::kRefused);
  EXPECT_EQ(p.reason, "needs 200 GiB");

  refused.error = "";
  EXPECT_EQ(Decode(EncodePlaceReply(refused)).reason, "no reason given");

  p = Decode(EncodeErrorReply("overloaded"));
  EXPECT_EQ(p.outcome, Placement::Outcome::kRefused);
  EXPECT_EQ(p.reason, "overloaded");
}

}  // namespace
}  // namespace iashim::client
