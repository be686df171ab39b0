// Entry points: kernel launches. A launch enqueues the kernel's modelled work on
// its stream and returns; the device simulation runs it (timeline.h). On a
// capturing stream the launch is recorded into the capture's graph instead.
//
// A CUkernel (cuLibraryGetKernel) may be passed as the CUfunction, as on CUDA 12:
// both handles are simgpu Function objects.
#include <algorithm>

#include "simgpu/src/driver.h"

using simgpu::Function;
using simgpu::Stream;

namespace {

// A cooperative grid must be resident all at once. simgpu bounds residency as
// an SM does when registers and shared memory do not bind: at most 2048 threads
// and 32 blocks per SM (Volta and later), so the grid may have at most
// SMs * min(32, 2048 / threads per block) blocks.
constexpr uint64_t kThreadsPerSm = 2048;
constexpr uint64_t kBlocksPerSm = 32;

uint64_t MaxCoResidentBlocks(uint64_t threads_per_block, int sm_count) {
  return uint64_t(sm_count) * std::min(kBlocksPerSm, kThreadsPerSm / threads_per_block);
}

CUresult Launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                unsigned bz, CUstream hstream, bool per_thread, bool cooperative) {
  Function* fn = simgpu::AsFunction(f);
  if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  const uint64_t threads = uint64_t(bx) * by * bz;
  if (gx == 0 || gy == 0 || gz == 0 || threads == 0 || threads > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  CUresult rc;
  Stream* stream = simgpu::ResolveStream(hstream, per_thread, &rc);
  if (stream == nullptr) return rc;
  const uint64_t blocks = uint64_t(gx) * gy * gz;
  if (cooperative && blocks > MaxCoResidentBlocks(threads, stream->ctx->dev->state().spec.sm_count))
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  if (simgpu::Capturing(stream)) {
    simgpu::GraphNode node;
    node.kind = simgpu::OpKind::kKernel;
    node.model = fn->model;
    node.blocks = blocks;
    bool captured = false;
    rc = simgpu::CaptureNode(stream, node, &captured);
    if (rc != CUDA_SUCCESS || captured) return rc;
  }
  simgpu::EnqueueBlocking(stream, simgpu::KernelOp(fn->model, blocks, stream));
  return CUDA_SUCCESS;
}

CUresult LaunchEx(const CUlaunchConfig* config, CUfunction f, bool per_thread) {
  if (config == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (config->numAttrs > 0 && config->attrs == nullptr) return CUDA_ERROR_INVALID_VALUE;
  // The cooperative attribute makes it a cooperative launch, with its limit.
  bool cooperative = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
      cooperative = config->attrs[i].value.cooperative != 0;
  }
  return Launch(f, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
                config->blockDimY, config->blockDimZ, config->hStream, per_thread, cooperative);
}

}  // namespace

SIMGPU_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                      unsigned int gz, unsigned int bx, unsigned int by,
                                      unsigned int bz, unsigned int, CUstream hstream, void**,
                                      void**) {
  return Launch(f, gx, gy, gz, bx, by, bz, hstream, false, false);
}

SIMGPU_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy,
                                           unsigned int gz, unsigned int bx, unsigned int by,
                                           unsigned int bz, unsigned int, CUstream hstream, void**,
                                           void**) {
  return Launch(f, gx, gy, gz, bx, by, bz, hstream, true, false);
}

SIMGPU_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void**,
                                        void**) {
  return LaunchEx(config, f, false);
}

SIMGPU_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void**,
                                             void**) {
  return LaunchEx(config, f, true);
}

SIMGPU_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                                 unsigned int gz, unsigned int bx, unsigned int by,
                                                 unsigned int bz, unsigned int, CUstream hstream,
                                                 void**) {
  return Launch(f, gx, gy, gz, bx, by, bz, hstream, false, true);
}

SIMGPU_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gx,
                                                      unsigned int gy, unsigned int gz,
                                                      unsigned int bx, unsigned int by,
                                                      unsigned int bz, unsigned int,
                                                      CUstream hstream, void**) {
  return Launch(f, gx, gy, gz, bx, by, bz, hstream, true, true);
}
