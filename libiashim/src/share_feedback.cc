#include "libiashim/src/share_feedback.h"

#include <algorithm>
#include <cmath>

namespace iashim {

double ShareFeedback::Update(double target, double measured, bool held) {
  if (!(target > 0 && target < 1) || !(measured >= 0 && measured <= 1)) return scale_;
  // A reading of 0 would ask for an infinite step; the step bound applies anyway.
  const double ratio = std::max(measured, 1e-3) / target;
  if (std::abs(ratio - 1) <= kDeadBand) return scale_;
  if (ratio < 1 && !held) return scale_;  // under the share by choice
  const double step = std::clamp(std::sqrt(ratio), 1 / kMaxStep, kMaxStep);
  scale_ = std::clamp(scale_ * step, kMinScale, kMaxScale);
  return scale_;
}

}  // namespace iashim
