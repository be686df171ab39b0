// FlatBuffers messages <-> the policy's plain values.
#ifndef IASHIM_COORDINATOR_DAEMON_WIRE_CONVERT_H_
#define IASHIM_COORDINATOR_DAEMON_WIRE_CONVERT_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/wire/envelope.h"
#include "common/wire/priority_wire.h"
#include "coordinator/policy/baseline_source.h"
#include "coordinator/policy/priority.h"
#include "coordinator/policy/telemetry_window.h"
#include "schemas/telemetry_generated.h"

namespace iashim::daemon {

// The shim's batch as a policy window (memory: the device it uses most).
policy::TelemetryWindow ToWindow(const wire::TelemetryBatch& batch);

// The part of the batch that ran on `device` (a CUdevice ordinal of the
// process): its kernels, their launches and that device's memory; the
// iterations are the process's, which every device it drives takes part in.
policy::TelemetryWindow ToDeviceWindow(const wire::TelemetryBatch& batch, int device);

// The devices (ordinals >= 0) the batch's kernels ran on, in order.
std::vector<int> DevicesIn(const wire::TelemetryBatch& batch);

wire::BaselineSource ToWire(policy::BaselineSource s);

// Finishes `fbb` as the coordinator's Envelope of `payload` and returns its
// bytes, ready for a socket.
std::string EnvelopeBytes(flatbuffers::FlatBufferBuilder& fbb, wire::Payload type,
                           flatbuffers::Offset<void> payload);

// "Refused"/"SendHello"/"Info" Advice, and an ErrorReply.
std::string EncodeAdvice(wire::AdviceKind kind, std::string_view text);
std::string EncodeError(std::string_view text);

// A string from the wire, bounded and with control characters replaced.
std::string Clean(const flatbuffers::String* s, size_t max = 256);

}  // namespace iashim::daemon

#endif  // IASHIM_COORDINATOR_DAEMON_WIRE_CONVERT_H_
