// Test side of the wire: the coordinator's replies, encoded with
// FlatBufferBuilder exactly as a coordinator would send them.
#ifndef IASHIM_TESTS_COORDINATOR_CLIENT_TEST_MESSAGES_H_
#define IASHIM_TESTS_COORDINATOR_CLIENT_TEST_MESSAGES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "schemas/telemetry_generated.h"

namespace iashim::client::testing {

using Bytes = std::vector<uint8_t>;

struct PlaceReplyFields {
  bool ok = true;
  std::string error;
  std::string job = "job-1";
  std::string host;  // empty: the coordinator leaves it out
  int gpu = 1;
  std::string gpu_uuid = "GPU-1111";
  double share = 0.5;
  uint64_t mem_limit_bytes = uint64_t{16} << 30;
  bool queued = false;
  std::string token;  // empty: the coordinator leaves it out
  bool dry_run = false;
  // Every GPU of the job; empty: left out, as a coordinator from before gangs does.
  std::vector<int> gpus;
  std::vector<std::string> gpu_uuids;
};

Bytes EncodePlaceReply(const PlaceReplyFields& fields, uint16_t version = 1);
Bytes EncodeErrorReply(const std::string& text);
Bytes EncodeReleaseReply(bool released, const std::string& message);
Bytes EncodeAdvice(const std::string& text);

// A cluster of two GPUs: node-a:0 (an H200) with a guaranteed and an
// opportunistic job (the latter with an unknown slowdown, no quota, and a
// command holding a quote, a newline and a broken UTF-8 byte), and node-a:1
// with none.
Bytes EncodeSampleSnapshot(uint16_t version = 1);

// The snapshot inside `bytes` (which must be a valid Envelope holding one);
// `bytes` must outlive the result and stay aligned (a std::vector's data is).
const wire::StateSnapshot& SnapshotOf(const Bytes& bytes);

}  // namespace iashim::client::testing

#endif  // IASHIM_TESTS_COORDINATOR_CLIENT_TEST_MESSAGES_H_
