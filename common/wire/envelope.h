// Opening and finishing Envelopes: every message on every socket is one
// Envelope (schemas/telemetry.fbs), so what makes a received buffer usable is
// decided here once, for the shim, the coordinator and the tools alike.
//
//   std::vector<uint64_t> storage;
//   const wire::OpenedEnvelope in = wire::OpenEnvelope(data, size, &storage);
//   if (in.error != wire::EnvelopeError::kNone) { count(in.error); return; }
//   if (const wire::Budget* b = in.envelope->payload_as_Budget()) ...
//
// No Abseil and no exceptions: the preloaded shim links this (common/README.md).
#ifndef IASHIM_COMMON_WIRE_ENVELOPE_H_
#define IASHIM_COMMON_WIRE_ENVELOPE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "schemas/telemetry_generated.h"

namespace iashim::wire {

enum class EnvelopeError {
  kNone,          // a usable Envelope
  kInvalid,       // empty, rejected by the FlatBuffers verifier, or a payload type without its table
  kWrongVersion,  // a schema version this build does not speak
};

struct OpenedEnvelope {
  const Envelope* envelope = nullptr;  // set only when error is kNone
  EnvelopeError error = EnvelopeError::kInvalid;
  unsigned version = 0;  // the sender's schema version, when the buffer verified
};

// Verifies `size` bytes at `data` as an Envelope of the current version whose
// payload, if it names one, is there. FlatBuffers reads scalars as aligned
// words and ZeroMQ keeps small messages at any alignment, so an unaligned
// buffer is first copied into `*storage`; the envelope points into `data` or
// `*storage`, which must outlive it.
OpenedEnvelope OpenEnvelope(const void* data, size_t size, std::vector<uint64_t>* storage);

// Finishes `fbb` as the Envelope of `payload` (current version), from `pid`
// (0 for the coordinator, which speaks for no process).
void FinishEnvelope(flatbuffers::FlatBufferBuilder& fbb, Payload type,
                    flatbuffers::Offset<void> payload, int pid = 0);

}  // namespace iashim::wire

#endif  // IASHIM_COMMON_WIRE_ENVELOPE_H_
