// Hooks: calls that may destroy a context. A context takes its events with
// it, so before one goes the shim finishes or drops every pending GPU-time
// sample and destroys every event it holds, in any context (it cannot tell
// which release is the last), and makes new events afterwards as needed.
#include "libiashim/src/cuda_api.h"
#include "libiashim/src/forward.h"
#include "libiashim/src/real_driver.h"
#include "libiashim/src/runtime.h"

using iashim::Forward;

namespace {

void LetGoOfEvents() {
  if (iashim::Runtime* rt = iashim::ActiveRuntime()) rt->ForgetCudaObjects();
}

}  // namespace

IASHIM_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx) {
  LetGoOfEvents();
  return Forward(IASHIM_REAL(cuCtxDestroy_v2), ctx);
}

IASHIM_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  LetGoOfEvents();
  return Forward(IASHIM_REAL(cuDevicePrimaryCtxRelease), dev);
}

IASHIM_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  LetGoOfEvents();
  return Forward(IASHIM_REAL(cuDevicePrimaryCtxRelease_v2), dev);
}

IASHIM_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) {
  LetGoOfEvents();
  return Forward(IASHIM_REAL(cuDevicePrimaryCtxReset), dev);
}

IASHIM_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  LetGoOfEvents();
  return Forward(IASHIM_REAL(cuDevicePrimaryCtxReset_v2), dev);
}
