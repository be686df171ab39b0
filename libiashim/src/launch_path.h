// What every launch hook does around the real call: find the kernel's id, take
// a sample turn, and write one record to the thread's buffer. Shared by the
// launch entry points (hooks_launch.cc); header-only so it inlines.
#ifndef IASHIM_LAUNCH_PATH_H_
#define IASHIM_LAUNCH_PATH_H_

#include "libiashim/src/cuda_api.h"
#include "libiashim/src/cycle_clock.h"
#include "libiashim/src/launch_device.h"
#include "libiashim/src/launch_record.h"
#include "libiashim/src/real_driver.h"
#include "libiashim/src/runtime.h"
#include "libiashim/src/thread_buffer.h"

namespace iashim {

struct LaunchShape {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_mem;
};

// Fills a claimed slot in place. Launch records take the thread's reused
// timestamp unless a trace wants exact ones; syncs always read the clock.
inline void FillRecord(LaunchRecord* r, uint64_t ticks, RecordKind kind, CallApi api,
                       bool per_thread, uint32_t kernel, const LaunchShape* shape,
                       CUstream stream, uint8_t device = kUnknownDevice) {
  r->ticks = ticks;
  r->device = device;
  r->stream = reinterpret_cast<uint64_t>(stream);
  r->kernel = kernel;
  r->kind = kind;
  r->sample = kNotSampled;
  r->api = api;
  r->per_thread = per_thread ? 1 : 0;
  if (shape != nullptr) {
    r->shared_mem = shape->shared_mem;
    r->grid[0] = shape->grid[0];
    r->grid[1] = shape->grid[1];
    r->grid[2] = shape->grid[2];
    r->block[0] = static_cast<uint16_t>(shape->block[0]);
    r->block[1] = static_cast<uint16_t>(shape->block[1]);
    r->block[2] = static_cast<uint16_t>(shape->block[2]);
  } else {
    r->shared_mem = 0;
    r->grid[0] = r->grid[1] = r->grid[2] = 0;
    r->block[0] = r->block[1] = r->block[2] = 0;
  }
}

// Records one launch, graph launch or sync in the thread's ring.
inline void Record(ThreadBuffer* tb, RecordKind kind, CallApi api, bool per_thread,
                   uint32_t kernel, const LaunchShape* shape, CUstream stream,
                   uint8_t sample = kNotSampled, uint8_t device = kUnknownDevice) {
  LaunchRecord* r = tb->Claim();
  if (r == nullptr) return;
  const uint64_t ticks = kind == RecordKind::kSync ? CycleNow() : tb->LaunchTicks(g_exact_launch_times);
  FillRecord(r, ticks, kind, api, per_thread, kernel, shape, stream, device);
  r->sample = sample;
  tb->Publish();
}

// Times `call` with an event pair on `stream` (the sampled path, 1 in N).
// Returns false, without calling, when no sample can be taken now.
template <typename Call>
bool SampledCall(ThreadBuffer* tb, CUstream stream, bool per_thread, Call&& call, CUresult* rc,
                 uint8_t* slot_out) {
  auto get_ctx = IASHIM_REAL(cuCtxGetCurrent);
  auto record = per_thread ? IASHIM_REAL(cuEventRecord_ptsz) : IASHIM_REAL(cuEventRecord);
  auto capturing = per_thread ? IASHIM_REAL(cuStreamIsCapturing_ptsz) : IASHIM_REAL(cuStreamIsCapturing);
  if (get_ctx == nullptr || record == nullptr) return false;
  CUcontext ctx = nullptr;
  if (get_ctx(&ctx) != CUDA_SUCCESS || ctx == nullptr) return false;
  // An event recorded into a capturing stream would become a graph node.
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (capturing != nullptr &&
      (capturing(stream, &status) != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_NONE)) {
    return false;
  }
  const uint64_t t0 = MonotonicNs();
  const int slot = tb->AcquireEventPair(ctx);
  if (slot < 0) return false;
  EventPair& pair = tb->pair(slot);
  if (record(pair.start, stream) != CUDA_SUCCESS) {
    tb->ReleaseEventPair(slot);
    return false;
  }
  const uint64_t t1 = MonotonicNs();
  *rc = call();
  const uint64_t t2 = MonotonicNs();
  if (*rc != CUDA_SUCCESS || record(pair.end, stream) != CUDA_SUCCESS) {
    tb->ReleaseEventPair(slot);
    *slot_out = kNotSampled;
  } else {
    *slot_out = static_cast<uint8_t>(slot);
  }
  tb->AddSampleCost((t1 - t0) + (MonotonicNs() - t2));
  return true;
}

// Throttled only: blocks until `device`'s budget admits this launch (gate_path.cc).
void HoldForBudget(Runtime* rt, uint32_t kernel, CUstream stream, bool per_thread, uint8_t device);
// Throttled only: holds collective `kernel` for as long as this rank has been
// early to it (collective_pacer.h; gate_path.cc).
void PaceCollective(Runtime* rt, uint32_t kernel, CUstream stream, bool per_thread);

// The whole launch path: `call` is the real entry point with its arguments.
template <typename Call>
inline CUresult InterceptLaunch(Runtime* rt, RecordKind kind, CallApi api, const void* function,
                                const LaunchShape* shape, CUstream stream, bool per_thread,
                                Call&& call) {
  ThreadBuffer* tb = ThreadBuffer::Current();
  if (__builtin_expect(tb == nullptr, 0)) return call();
  const uint32_t kernel = function != nullptr ? rt->kernels().IdOf(function) : 0;
  const uint8_t device = CurrentLaunchDevice(&tb->device_cache());
  const bool gated = rt->gate().throttled();
  // A collective is not charged: its time on the GPU is mostly waiting for
  // the gang's other ranks (spinning on a few SMs), and charging that wait to
  // this rank's budget holds back its next compute, so the rank that waited
  // most falls behind and makes the others wait: at low shares the gang slows
  // far more than its shares say (bench/gang/README.md). It is held only for
  // as long as this rank has been early, so that it spins less beside the
  // co-runners (collective_pacer.h).
  if (__builtin_expect(gated, 0)) {
    if (!rt->kernels().IsCollective(kernel)) {
      HoldForBudget(rt, kernel, stream, per_thread, device);
    } else {
      PaceCollective(rt, kernel, stream, per_thread);
    }
  }
  CUresult rc;
  uint8_t slot = kNotSampled;
  // 1 launch in N is timed; a throttled process also times every launch of a
  // kernel it has no cost for yet, so the gate stops guessing quickly; and
  // every collective is timed: its time is how long this rank waited for the
  // gang's slowest (one or a few launches per iteration, so the cost is nil).
  const uint32_t every = rt->sample_every();
  const bool sample = every != 0 && (tb->TakeSampleTurn(every) ||
                                     (gated && !rt->costs().Sampled(kernel)) ||
                                     rt->kernels().IsCollective(kernel));
  if (!(sample && SampledCall(tb, stream, per_thread, call, &rc, &slot))) rc = call();
  if (rc == CUDA_SUCCESS) {
    Record(tb, kind, api, per_thread, kernel, shape, stream, slot, device);
    if (gated) rt->gate().Submitted(stream, per_thread);
  }
  return rc;
}

}  // namespace iashim

#endif  // IASHIM_LAUNCH_PATH_H_
