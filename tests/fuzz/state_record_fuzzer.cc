// The state store's record decoder (coordinator/state/record_codec.h): one
// frame's payload. A record that decodes must encode back to a record that
// decodes to the same value.
#include <cstdint>
#include <variant>

#include "coordinator/state/record_codec.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  const absl::StatusOr<state::Record> record = state::DecodeRecord(fuzz::AsText(data, size));
  if (!record.ok()) {
    if (record.status().message().empty()) fuzz::Fail("a refusal without a reason");
    return 0;
  }
  std::string again;
  if (const auto* m = std::get_if<state::Mutation>(&record->body)) {
    again = state::EncodeRecord(record->seq, *m);
  } else {
    again = state::EncodeSnapshotHeader(std::get<state::SnapshotHeader>(record->body));
  }
  const absl::StatusOr<state::Record> decoded = state::DecodeRecord(again);
  if (!decoded.ok()) fuzz::Fail("a decoded record does not decode after encoding");
  // A snapshot header is written without a sequence number (recovery judges
  // where a header with one stands); everything else keeps its own.
  const bool header = std::holds_alternative<state::SnapshotHeader>(record->body);
  if ((!header && decoded->seq != record->seq) || !(decoded->body == record->body)) {
    fuzz::Fail("a decoded record changed through encoding");
  }
  return 0;
}
