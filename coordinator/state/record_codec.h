// A Record (schemas/state.fbs) to and from bytes: the payload of one frame.
// Decoding trusts nothing: the FlatBuffers Verifier checks the buffer, and the
// result must pass Validate(), so a record that decodes is safe to apply.
#ifndef IASHIM_COORDINATOR_STATE_RECORD_CODEC_H_
#define IASHIM_COORDINATOR_STATE_RECORD_CODEC_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "absl/status/statusor.h"
#include "coordinator/state/mutation.h"

namespace iashim::state {

// The first record of a snapshot (see state.fbs).
struct SnapshotHeader {
  uint64_t last_seq = 0;
  uint64_t records = 0;
  friend bool operator==(const SnapshotHeader&, const SnapshotHeader&) = default;
};

struct Record {
  uint64_t seq = 0;  // journal records: from 1; snapshot records: 0
  std::variant<Mutation, SnapshotHeader> body;
};

std::string EncodeRecord(uint64_t seq, const Mutation& m);
std::string EncodeSnapshotHeader(const SnapshotHeader& header);

// DataLoss naming what is wrong when `payload` is not a valid Record of the
// current schema version.
absl::StatusOr<Record> DecodeRecord(std::string_view payload);

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_RECORD_CODEC_H_
