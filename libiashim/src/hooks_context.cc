// Hooks: contexts.
//
// Calls that change the thread's current context (set, push, pop, create)
// are noted on their thread, so its next launch asks which device it runs on
// (launch_device.h).
//
// Calls that may destroy a context: a context takes its events with it, so
// before one goes the shim finishes or drops every pending GPU-time sample and
// destroys every event it holds, in any context (it cannot tell which release
// is the last), and makes new events afterwards as needed. And it takes its
// memory: once one is gone, the memory ledger gives back what the context
// held (context_slots.h), so that a job that resets its device and starts
// again is not refused memory it no longer has.
#include "libiashim/src/context_slots.h"
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

// The driver freed `ctx`'s memory: its records come out of the ledger. By
// context, not address, so another context's allocation at an address the
// driver has just reused stays (MemoryLedger::ReleaseContext).
void ReleaseMemoryOf(CUcontext ctx) {
  const uint8_t slot = iashim::ContextSlots::Get().Find(ctx);
  iashim::Runtime* rt = iashim::ActiveRuntime();
  if (rt != nullptr && slot != iashim::MemoryLedger::kNoContext) {
    rt->memory().ReleaseContext(slot);
  }
}

// Whether `dev`'s primary context is gone (its last reference released).
bool PrimaryGone(CUdevice dev) {
  auto get_state = IASHIM_REAL(cuDevicePrimaryCtxGetState);
  unsigned flags = 0;
  int active = 1;
  return get_state != nullptr && get_state(dev, &flags, &active) == CUDA_SUCCESS && active == 0;
}

// A release or reset of `dev`'s primary context, which frees its memory
// when `freed(rc)` says so.
template <typename Fn, typename Freed>
CUresult PrimaryTeardown(Fn real, CUdevice dev, Freed&& freed) {
  LetGoOfEvents();
  const CUresult rc = Forward(real, dev);
  if (freed(rc)) ReleaseMemoryOf(iashim::ContextSlots::Get().Primary(dev));
  return rc;
}

}  // namespace

IASHIM_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice dev) {
  const CUresult rc = Forward(IASHIM_REAL(cuDevicePrimaryCtxRetain), ctx, dev);
  if (rc == CUDA_SUCCESS && ctx != nullptr) iashim::ContextSlots::Get().NotePrimary(dev, *ctx);
  return rc;
}

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
  const CUresult rc = Switching(IASHIM_REAL(cuCtxDestroy_v2), ctx);
  if (rc == CUDA_SUCCESS) {
    ReleaseMemoryOf(ctx);
    iashim::ContextSlots::Get().Drop(ctx);  // a new context may get its address
  }
  return rc;
}

// The primary context is destroyed by its last release only.
IASHIM_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  return PrimaryTeardown(IASHIM_REAL(cuDevicePrimaryCtxRelease), dev,
                         [dev](CUresult rc) { return rc == CUDA_SUCCESS && PrimaryGone(dev); });
}

IASHIM_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  return PrimaryTeardown(IASHIM_REAL(cuDevicePrimaryCtxRelease_v2), dev,
                         [dev](CUresult rc) { return rc == CUDA_SUCCESS && PrimaryGone(dev); });
}

// "Destroys all allocations and resets all state on the primary context."
IASHIM_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) {
  return PrimaryTeardown(IASHIM_REAL(cuDevicePrimaryCtxReset), dev,
                         [](CUresult rc) { return rc == CUDA_SUCCESS; });
}

IASHIM_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  return PrimaryTeardown(IASHIM_REAL(cuDevicePrimaryCtxReset_v2), dev,
                         [](CUresult rc) { return rc == CUDA_SUCCESS; });
}
