// Closes the loop between the share a budget asks for and the GPU time the
// device says the process got.
//
// The token bucket charges each kernel its learned duration, but what a kernel
// costs in the device's own accounting depends on who else runs: two
// processes' kernels that overlap each get half of the busy time, and a job
// that only ever ran next to another one has only ever seen stretched
// durations. So the gate's charges are scaled by a factor this controller
// adjusts from the process's measured share of GPU time (NVML's per-process
// utilisation, nvml_usage.h): used more than the share → charge more; used
// less while the gate was holding launches back → charge less. Used less
// without being held back means the job did not want more: nothing to learn,
// so the scale stays (no wind-up).
//
// Steps are multiplicative, damped (square root of the error) and bounded per
// reading, with a dead band, so one noisy reading cannot swing the scale and
// the loop settles instead of oscillating. Pure: readings come in as values.
#ifndef IASHIM_SHARE_FEEDBACK_H_
#define IASHIM_SHARE_FEEDBACK_H_

namespace iashim {

class ShareFeedback {
 public:
  static constexpr double kMinScale = 0.25;
  static constexpr double kMaxScale = 4.0;
  static constexpr double kMaxStep = 1.25;   // per reading, either way
  static constexpr double kDeadBand = 0.03;  // relative error ignored

  // `target` is the budget's share (0, 1); `measured` the fraction of wall time
  // the device accounted to this process over the reading's interval, in
  // [0, 1]; `held` whether the gate held any launch back in that interval.
  // Returns the new scale. Out-of-range values leave the scale as it is.
  double Update(double target, double measured, bool held);

  // Multiplies every charge; 1 until the first reading.
  double scale() const { return scale_; }
  void Reset() { scale_ = 1.0; }

 private:
  double scale_ = 1.0;
};

}  // namespace iashim

#endif  // IASHIM_SHARE_FEEDBACK_H_
