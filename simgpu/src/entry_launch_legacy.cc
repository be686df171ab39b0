// Entry points: the legacy launch API of CUDA 2.x, deprecated but still
// exported by real drivers. cuFuncSetBlockShape, cuFuncSetSharedSize and
// cuParamSet* keep state on the function; cuLaunch, cuLaunchGrid and
// cuLaunchGridAsync launch it through the same path as cuLaunchKernel
// (capture, timeline). Parameters are checked and kept, never read: kernels do
// no computation.
#include <cstring>
#include <mutex>

#include "simgpu/src/driver.h"

using simgpu::Function;

namespace {

// The kernel parameter space of the legacy API: 4 KiB, as cuParamSetSize allows.
constexpr unsigned kMaxParamBytes = 4096;

// Writes `bytes` at `offset` of the function's parameter buffer.
CUresult SetParam(CUfunction f, int offset, const void* value, unsigned bytes) {
  Function* fn = simgpu::AsFunction(f);
  if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (offset < 0 || (bytes > 0 && value == nullptr)) return CUDA_ERROR_INVALID_VALUE;
  if (bytes > kMaxParamBytes || unsigned(offset) > kMaxParamBytes - bytes)
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(fn->legacy_mu);
  if (fn->params.size() < unsigned(offset) + bytes) fn->params.resize(unsigned(offset) + bytes);
  if (bytes > 0) std::memcpy(fn->params.data() + offset, value, bytes);
  return CUDA_SUCCESS;
}

// Launches a grid of `gx` x `gy` blocks of the shape cuFuncSetBlockShape set;
// a launch without one fails, as on a real driver.
CUresult LaunchGrid(CUfunction f, int gx, int gy, CUstream hstream) {
  Function* fn = simgpu::AsFunction(f);
  if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (gx <= 0 || gy <= 0) return CUDA_ERROR_INVALID_VALUE;
  unsigned block[3];
  {
    std::lock_guard<std::mutex> lock(fn->legacy_mu);
    std::memcpy(block, fn->block, sizeof(block));
  }
  if (block[0] == 0) return CUDA_ERROR_INVALID_VALUE;
  return simgpu::LaunchKernel(f, unsigned(gx), unsigned(gy), 1, block[0], block[1], block[2],
                              hstream, false, false, nullptr);
}

}  // namespace

SIMGPU_EXPORT CUresult cuFuncSetBlockShape(CUfunction f, int x, int y, int z) {
  Function* fn = simgpu::AsFunction(f);
  if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (x <= 0 || y <= 0 || z <= 0) return CUDA_ERROR_INVALID_VALUE;
  // More than 1024 threads is refused at launch, as cuLaunchKernel refuses it.
  std::lock_guard<std::mutex> lock(fn->legacy_mu);
  fn->block[0] = unsigned(x);
  fn->block[1] = unsigned(y);
  fn->block[2] = unsigned(z);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuFuncSetSharedSize(CUfunction f, unsigned int bytes) {
  Function* fn = simgpu::AsFunction(f);
  if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  std::lock_guard<std::mutex> lock(fn->legacy_mu);
  fn->shared_bytes = bytes;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuParamSetSize(CUfunction f, unsigned int bytes) {
  Function* fn = simgpu::AsFunction(f);
  if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (bytes > kMaxParamBytes) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(fn->legacy_mu);
  fn->param_size = bytes;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuParamSeti(CUfunction f, int offset, unsigned int value) {
  return SetParam(f, offset, &value, sizeof(value));
}

SIMGPU_EXPORT CUresult cuParamSetf(CUfunction f, int offset, float value) {
  return SetParam(f, offset, &value, sizeof(value));
}

SIMGPU_EXPORT CUresult cuParamSetv(CUfunction f, int offset, void* ptr, unsigned int bytes) {
  return SetParam(f, offset, ptr, bytes);
}

// A grid of one block.
SIMGPU_EXPORT CUresult cuLaunch(CUfunction f) { return LaunchGrid(f, 1, 1, nullptr); }

// On the legacy (NULL) stream: the legacy API has no per-thread variants.
SIMGPU_EXPORT CUresult cuLaunchGrid(CUfunction f, int width, int height) {
  return LaunchGrid(f, width, height, nullptr);
}

SIMGPU_EXPORT CUresult cuLaunchGridAsync(CUfunction f, int width, int height, CUstream hstream) {
  return LaunchGrid(f, width, height, hstream);
}
