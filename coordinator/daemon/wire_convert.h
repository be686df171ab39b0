// FlatBuffers messages <-> the policy's plain values.
#ifndef IASHIM_COORDINATOR_DAEMON_WIRE_CONVERT_H_
#define IASHIM_COORDINATOR_DAEMON_WIRE_CONVERT_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "policy/baseline_source.h"
#include "policy/priority.h"
#include "policy/telemetry_window.h"
#include "telemetry_generated.h"

namespace iashim::daemon {

// The shim's batch as a policy window (memory: the device it uses most).
policy::TelemetryWindow ToWindow(const wire::TelemetryBatch& batch);

policy::Priority FromWire(wire::Priority p);
wire::Priority ToWire(policy::Priority p);
wire::BaselineSource ToWire(policy::BaselineSource s);

// A verified Envelope from `bytes`, or null (`*why` says: "invalid" or
// "version"). Copies into `*aligned` first: ZeroMQ keeps small messages at any
// alignment and FlatBuffers reads aligned words.
const wire::Envelope* VerifiedEnvelope(std::span<const uint8_t> bytes,
                                       std::vector<uint8_t>* aligned, const char** why);

// Finishes `fbb` as an Envelope with `payload` and returns its bytes.
std::string FinishEnvelope(flatbuffers::FlatBufferBuilder& fbb, wire::Payload type,
                           flatbuffers::Offset<void> payload);

// "Refused"/"SendHello"/"Info" Advice, and an ErrorReply.
std::string EncodeAdvice(wire::AdviceKind kind, std::string_view text);
std::string EncodeError(std::string_view text);

// A string from the wire, bounded and with control characters replaced.
std::string Clean(const flatbuffers::String* s, size_t max = 256);

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_WIRE_CONVERT_H_
