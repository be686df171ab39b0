// What a job loses beside co-runners held to a fraction of their pace, in
// iashim-clustersim's ground truth.
//
// One co-runner: its harm in proportion to its pace (the controller's own
// model, policy/protective_share.h). Two co-runners at pace s: a measured
// triple says what the job keeps beside both at full pace, where they also
// slow each other, so their harms add to less than the two pairs'. Held to
// a small pace they rarely run at once, and their harms add. Each busy a
// fraction s of the time, independently: one alone 2 s (1 - s) of the time,
// both s^2, so
//     loss(s) = s (1 - s) (h_a + h_b) + s^2 h_ab
//             = s (h_a + h_b) - s^2 (h_a + h_b - h_ab),
// h_a, h_b the losses beside each alone at full pace (their pairs), h_ab
// beside both (the triple). simgpu shows the adding: a Transformer (which
// keeps 0.715 beside an LSTM, 0.555 beside two) beside one LSTM held to a
// budget of 0.05 (a pace of about 0.08, policy::BudgetForPace) ran 2.3%
// slower, as the pair scaled by the pace says (2.3%); beside that LSTM and
// an LSTM gang's rank at 0.05, 6.0-6.4% (bench/gang/README.md, "A gang
// across two nodes"): more than the triple scaled by the pace (3.5%) and
// than the two pairs' sum (4.5%; the rest is the rank's waiting in its
// collectives, SimConfig::throttled_rank_wait_loss).
//
// Pure, no state.
#ifndef IASHIM_CLUSTERSIM_INTERNAL_THROTTLED_LOSS_H_
#define IASHIM_CLUSTERSIM_INTERNAL_THROTTLED_LOSS_H_

#include <algorithm>
#include <cmath>

namespace iashim::clustersim::sim_internal {

// What a job loses beside its co-runners at full pace: beside each of two
// alone and beside both. One co-runner (or co-runners whose pairs are not
// known) is {h, 0, h}: a loss h in proportion to the pace, as the
// controller's own model has it.
struct CoRunnerLosses {
  double alone_a = 0;   // h_a: loss beside co-runner a alone, at full pace
  double alone_b = 0;   // h_b
  double together = 0;  // h_ab: loss beside both, at full pace
};

inline CoRunnerLosses InProportionToPace(double loss) { return {loss, 0, loss}; }

// The loss beside them held to `pace` (0..1): loss(pace) above.
inline double LossAtPace(const CoRunnerLosses& c, double pace) {
  const double sum = c.alone_a + c.alone_b;
  return pace * sum - pace * pace * (sum - c.together);
}

// The least pace (0..1] at which the loss reaches `loss`: 1 when even full
// pace loses no more.
inline double PaceForLoss(const CoRunnerLosses& c, double loss) {
  if (LossAtPace(c, 1.0) <= loss) return 1.0;
  if (!(loss > 0)) return 0.0;
  // The first root of a s^2 - b s + loss = 0 in (0, 1): loss(0) = 0 is below
  // `loss` and loss(1) above it, so it exists.
  const double a = c.alone_a + c.alone_b - c.together;
  const double b = c.alone_a + c.alone_b;
  if (std::abs(a) < 1e-12) return std::clamp(loss / b, 0.0, 1.0);
  const double root = (b - std::sqrt(std::max(0.0, b * b - 4 * a * loss))) / (2 * a);
  return std::clamp(root, 0.0, 1.0);
}

}  // namespace iashim::clustersim::sim_internal

#endif  // IASHIM_CLUSTERSIM_INTERNAL_THROTTLED_LOSS_H_
