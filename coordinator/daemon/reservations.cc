#include "coordinator/daemon/reservations.h"

#include <algorithm>
#include <utility>

namespace iashim::daemon {
namespace {

bool Expired(const Reservation& r, int64_t now_ns) { return now_ns >= r.expires_ns; }

}  // namespace

void Reservations::Add(Reservation r, int64_t now_ns) {
  if (!enabled()) return;
  r.seq = ++next_seq_;
  r.expires_ns = now_ns + ttl_ns_;
  held_.push_back(std::move(r));
}

size_t Reservations::Expire(int64_t now_ns) {
  const size_t n = std::erase_if(held_, [&](const Reservation& r) { return Expired(r, now_ns); });
  expired_ += n;
  return n;
}

bool Reservations::Consume(const ReservationMatch& m, int64_t now_ns) {
  // held_ is in seq order: the first match is the oldest.
  const auto it = std::find_if(held_.begin(), held_.end(), [&](const Reservation& r) {
    return !Expired(r, now_ns) && r.host == m.host && r.priority == m.priority &&
           r.kind == m.kind && r.gpus.size() == size_t(std::max(m.gpu_count, 1));
  });
  if (it == held_.end()) return false;
  held_.erase(it);
  ++consumed_;
  return true;
}

size_t Reservations::YieldTo(const std::string& host, const std::vector<int>& gpus) {
  const size_t n = std::erase_if(held_, [&](const Reservation& r) {
    return r.host == host && std::any_of(r.gpus.begin(), r.gpus.end(), [&](int g) {
             return std::find(gpus.begin(), gpus.end(), g) != gpus.end();
           });
  });
  yielded_ += n;
  return n;
}

size_t Reservations::LiveCount(int64_t now_ns) const {
  return size_t(std::count_if(held_.begin(), held_.end(),
                              [&](const Reservation& r) { return !Expired(r, now_ns); }));
}

uint64_t Reservations::expired_total(int64_t now_ns) const {
  return expired_ + (held_.size() - LiveCount(now_ns));
}

}  // namespace iashim::daemon
