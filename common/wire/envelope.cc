#include "common/wire/envelope.h"

#include <cstring>

namespace iashim::wire {

OpenedEnvelope OpenEnvelope(const void* data, size_t size, std::vector<uint64_t>* storage) {
  OpenedEnvelope out;
  if (data == nullptr || size == 0) return out;
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (reinterpret_cast<uintptr_t>(data) % alignof(uint64_t) != 0) {
    storage->assign(size / sizeof(uint64_t) + 1, 0);
    std::memcpy(storage->data(), data, size);
    bytes = reinterpret_cast<const uint8_t*>(storage->data());
  }
  flatbuffers::Verifier verifier(bytes, size);
  if (!VerifyEnvelopeBuffer(verifier)) return out;
  const Envelope* envelope = GetEnvelope(bytes);
  out.version = static_cast<unsigned>(envelope->version());
  if (envelope->version() != Version::Current) {
    out.error = EnvelopeError::kWrongVersion;
    return out;
  }
  // The verifier accepts a union type without its table, and every reader
  // reads the table (found by the coordinator_message fuzzer).
  if (envelope->payload_type() != Payload::NONE && envelope->payload() == nullptr) return out;
  out.envelope = envelope;
  out.error = EnvelopeError::kNone;
  return out;
}

void FinishEnvelope(flatbuffers::FlatBufferBuilder& fbb, Payload type,
                    flatbuffers::Offset<void> payload, int pid) {
  fbb.Finish(CreateEnvelope(fbb, Version::Current, pid, type, payload));
}

}  // namespace iashim::wire
