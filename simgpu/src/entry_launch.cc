// Entry points: kernel launches. A launch enqueues the kernel's modelled work on
// its stream and returns; the device simulation runs it (timeline.h).
#include "driver.h"

using simgpu::Function;
using simgpu::Stream;

namespace {

CUresult Launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                unsigned bz, CUstream hstream, bool per_thread) {
  Function* fn = simgpu::AsFunction(f);
  if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 ||
      uint64_t(bx) * by * bz > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  CUresult rc;
  Stream* stream = simgpu::ResolveStream(hstream, per_thread, &rc);
  if (stream == nullptr) return rc;
  const int sms = stream->ctx->dev->state().spec.sm_count;
  const uint64_t blocks = uint64_t(gx) * gy * gz;
  simgpu::Op op{};
  op.kind = simgpu::OpKind::kKernel;
  op.remaining_ns = fn->model.DurationNs(blocks, sms);
  op.mem_intensity = fn->model.mem_intensity;
  op.sm_fill = simgpu::KernelModel::SmFill(blocks, sms);
  op.event_slot = -1;
  simgpu::EnqueueBlocking(stream, op);
  return CUDA_SUCCESS;
}

CUresult LaunchEx(const CUlaunchConfig* config, CUfunction f, bool per_thread) {
  if (config == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return Launch(f, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
                config->blockDimY, config->blockDimZ, config->hStream, per_thread);
}

}  // namespace

SIMGPU_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                      unsigned int gz, unsigned int bx, unsigned int by,
                                      unsigned int bz, unsigned int, CUstream hstream, void**,
                                      void**) {
  return Launch(f, gx, gy, gz, bx, by, bz, hstream, false);
}

SIMGPU_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy,
                                           unsigned int gz, unsigned int bx, unsigned int by,
                                           unsigned int bz, unsigned int, CUstream hstream,
                                           void**, void**) {
  return Launch(f, gx, gy, gz, bx, by, bz, hstream, true);
}

SIMGPU_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void**,
                                        void**) {
  return LaunchEx(config, f, false);
}

SIMGPU_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void**,
                                             void**) {
  return LaunchEx(config, f, true);
}
