// Finds training-iteration boundaries from the cadence of synchronising calls.
//
// A training loop synchronises the host with the GPU at least once per
// iteration (loss.item(), an optimizer step that reads a scalar...). Each
// synchronisation that follows some launches closes a "segment". When the
// launch counts of segments repeat with period k (k syncs per iteration, as
// when every step calls .item() twice), an iteration is k segments; when no
// period is evident, every segment is taken as an iteration. Pure: time comes
// in with each event.
#ifndef IASHIM_ITERATION_DETECTOR_H_
#define IASHIM_ITERATION_DETECTOR_H_

#include <cstdint>

namespace iashim {

class IterationDetector {
 public:
  static constexpr int kHistory = 64;
  static constexpr int kMaxPeriod = 8;

  // A launch (kernel or graph) was issued.
  void OnLaunch() { ++launches_in_segment_; }
  // A synchronising call returned at `time_ns`.
  void OnSync(uint64_t time_ns);

  struct Completed {
    uint32_t iterations = 0;
    uint64_t total_ns = 0;  // summed durations of those iterations
  };
  // Iterations completed since the previous call.
  Completed Take();

  // Syncs per iteration currently assumed (1 when no period is evident).
  int period() const { return period_; }

 private:
  int DetectPeriod() const;

  uint32_t launches_in_segment_ = 0;
  uint32_t counts_[kHistory] = {};
  int filled_ = 0;
  int next_ = 0;
  int period_ = 1;
  int segments_since_boundary_ = 0;
  uint64_t last_boundary_ns_ = 0;
  bool have_boundary_ = false;
  Completed pending_;
};

}  // namespace iashim

#endif  // IASHIM_ITERATION_DETECTOR_H_
