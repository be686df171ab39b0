// Entry points: streams and events.
#include <algorithm>

#include "simgpu/src/device_slots.h"
#include "simgpu/src/driver.h"

using simgpu::Context;
using simgpu::Event;
using simgpu::SharedDevice;
using simgpu::Stream;

namespace {

bool StreamIdle(Stream* s) {
  SharedDevice::Lock lock(*s->ctx->dev);
  lock.AdvanceToNow();
  const simgpu::StreamSlot& slot = lock.state().streams[s->slot];
  return slot.generation != s->generation || slot.completed >= slot.enqueued;
}

CUresult StreamSynchronize(CUstream h, bool per_thread) {
  CUresult rc;
  Stream* s = simgpu::ResolveStream(h, per_thread, &rc);
  if (s == nullptr) return rc;
  if (rc = simgpu::RejectIfCapturing(s); rc != CUDA_SUCCESS) return rc;
  simgpu::SyncStream(s);
  return CUDA_SUCCESS;
}

CUresult StreamQuery(CUstream h, bool per_thread) {
  CUresult rc;
  Stream* s = simgpu::ResolveStream(h, per_thread, &rc);
  if (s == nullptr) return rc;
  if (rc = simgpu::RejectIfCapturing(s); rc != CUDA_SUCCESS) return rc;
  return StreamIdle(s) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult EventRecord(CUevent h, CUstream hs, unsigned flags, bool per_thread) {
  Event* e = simgpu::AsEvent(h);
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (flags & ~unsigned(CU_EVENT_RECORD_EXTERNAL)) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc;
  Stream* s = simgpu::ResolveStream(hs, per_thread, &rc);
  if (s == nullptr) return rc;
  if (s->ctx->dev != e->ctx->dev) return CUDA_ERROR_INVALID_HANDLE;
  if (simgpu::Capturing(s)) {
    if (flags & CU_EVENT_RECORD_EXTERNAL) {
      // An external record becomes a graph node that records the event when run.
      simgpu::GraphNode node;
      node.kind = simgpu::NodeKind::kEventRecord;
      node.event = e;
      bool captured = false;
      rc = simgpu::CaptureNode(s, node, &captured);
      if (rc != CUDA_SUCCESS || captured) return rc;
    } else {
      // A plain record only marks a point of the capture (for cross-stream
      // dependencies, which simgpu does not model): nothing will complete it.
      switch (simgpu::CaptureStatus(s, nullptr, nullptr, nullptr)) {
        case CU_STREAM_CAPTURE_STATUS_ACTIVE:
          e->captured = true;
          return CUDA_SUCCESS;
        case CU_STREAM_CAPTURE_STATUS_INVALIDATED:
          return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        default:
          break;  // the capture ended meanwhile: an ordinary record
      }
    }
  }
  // CU_EVENT_RECORD_EXTERNAL is only valid during capture.
  if (flags & CU_EVENT_RECORD_EXTERNAL) return CUDA_ERROR_INVALID_VALUE;
  simgpu::RecordEvent(e, s);
  return CUDA_SUCCESS;
}

// Whether the event's latest record has completed; its time in `t`.
bool EventDone(Event* e, int64_t* t) {
  SharedDevice::Lock lock(*e->ctx->dev);
  lock.AdvanceToNow();
  const simgpu::EventSlot& slot = lock.state().events[e->slot];
  if (slot.done && slot.generation == e->event_generation) {
    if (t != nullptr) *t = slot.time_ns;
    return true;
  }
  // A record whose stream was torn down never completes; treat it as done.
  const simgpu::StreamSlot& st = lock.state().streams[e->stream_slot];
  if (st.generation != e->stream_generation || st.state == simgpu::SlotState::kFree) {
    if (t != nullptr) *t = lock.state().clock_ns;
    return true;
  }
  return false;
}

}  // namespace

SIMGPU_EXPORT CUresult cuStreamCreate(CUstream* ph, unsigned int flags) {
  if (ph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (flags & ~unsigned(CU_STREAM_NON_BLOCKING)) return CUDA_ERROR_INVALID_VALUE;
  Context* ctx = simgpu::CurrentContext();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  auto* s = new Stream();
  s->ctx = ctx;
  s->flags = flags;
  {
    SharedDevice::Lock lock(*ctx->dev);
    lock.AdvanceToNow();
    s->slot = simgpu::AllocStream(lock.state(), ctx->dev->process_slot());
    if (s->slot < 0) {
      delete s;
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    s->generation = lock.state().streams[s->slot].generation;
  }
  {
    std::lock_guard<std::mutex> guard(ctx->mu);
    ctx->streams.push_back(s);
  }
  *ph = reinterpret_cast<CUstream>(s);
  return CUDA_SUCCESS;
}

// Priorities run from 0 (lowest) to -5 (highest), as on current GPUs. They are
// kept and reported but do not change how the simulated device schedules.
constexpr int kLeastStreamPriority = 0;
constexpr int kGreatestStreamPriority = -5;

SIMGPU_EXPORT CUresult cuStreamCreateWithPriority(CUstream* ph, unsigned int flags, int priority) {
  const CUresult rc = cuStreamCreate(ph, flags);
  if (rc != CUDA_SUCCESS) return rc;
  // Out-of-range priorities are clamped, as the driver does.
  simgpu::AsStream(*ph)->priority =
      std::clamp(priority, kGreatestStreamPriority, kLeastStreamPriority);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuCtxGetStreamPriorityRange(int* least, int* greatest) {
  if (least != nullptr) *least = kLeastStreamPriority;
  if (greatest != nullptr) *greatest = kGreatestStreamPriority;
  return CUDA_SUCCESS;
}

namespace {
CUresult StreamGetPriority(CUstream h, int* priority, bool per_thread) {
  if (priority == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc;
  Stream* s = simgpu::ResolveStream(h, per_thread, &rc);
  if (s == nullptr) return rc;
  *priority = s->priority;
  return CUDA_SUCCESS;
}
}  // namespace

SIMGPU_EXPORT CUresult cuStreamGetPriority(CUstream h, int* priority) {
  return StreamGetPriority(h, priority, false);
}

SIMGPU_EXPORT CUresult cuStreamGetPriority_ptsz(CUstream h, int* priority) {
  return StreamGetPriority(h, priority, true);
}

SIMGPU_EXPORT CUresult cuStreamDestroy_v2(CUstream h) {
  Stream* s = simgpu::AsStream(h);
  if (s == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  Context* ctx = s->ctx;
  simgpu::AbortCapture(s);  // a capture in progress is dropped with its stream
  {
    std::lock_guard<std::mutex> guard(ctx->mu);
    std::erase(ctx->streams, s);
  }
  {
    // Queued work still completes, as on hardware; then the slot is freed.
    SharedDevice::Lock lock(*ctx->dev);
    lock.AdvanceToNow();
    if (lock.state().streams[s->slot].generation == s->generation)
      simgpu::ReleaseStream(lock.state(), s->slot);
  }
  s->magic = 0;
  delete s;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuStreamSynchronize(CUstream h) { return StreamSynchronize(h, false); }
SIMGPU_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream h) { return StreamSynchronize(h, true); }
SIMGPU_EXPORT CUresult cuStreamQuery(CUstream h) { return StreamQuery(h, false); }
SIMGPU_EXPORT CUresult cuStreamQuery_ptsz(CUstream h) { return StreamQuery(h, true); }

SIMGPU_EXPORT CUresult cuEventCreate(CUevent* ph, unsigned int flags) {
  if (ph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Context* ctx = simgpu::CurrentContext();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  auto* e = new Event();
  e->ctx = ctx;
  e->flags = flags;
  {
    SharedDevice::Lock lock(*ctx->dev);
    e->slot = simgpu::AllocEvent(lock.state(), ctx->dev->process_slot());
  }
  if (e->slot < 0) {
    delete e;
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *ph = reinterpret_cast<CUevent>(e);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuEventRecord(CUevent h, CUstream s) { return EventRecord(h, s, 0, false); }
SIMGPU_EXPORT CUresult cuEventRecord_ptsz(CUevent h, CUstream s) {
  return EventRecord(h, s, 0, true);
}
SIMGPU_EXPORT CUresult cuEventRecordWithFlags(CUevent h, CUstream s, unsigned int flags) {
  return EventRecord(h, s, flags, false);
}
SIMGPU_EXPORT CUresult cuEventRecordWithFlags_ptsz(CUevent h, CUstream s, unsigned int flags) {
  return EventRecord(h, s, flags, true);
}

SIMGPU_EXPORT CUresult cuEventQuery(CUevent h) {
  Event* e = simgpu::AsEvent(h);
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (e->captured) return CUDA_ERROR_CAPTURED_EVENT;
  if (!e->recorded) return CUDA_SUCCESS;  // as the real driver: nothing pending
  return EventDone(e, nullptr) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

SIMGPU_EXPORT CUresult cuEventSynchronize(CUevent h) {
  Event* e = simgpu::AsEvent(h);
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (e->captured) return CUDA_ERROR_CAPTURED_EVENT;
  if (!e->recorded) return CUDA_SUCCESS;
  e->ctx->dev->WaitForCompletion(e->stream_slot, e->stream_generation, e->seq);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuEventElapsedTime_v2(float* ms, CUevent hstart, CUevent hend) {
  if (ms == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Event* a = simgpu::AsEvent(hstart);
  Event* b = simgpu::AsEvent(hend);
  if (a == nullptr || b == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  if (a->captured || b->captured) return CUDA_ERROR_CAPTURED_EVENT;
  if (!a->recorded || !b->recorded) return CUDA_ERROR_INVALID_HANDLE;
  int64_t ta = 0, tb = 0;
  if (!EventDone(a, &ta) || !EventDone(b, &tb)) return CUDA_ERROR_NOT_READY;
  *ms = static_cast<float>(double(tb - ta) / 1e6);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuEventElapsedTime(float* ms, CUevent hstart, CUevent hend) {
  return cuEventElapsedTime_v2(ms, hstart, hend);
}

SIMGPU_EXPORT CUresult cuEventDestroy_v2(CUevent h) {
  Event* e = simgpu::AsEvent(h);
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  {
    SharedDevice::Lock lock(*e->ctx->dev);
    simgpu::ReleaseEvent(lock.state(), e->slot);
  }
  e->magic = 0;
  delete e;
  return CUDA_SUCCESS;
}
