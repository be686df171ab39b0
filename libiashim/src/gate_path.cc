// The throttled part of the launch path: asks the gate for admission with the
// kernel's learned cost and its stream's priority.
#include <ctime>

#include "libiashim/src/launch_path.h"

namespace iashim {

namespace {

// A launch into a capturing stream only records a graph node: nothing runs,
// so there is nothing to hold back (the graph's launches are gated).
bool Capturing(CUstream stream, bool per_thread) {
  auto capturing = per_thread ? IASHIM_REAL(cuStreamIsCapturing_ptsz) : IASHIM_REAL(cuStreamIsCapturing);
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  return capturing != nullptr && capturing(stream, &status) == CUDA_SUCCESS &&
         status != CU_STREAM_CAPTURE_STATUS_NONE;
}

}  // namespace

void PaceCollective(Runtime* rt, uint32_t kernel, CUstream stream, bool per_thread) {
  // With IASHIM_PACE_COLLECTIVES=off the drainer learns no hold (drainer.cc).
  const uint64_t hold_ns = rt->pacer().HoldNs(kernel);
  if (hold_ns == 0 || Capturing(stream, per_thread)) return;
  // A plain sleep: the hold is bounded (CollectivePace::kMaxHoldNs) and learned
  // from this rank's own waits, and nothing else waits on this thread's launch
  // that would not have waited on the GPU for the gang's other ranks anyway.
  timespec t{static_cast<time_t>(hold_ns / 1'000'000'000),
             static_cast<long>(hold_ns % 1'000'000'000)};
  while (nanosleep(&t, &t) != 0) {
  }
  rt->pacer().CountHold(hold_ns);
}

void HoldForBudget(Runtime* rt, uint32_t kernel, CUstream stream, bool per_thread, uint8_t device) {
  if (Capturing(stream, per_thread)) return;
  int priority = 0;
  auto get_priority = per_thread ? IASHIM_REAL(cuStreamGetPriority_ptsz) : IASHIM_REAL(cuStreamGetPriority);
  if (get_priority == nullptr || get_priority(stream, &priority) != CUDA_SUCCESS) priority = 0;
  // Charged to the share of the device it runs on.
  rt->gate().Admit(rt->costs().EstimateNs(kernel), reinterpret_cast<uint64_t>(stream), priority,
                   device == kUnknownDevice ? -1 : int(device));
}

}  // namespace iashim
