#include "libiashim/src/inbound_message.h"

#include "schemas/telemetry_generated.h"

namespace iashim {

InboundKind DispatchInbound(const uint8_t* data, size_t size,
                            const std::function<void(const wire::Budget&)>& on_budget,
                            const std::function<void(const wire::Advice&)>& on_advice) {
  flatbuffers::Verifier verifier(data, size);
  if (!wire::VerifyEnvelopeBuffer(verifier)) return InboundKind::kInvalid;
  const wire::Envelope* e = wire::GetEnvelope(data);
  if (e->version() != wire::Version::Current) return InboundKind::kIgnored;
  if (const wire::Budget* budget = e->payload_as_Budget()) {
    if (on_budget) on_budget(*budget);
    return InboundKind::kBudget;
  }
  if (const wire::Advice* advice = e->payload_as_Advice()) {
    if (on_advice) on_advice(*advice);
    return InboundKind::kAdvice;
  }
  return InboundKind::kIgnored;  // not for a shim
}

}  // namespace iashim
