#include "libiashim/src/iteration_detector.h"

namespace iashim {

void IterationDetector::OnSync(uint64_t time_ns) {
  // A sync with nothing launched since the last one adds no information.
  if (launches_in_segment_ == 0) return;
  counts_[next_] = launches_in_segment_;
  next_ = (next_ + 1) % kHistory;
  if (filled_ < kHistory) ++filled_;
  launches_in_segment_ = 0;

  const int period = DetectPeriod();
  if (period != period_) {
    period_ = period;
    segments_since_boundary_ = 0;  // re-phase on the new period
  }
  if (!have_boundary_) {
    have_boundary_ = true;
    last_boundary_ns_ = time_ns;
    segments_since_boundary_ = 0;
    return;
  }
  if (++segments_since_boundary_ < period_) return;
  segments_since_boundary_ = 0;
  if (time_ns > last_boundary_ns_) {
    ++pending_.iterations;
    pending_.total_ns += time_ns - last_boundary_ns_;
  }
  last_boundary_ns_ = time_ns;
}

IterationDetector::Completed IterationDetector::Take() {
  const Completed out = pending_;
  pending_ = {};
  return out;
}

int IterationDetector::DetectPeriod() const {
  // The smallest k for which the recent segments repeat with period k, seen
  // over at least three periods; 90% agreement tolerates a stray sync.
  // A period of 1 is "every segment alike", or no structure at all.
  for (int k = 1; k <= kMaxPeriod; ++k) {
    const int n = filled_;
    if (n < 3 * k + k) break;
    int matches = 0, total = 0;
    for (int i = k; i < n; ++i) {
      const uint32_t a = counts_[(next_ - 1 - i + k + 2 * kHistory) % kHistory];
      const uint32_t b = counts_[(next_ - 1 - i + 2 * kHistory) % kHistory];
      ++total;
      if (a == b) ++matches;
    }
    if (matches * 10 >= total * 9) {
      if (k == 1) return 1;
      // A genuine period-k pattern has unequal segments within one period.
      bool varied = false;
      for (int j = 1; j < k && !varied; ++j) {
        varied = counts_[(next_ - 1 + 2 * kHistory) % kHistory] !=
                 counts_[(next_ - 1 - j + 2 * kHistory) % kHistory];
      }
      if (varied) return k;
    }
  }
  return 1;
}

}  // namespace iashim
