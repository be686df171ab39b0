#include "share_feedback_loop.h"

#include "launch_gate.h"
#include "log.h"

namespace iashim {

ShareFeedbackLoop::~ShareFeedbackLoop() = default;

void ShareFeedbackLoop::Tick(uint64_t now_ns, LaunchGate& gate) {
  if (now_ns < next_ns_ || unavailable_) return;
  next_ns_ = now_ns + kPeriodNs;
  const Budget budget = gate.budget();
  if (!gate.throttled() || budget.share >= 1.0) {
    measuring_ = false;  // the next throttled reading starts afresh
    return;
  }
  if (usage_ == nullptr) {
    std::string error;
    usage_ = NvmlUsage::Open(&error);
    if (usage_ == nullptr) {
      unavailable_ = true;
      IASHIM_INFO("share feedback off: %s; the gate charges learned kernel costs only",
                  error.c_str());
      return;
    }
  }
  const std::optional<double> reading = usage_->ShareSinceLastCall(pid_);
  const uint64_t held = gate.held_launches();
  const bool held_any = held != held_seen_;
  held_seen_ = held;
  const bool same_budget =
      measuring_ && budget.seq == budget_seq_ && budget.share == budget_share_;
  measuring_ = true;
  budget_seq_ = budget.seq;
  budget_share_ = budget.share;
  if (!reading) return;
  last_reading_ = *reading;
  if (!same_budget) return;
  gate.SetChargeScale(feedback_.Update(budget.share, *reading, held_any));
}

}  // namespace iashim
