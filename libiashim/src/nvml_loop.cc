#include "libiashim/src/nvml_loop.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>

#include "libiashim/src/launch_gate.h"
#include "libiashim/src/log.h"

namespace iashim {
namespace {

// The loop whose thread reads NVML, to be stopped before NVML is torn down.
// NVML's own static state is destroyed at exit by a handler registered when
// it was first initialised; a handler registered after that runs before it
// (exit runs them in reverse), so the thread never calls into a library whose
// state is gone (seen with simgpu's NVML: a job exiting mid-reading crashed).
std::atomic<NvmlLoop*> g_reading_nvml{nullptr};

void StopBeforeNvmlIsTornDown() {
  if (NvmlLoop* loop = g_reading_nvml.exchange(nullptr)) loop->Stop();
}

}  // namespace

void NvmlLoop::StartIfNeeded() {
  if (started_ || !(energy_on_ || (feedback_on_ && gate_->throttled()))) return;
  started_ = true;
  thread_ = std::thread([this] { Run(); });
}

void NvmlLoop::Stop() {
  NvmlLoop* self = this;
  g_reading_nvml.compare_exchange_strong(self, nullptr);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void NvmlLoop::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::nanoseconds(kPeriodNs));
    if (stop_) break;
    lock.unlock();
    try {
      Tick();
    } catch (...) {
      // Both readers are refinements: losing a reading must not stop the job.
    }
    lock.lock();
  }
}

void NvmlLoop::Tick() {
  const bool feedback_due =
      feedback_on_ && gate_->throttled() && gate_->budget().share < 1.0;
  if (!feedback_due) measuring_ = false;  // the next throttled reading starts afresh
  if (!feedback_due && !energy_on_) return;
  if (usage_ == nullptr) {
    std::string error;
    usage_ = NvmlUsage::Open(&error);
    if (usage_ == nullptr) {
      IASHIM_INFO("NVML readings off: %s; the gate charges learned kernel costs only and "
                  "telemetry carries no energy", error.c_str());
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;  // not retried
      return;
    }
    static std::once_flag registered;
    std::call_once(registered, [] { std::atexit(StopBeforeNvmlIsTornDown); });
    g_reading_nvml.store(this);
  }
  if (energy_on_) {
    if (const std::optional<double> joules = usage_->EnergyJoules(pid_)) {
      energy_j_.store(*joules, std::memory_order_relaxed);
    }
  }
  if (feedback_due) FeedbackTick();
}

void NvmlLoop::FeedbackTick() {
  const Budget budget = gate_->budget();
  const std::optional<double> reading = usage_->ShareSinceLastCall(pid_);
  const uint64_t held = gate_->held_launches();
  const bool held_any = held != held_seen_;
  held_seen_ = held;
  const bool same_budget =
      measuring_ && budget.seq == budget_seq_ && budget.share == budget_share_;
  measuring_ = true;
  budget_seq_ = budget.seq;
  budget_share_ = budget.share;
  if (!reading) return;
  last_reading_.store(*reading, std::memory_order_relaxed);
  if (!same_budget) return;
  // The budget may have changed during the NVML call: this reading was taken
  // under the old one, so it must not steer the new one.
  const Budget now = gate_->budget();
  if (now.seq != budget.seq || now.share != budget.share) return;
  gate_->SetChargeScale(feedback_.Update(budget.share, *reading, held_any));
}

}  // namespace iashim
