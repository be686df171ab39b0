#include "libiashim/src/token_bucket.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace iashim {

double TokenBucket::ClampShare(double share) {
  if (std::isnan(share)) return 1.0;
  return std::clamp(share, kMinShare, 1.0);
}

uint64_t TokenBucket::CapacityFor(double share) {
  const double scaled = ClampShare(share) * double(kBurstWindowNs);
  return std::max(kMinCapacityNs, uint64_t(scaled));
}

TokenBucket::TokenBucket(double share, uint64_t now_ns)
    : share_(ClampShare(share)), last_ns_(now_ns) {
  UpdateCapacity();
  tokens_ = double(capacity_ns_);
}

void TokenBucket::UpdateCapacity() {
  capacity_ns_ = capacity_override_ns_ != 0 ? capacity_override_ns_ : CapacityFor(share_);
  tokens_ = std::min(tokens_, double(capacity_ns_));
}

void TokenBucket::Refill(uint64_t now_ns) {
  if (now_ns <= last_ns_) return;
  const uint64_t elapsed = now_ns - last_ns_;
  last_ns_ = now_ns;
  if (unlimited()) {
    tokens_ = double(capacity_ns_);
    return;
  }
  // A huge gap only fills the bucket: the product is a double, so it cannot
  // overflow, and the cap applies before anything reads it.
  tokens_ = std::min(double(capacity_ns_), tokens_ + double(elapsed) * share_);
}

void TokenBucket::SetShare(double share, uint64_t now_ns) {
  Refill(now_ns);
  share_ = ClampShare(share);
  UpdateCapacity();
  if (unlimited()) tokens_ = double(capacity_ns_);
}

void TokenBucket::SetCapacityNs(uint64_t capacity_ns) {
  capacity_override_ns_ = capacity_ns;
  UpdateCapacity();
  if (unlimited()) tokens_ = double(capacity_ns_);
}

uint64_t TokenBucket::WaitNs(uint64_t now_ns) {
  Refill(now_ns);
  if (tokens_ >= 0) return 0;
  auto wait = uint64_t(std::ceil(-tokens_ / share_));
  // Refill computes exactly this sum; rounding may leave it a hair short.
  while (tokens_ + double(wait) * share_ < 0) ++wait;
  // The debt is repaid at last_ns_ + wait; a caller with an older (stale)
  // timestamp waits the difference too, saturating rather than wrapping.
  if (now_ns < last_ns_) {
    const uint64_t behind = last_ns_ - now_ns;
    return wait > UINT64_MAX - behind ? UINT64_MAX : wait + behind;
  }
  return wait;
}

void TokenBucket::Charge(uint64_t cost_ns, uint64_t now_ns) {
  Refill(now_ns);
  if (unlimited()) return;
  tokens_ = std::max(-double(kMaxDebtNs), tokens_ - double(cost_ns));
}

int64_t TokenBucket::tokens_ns() const { return int64_t(std::floor(tokens_)); }

}  // namespace iashim
