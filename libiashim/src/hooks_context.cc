// Hooks: contexts.
//
// Calls that change the thread's current context (set, push, pop, create)
// are noted on their thread, so its next launch asks which device it runs on
// (launch_device.h).
//
// Calls that may destroy a context: a context takes its events with it, so
// before one goes the shim finishes or drops every pending GPU-time sample and
// destroys every event it holds, in any context (it cannot tell which release
// is the last), and makes new events afterwards as needed.
#include "libiashim/src/cuda_api.h"
#include "libiashim/src/forward.h"
#include "libiashim/src/launch_device.h"
#include "libiashim/src/real_driver.h"
#include "libiashim/src/runtime.h"

using iashim::Forward;

namespace {

// Forwards a call that may change the thread's current context, and notes it.
template <typename Fn, typename... Args>
CUresult Switching(Fn real, Args... args) {
  const CUresult rc = Forward(real, args...);
  iashim::NoteContextChange();  // also on failure: cheap, and never wrong
  return rc;
}

void LetGoOfEvents() {
  // Launches look up their context's device afresh (launch_device.h).
  iashim::g_context_generation.fetch_add(1, std::memory_order_acq_rel);
  if (iashim::Runtime* rt = iashim::ActiveRuntime()) rt->ForgetCudaObjects();
}

}  // namespace

IASHIM_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  return Switching(IASHIM_REAL(cuCtxSetCurrent), ctx);
}

IASHIM_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx) {
  return Switching(IASHIM_REAL(cuCtxPushCurrent), ctx);
}

IASHIM_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  return Switching(IASHIM_REAL(cuCtxPushCurrent_v2), ctx);
}

IASHIM_EXPORT CUresult cuCtxPopCurrent(CUcontext* ctx) {
  return Switching(IASHIM_REAL(cuCtxPopCurrent), ctx);
}

IASHIM_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext* ctx) {
  return Switching(IASHIM_REAL(cuCtxPopCurrent_v2), ctx);
}

// A new context is made the thread's current.
IASHIM_EXPORT CUresult cuCtxCreate(CUcontext* ctx, unsigned int flags, CUdevice dev) {
  return Switching(IASHIM_REAL(cuCtxCreate), ctx, flags, dev);
}

IASHIM_EXPORT CUresult cuCtxCreate_v2(CUcontext* ctx, unsigned int flags, CUdevice dev) {
  return Switching(IASHIM_REAL(cuCtxCreate_v2), ctx, flags, dev);
}

IASHIM_EXPORT CUresult cuCtxCreate_v3(CUcontext* ctx, CUexecAffinityParam* params, int count,
                                      unsigned int flags, CUdevice dev) {
  return Switching(IASHIM_REAL(cuCtxCreate_v3), ctx, params, count, flags, dev);
}

IASHIM_EXPORT CUresult cuCtxCreate_v4(CUcontext* ctx, CUctxCreateParams* params,
                                      unsigned int flags, CUdevice dev) {
  return Switching(IASHIM_REAL(cuCtxCreate_v4), ctx, params, flags, dev);
}

// Destroying the current context pops it.
IASHIM_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx) {
  LetGoOfEvents();
  return Switching(IASHIM_REAL(cuCtxDestroy_v2), ctx);
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
