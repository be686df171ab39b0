#include "libiashim/src/budget.h"

#include <cmath>
#include <cstdio>

#include "schemas/telemetry_generated.h"

namespace iashim {

Budget BudgetFromConfig(const Config& config) {
  Budget b;
  b.share = config.share;
  b.max_inflight = config.max_inflight;
  b.priority = config.priority;
  return b;
}

std::optional<Budget> BudgetFromWire(const wire::Budget& message, uint64_t now_ns,
                                     std::string* error) {
  const double share = message.share();
  if (!std::isfinite(share) || share < Budget::kMinShare || share > 1.0) {
    *error = "share " + std::to_string(share) + " is outside [0.001, 1]";
    return std::nullopt;
  }
  if (message.seq() == 0) {
    *error = "seq 0 (sequence numbers start at 1)";
    return std::nullopt;
  }
  if (message.max_inflight() > 65536) {
    *error = "max_inflight " + std::to_string(message.max_inflight()) + " is above 65536";
    return std::nullopt;
  }
  if (message.priority() != wire::Priority::Guaranteed &&
      message.priority() != wire::Priority::Opportunistic) {
    *error = "unknown priority " + std::to_string(int(message.priority()));
    return std::nullopt;
  }
  Budget b;
  b.share = share;
  b.max_inflight = message.max_inflight();
  b.priority = message.priority() == wire::Priority::Opportunistic ? Priority::kOpportunistic
                                                                   : Priority::kGuaranteed;
  b.expires_ns = message.ttl_ms() == 0 ? 0 : now_ns + uint64_t(message.ttl_ms()) * 1'000'000;
  b.seq = message.seq();
  return b;
}

std::string Describe(const Budget& b, uint64_t now_ns) {
  char buf[160];
  char expiry[48] = "never expires";
  if (b.expires_ns != 0) {
    std::snprintf(expiry, sizeof expiry, "expires in %.1f s",
                  b.expires_ns > now_ns ? double(b.expires_ns - now_ns) / 1e9 : 0.0);
  }
  char inflight[32] = "no in-flight cap";
  if (b.max_inflight != 0) std::snprintf(inflight, sizeof inflight, "max %u in flight", b.max_inflight);
  std::snprintf(buf, sizeof buf, "share %.3f, %s, %s, %s", b.share, inflight,
                b.priority == Priority::kOpportunistic ? "opportunistic" : "guaranteed", expiry);
  return buf;
}

}  // namespace iashim
