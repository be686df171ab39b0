// How many launches this process has in flight on the GPU, for the budget's
// cap on kernels in flight: launches are numbered by a submission sequence
// (1, 2, ...), and completions arrive as "everything up to seq s is done"
// (an event recorded after a launch has completed, so all before it have).
// Pure and single-threaded; the caller serialises.
//
// Both marks only move forward: a stale or repeated report changes nothing. A
// completion reported before its submission (threads racing) is kept, and
// those launches never count as in flight.
#ifndef IASHIM_INFLIGHT_WINDOW_H_
#define IASHIM_INFLIGHT_WINDOW_H_

#include <cstdint>

namespace iashim {

class InflightWindow {
 public:
  void OnSubmit(uint64_t seq);
  void OnComplete(uint64_t upto_seq);

  // Whether `max_inflight` launches are already in flight (0 = no cap).
  bool Full(uint64_t max_inflight) const { return max_inflight != 0 && inflight() >= max_inflight; }
  uint64_t inflight() const { return submitted_ > completed_ ? submitted_ - completed_ : 0; }
  uint64_t submitted() const { return submitted_; }
  uint64_t completed() const { return completed_; }

 private:
  uint64_t submitted_ = 0;  // highest seq submitted
  uint64_t completed_ = 0;  // every seq <= this is done (may run ahead of submitted_)
};

}  // namespace iashim

#endif  // IASHIM_INFLIGHT_WINDOW_H_
