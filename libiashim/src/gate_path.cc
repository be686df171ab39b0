// The throttled part of the launch path: asks the gate for admission with the
// kernel's learned cost and its stream's priority.
#include "libiashim/src/launch_path.h"

namespace iashim {

void HoldForBudget(Runtime* rt, uint32_t kernel, CUstream stream, bool per_thread, uint8_t device) {
  // A launch into a capturing stream only records a graph node: nothing runs,
  // so there is nothing to hold back (the graph's launches are gated).
  auto capturing = per_thread ? IASHIM_REAL(cuStreamIsCapturing_ptsz) : IASHIM_REAL(cuStreamIsCapturing);
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (capturing != nullptr && capturing(stream, &status) == CUDA_SUCCESS &&
      status != CU_STREAM_CAPTURE_STATUS_NONE) {
    return;
  }
  int priority = 0;
  auto get_priority = per_thread ? IASHIM_REAL(cuStreamGetPriority_ptsz) : IASHIM_REAL(cuStreamGetPriority);
  if (get_priority == nullptr || get_priority(stream, &priority) != CUDA_SUCCESS) priority = 0;
  // Charged to the share of the device it runs on.
  rt->gate().Admit(rt->costs().EstimateNs(kernel), reinterpret_cast<uint64_t>(stream), priority,
                   device == kUnknownDevice ? -1 : int(device));
}

}  // namespace iashim
