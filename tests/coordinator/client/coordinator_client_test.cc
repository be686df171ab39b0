#include "coordinator/client/coordinator_client.h"

#include <chrono>
#include <string>
#include <vector>

#include "coordinator/client/place_messages.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/coordinator/client/fake_coordinator.h"
#include "tests/coordinator/client/test_messages.h"

namespace iashim::client {
namespace {

using testing::Bytes;
using testing::FakeCoordinator;
using ::testing::HasSubstr;
using testing::PlaceReplyFields;
using testing::SeenRequest;

const std::vector<uint8_t> kRequest = EncodePlaceRequest(PlacementOptions{}, "h", "cmd", 1);

RequestResult Ask(const std::string& endpoint, double timeout_s = 2.0,
                  std::function<bool()> interrupted = nullptr) {
  RequestSpec spec;
  spec.endpoint = endpoint;
  spec.request = kRequest;
  spec.expected = wire::Payload::PlaceReply;
  spec.timeout_s = timeout_s;
  spec.interrupted = std::move(interrupted);
  return Request(spec);
}

FakeCoordinator::Responder Always(std::vector<Bytes> replies) {
  return [replies](const SeenRequest&, int) { return replies; };
}

TEST(CoordinatorClient, ReplyArrives) {
  FakeCoordinator fake(Always({testing::EncodePlaceReply(PlaceReplyFields{})}));
  const RequestResult r = Ask(fake.endpoint());
  ASSERT_EQ(r.status, RequestStatus::kOk) << r.detail;
  EXPECT_EQ(r.reply.envelope()->payload_type(), wire::Payload::PlaceReply);
  EXPECT_EQ(DecodePlacement(*r.reply.envelope()).job, "job-1");
  ASSERT_EQ(fake.requests().size(), 1u);
  EXPECT_EQ(fake.requests()[0].type, wire::Payload::PlaceRequest);
  EXPECT_EQ(fake.requests()[0].command, "cmd");
}

TEST(CoordinatorClient, SkipsUnrelatedAndInvalidMessagesBeforeTheAnswer) {
  FakeCoordinator fake(Always({Bytes{1, 2, 3}, testing::EncodeAdvice("hello"),
                               testing::EncodePlaceReply(PlaceReplyFields{})}));
  const RequestResult r = Ask(fake.endpoint());
  ASSERT_EQ(r.status, RequestStatus::kOk) << r.detail;
  EXPECT_EQ(r.reply.envelope()->payload_type(), wire::Payload::PlaceReply);
}

TEST(CoordinatorClient, ToleratesAnEmptyDelimiterFrame) {
  FakeCoordinator fake(Always({testing::EncodePlaceReply(PlaceReplyFields{})}),
                       /*with_delimiter=*/true);
  EXPECT_EQ(Ask(fake.endpoint()).status, RequestStatus::kOk);
}

TEST(CoordinatorClient, ErrorReplyIsAnAnswer) {
  FakeCoordinator fake(Always({testing::EncodeErrorReply("busy")}));
  const RequestResult r = Ask(fake.endpoint());
  ASSERT_EQ(r.status, RequestStatus::kOk);
  EXPECT_EQ(r.reply.envelope()->payload_type(), wire::Payload::ErrorReply);
}

TEST(CoordinatorClient, SilenceTimesOut) {
  FakeCoordinator fake(Always({}));
  const auto start = std::chrono::steady_clock::now();
  const RequestResult r = Ask(fake.endpoint(), 0.3);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.status, RequestStatus::kNoReply);
  EXPECT_EQ(r.detail, "no reply in 0.3 s");
  EXPECT_GE(elapsed, 0.29);
  EXPECT_LT(elapsed, 2.0);
}

TEST(CoordinatorClient, NothingListening) {
  testing::TempDir dir;
  const RequestResult r = Ask("ipc://" + dir.path() + "/nobody", 0.2);
  EXPECT_EQ(r.status, RequestStatus::kNoReply);
  EXPECT_EQ(r.detail, "no reply in 0.2 s");
}

TEST(CoordinatorClient, InvalidRepliesAreCountedInTheDetail) {
  // The wait ends at the deadline whatever comes: 1.5 s leaves the fake's
  // thread room to answer under a sanitizer on a loaded machine (0.3 s did not).
  FakeCoordinator fake(Always({Bytes{0xde, 0xad, 0xbe, 0xef}, testing::EncodeAdvice("x")}));
  const RequestResult r = Ask(fake.endpoint(), 1.5);
  EXPECT_EQ(r.status, RequestStatus::kNoReply);
  EXPECT_EQ(r.detail,
            "no reply in 1.5 s; 1 message failed verification; 1 unrelated message ignored");
}

TEST(CoordinatorClient, WrongVersionIsNamed) {
  FakeCoordinator fake(Always({testing::EncodePlaceReply(PlaceReplyFields{}, /*version=*/2)}));
  const RequestResult r = Ask(fake.endpoint(), 1.5);  // as above
  EXPECT_EQ(r.status, RequestStatus::kNoReply);
  EXPECT_EQ(r.detail, "it speaks protocol version 2, this iashim speaks 1");
}

TEST(CoordinatorClient, Interrupted) {
  FakeCoordinator fake(Always({}));
  int calls = 0;
  const RequestResult r = Ask(fake.endpoint(), 10, [&calls] { return ++calls > 2; });
  EXPECT_EQ(r.status, RequestStatus::kInterrupted);
}

TEST(CoordinatorClient, BadEndpoint) {
  const RequestResult r = Ask("bogus://x", 0.2);
  EXPECT_EQ(r.status, RequestStatus::kBadEndpoint);
  EXPECT_FALSE(r.detail.empty());
}

TEST(CoordinatorClient, CheckReply) {
  const Bytes good = testing::EncodePlaceReply(PlaceReplyFields{});
  EXPECT_EQ(CheckReply(Reply(good.data(), good.size()), wire::Payload::PlaceReply),
            ReplyCheck::kUsable);
  EXPECT_EQ(CheckReply(Reply(good.data(), good.size()), wire::Payload::StateSnapshot),
            ReplyCheck::kUnexpected);
  EXPECT_EQ(CheckReply(Reply(good.data(), good.size() / 2), wire::Payload::PlaceReply),
            ReplyCheck::kInvalid);
  EXPECT_EQ(CheckReply(Reply(good.data(), 0), wire::Payload::PlaceReply), ReplyCheck::kInvalid);
  // An odd address: the copy into aligned storage is what makes it readable.
  std::vector<uint8_t> shifted(good.size() + 1);
  std::copy(good.begin(), good.end(), shifted.begin() + 1);
  EXPECT_EQ(CheckReply(Reply(shifted.data() + 1, good.size()), wire::Payload::PlaceReply),
            ReplyCheck::kUsable);
}

TEST(CoordinatorClient, FormatSeconds) {
  EXPECT_EQ(FormatSeconds(2), "2 s");
  EXPECT_EQ(FormatSeconds(0.3), "0.3 s");
}

}  // namespace
}  // namespace iashim::client
