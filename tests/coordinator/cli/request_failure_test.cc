#include "coordinator/cli/request_failure.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace iashim::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(RequestFailure, SilenceWithoutAKeySaysStartOneAndNothingOfKeys) {
  const RequestFailure f = DescribeRequestFailure("tcp://127.0.0.1:5555", /*key_configured=*/false,
                                                  client::RequestStatus::kNoReply, "no reply in 2 s");
  EXPECT_EQ(f.error, "no coordinator at tcp://127.0.0.1:5555 (no reply in 2 s)");
  ASSERT_EQ(f.hints.size(), 1u);
  EXPECT_THAT(f.hints[0], HasSubstr("start one with iashim-coordinator"));
  EXPECT_THAT(f.hints[0], HasSubstr("LD_LIBRARY_PATH=build/simgpu"));
  EXPECT_THAT(FailureText(f), Not(HasSubstr("key")));
}

TEST(RequestFailure, SilenceWithAKeyAlsoSaysCheckTheKeyFirst) {
  const RequestFailure f = DescribeRequestFailure("tcp://head:5555", /*key_configured=*/true,
                                                  client::RequestStatus::kNoReply, "no reply in 2 s");
  ASSERT_EQ(f.hints.size(), 2u);
  EXPECT_THAT(f.hints[0], HasSubstr("--coordinator-key"));
  EXPECT_THAT(f.hints[1], HasSubstr("start one"));
}

TEST(RequestFailure, AnUnusableReplyOrBadEndpointGetsNoStartHint) {
  EXPECT_TRUE(DescribeRequestFailure("tcp://h:1", false, client::RequestStatus::kNoReply,
                                     "it speaks protocol version 2, this iashim 1")
                  .hints.empty());
  EXPECT_TRUE(
      DescribeRequestFailure("tcp://h:x", true, client::RequestStatus::kBadEndpoint, "Invalid argument")
          .hints.empty());
}

TEST(RequestFailure, TextIsOneLineEach) {
  const RequestFailure f{"no coordinator at E (no reply in 2 s)", {"a", "b"}};
  EXPECT_EQ(FailureText(f),
            "iashim: no coordinator at E (no reply in 2 s)\niashim: a\niashim: b\n");
}

TEST(RequestFailure, JsonHasErrorAndHints) {
  const RequestFailure f{"no coordinator at \"E\"", {"start one"}};
  EXPECT_EQ(FailureJson(f),
            "{\n  \"error\": \"no coordinator at \\\"E\\\"\",\n  \"hints\": [\n    \"start "
            "one\"\n  ]\n}\n");
}

TEST(RequestFailure, ErrorReplyReason) {
  EXPECT_EQ(DescribeErrorReply("not ready").error, "the coordinator could not answer: not ready");
  EXPECT_EQ(DescribeErrorReply("").error, "the coordinator could not answer: (no reason given)");
}

}  // namespace
}  // namespace iashim::cli
