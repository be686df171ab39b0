#include "common/wire/envelope.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace iashim::wire {
namespace {

std::vector<uint8_t> Finished(flatbuffers::FlatBufferBuilder& fbb) {
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

std::vector<uint8_t> ErrorEnvelope(std::string_view text) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto t = fbb.CreateString(text.data(), text.size());
  FinishEnvelope(fbb, Payload::ErrorReply, CreateErrorReply(fbb, t).Union(), /*pid=*/42);
  return Finished(fbb);
}

TEST(OpenEnvelope, AFinishedEnvelopeOpens) {
  const std::vector<uint8_t> bytes = ErrorEnvelope("no");
  std::vector<uint64_t> storage;
  const OpenedEnvelope in = OpenEnvelope(bytes.data(), bytes.size(), &storage);
  ASSERT_EQ(in.error, EnvelopeError::kNone);
  EXPECT_EQ(in.envelope->pid(), 42);
  EXPECT_EQ(in.version, static_cast<unsigned>(Version::Current));
  ASSERT_NE(in.envelope->payload_as_ErrorReply(), nullptr);
  EXPECT_EQ(in.envelope->payload_as_ErrorReply()->text()->str(), "no");
}

// ZeroMQ hands small messages over at any alignment: the bytes are copied to
// aligned storage and still open.
TEST(OpenEnvelope, UnalignedBytesAreCopiedAndOpen) {
  const std::vector<uint8_t> bytes = ErrorEnvelope("shifted");
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  std::vector<uint64_t> storage;
  const OpenedEnvelope in = OpenEnvelope(shifted.data() + 1, bytes.size(), &storage);
  ASSERT_EQ(in.error, EnvelopeError::kNone);
  EXPECT_FALSE(storage.empty());
  EXPECT_EQ(in.envelope->payload_as_ErrorReply()->text()->str(), "shifted");
}

TEST(OpenEnvelope, EmptyAndGarbageAreInvalid) {
  std::vector<uint64_t> storage;
  EXPECT_EQ(OpenEnvelope(nullptr, 0, &storage).error, EnvelopeError::kInvalid);
  const std::string garbage = "this is not a flatbuffer at all";
  const OpenedEnvelope in = OpenEnvelope(garbage.data(), garbage.size(), &storage);
  EXPECT_EQ(in.error, EnvelopeError::kInvalid);
  EXPECT_EQ(in.envelope, nullptr);
  std::vector<uint8_t> cut = ErrorEnvelope("truncated");
  cut.resize(cut.size() / 2);
  EXPECT_EQ(OpenEnvelope(cut.data(), cut.size(), &storage).error, EnvelopeError::kInvalid);
}

TEST(OpenEnvelope, AnotherVersionIsNamedAsSuch) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto t = fbb.CreateString("old");
  fbb.Finish(CreateEnvelope(fbb, static_cast<Version>(static_cast<int>(Version::Current) + 1), 0,
                            Payload::ErrorReply, CreateErrorReply(fbb, t).Union()));
  const std::vector<uint8_t> bytes = Finished(fbb);
  std::vector<uint64_t> storage;
  const OpenedEnvelope in = OpenEnvelope(bytes.data(), bytes.size(), &storage);
  EXPECT_EQ(in.error, EnvelopeError::kWrongVersion);
  EXPECT_EQ(in.version, static_cast<unsigned>(Version::Current) + 1);
  EXPECT_EQ(in.envelope, nullptr);
}

// The verifier accepts a payload type whose table is missing; every reader
// reads the table, so such an Envelope is invalid.
TEST(OpenEnvelope, APayloadTypeWithoutItsTableIsInvalid) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(CreateEnvelope(fbb, Version::Current, 0, Payload::Budget, 0));
  const std::vector<uint8_t> bytes = Finished(fbb);
  std::vector<uint64_t> storage;
  EXPECT_EQ(OpenEnvelope(bytes.data(), bytes.size(), &storage).error, EnvelopeError::kInvalid);
}

}  // namespace
}  // namespace iashim::wire
