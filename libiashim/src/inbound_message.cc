#include "libiashim/src/inbound_message.h"

#include <vector>

#include "common/wire/envelope.h"

namespace iashim {

InboundKind DispatchInbound(const uint8_t* data, size_t size,
                            const std::function<void(const wire::Budget&)>& on_budget,
                            const std::function<void(const wire::Advice&)>& on_advice) {
  std::vector<uint64_t> storage;  // stays empty: the transport's buffer is aligned
  const wire::OpenedEnvelope in = wire::OpenEnvelope(data, size, &storage);
  if (in.error == wire::EnvelopeError::kInvalid) return InboundKind::kInvalid;
  if (in.error == wire::EnvelopeError::kWrongVersion) return InboundKind::kIgnored;
  const wire::Envelope* e = in.envelope;
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
