#include "coordinator/client/release_messages.h"

#include <string>
#include <vector>

#include "coordinator/client/coordinator_client.h"
#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "tests/coordinator/client/test_messages.h"

namespace iashim::client {
namespace {

testing::Bytes EncodeReleaseReply(bool released, const char* message) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto r = wire::CreateReleaseReplyDirect(fbb, released, message);
  fbb.Finish(wire::CreateEnvelope(fbb, wire::Version::Current, 1, wire::Payload::ReleaseReply,
                                  r.Union()));
  return testing::Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

Release Decode(const testing::Bytes& bytes) {
  const Reply reply(bytes.data(), bytes.size());
  EXPECT_EQ(CheckReply(reply, wire::Payload::ReleaseReply), ReplyCheck::kUsable);
  return DecodeRelease(*reply.envelope());
}

TEST(ReleaseMessages, EncodeRequest) {
  const std::vector<uint8_t> bytes =
      EncodeReleaseRequest("slurm-1234.0.0", "0123456789abcdef0123456789abcdef");
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  ASSERT_TRUE(wire::VerifyEnvelopeBuffer(verifier));
  const wire::Envelope* envelope = wire::GetEnvelope(bytes.data());
  EXPECT_EQ(envelope->version(), wire::Version::Current);
  const wire::ReleaseRequest* r = envelope->payload_as_ReleaseRequest();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->job()->str(), "slurm-1234.0.0");
  EXPECT_EQ(r->token()->str(), "0123456789abcdef0123456789abcdef");
}

TEST(ReleaseMessages, DecodeReplies) {
  Release r = Decode(EncodeReleaseReply(true, "released job 'x'"));
  EXPECT_TRUE(r.released);
  EXPECT_EQ(r.message, "released job 'x'");

  r = Decode(EncodeReleaseReply(false, "token does not match job 'x'"));
  EXPECT_FALSE(r.released);
  EXPECT_EQ(r.message, "token does not match job 'x'");

  r = Decode(EncodeReleaseReply(false, nullptr));
  EXPECT_FALSE(r.released);
  EXPECT_EQ(r.message, "no reason given");

  // An older coordinator does not know the message: its ErrorReply is a "no".
  r = Decode(testing::EncodeErrorReply("the coordinator does not take this message"));
  EXPECT_FALSE(r.released);
  EXPECT_EQ(r.message, "the coordinator does not take this message");
}

TEST(ReleaseMessages, AReplyOfAnotherKindIsNotARelease) {
  const testing::Bytes bytes = testing::EncodePlaceReply(testing::PlaceReplyFields{});
  const Release r = DecodeRelease(*wire::GetEnvelope(bytes.data()));
  EXPECT_FALSE(r.released);
  EXPECT_EQ(r.message, "its reply was not a release reply");
}

}  // namespace
}  // namespace iashim::client
