// Hooks: synchronising calls. Each is recorded, after it returns, as a marker
// from which the background thread finds iteration boundaries.
#include "libiashim/src/cuda_api.h"
#include "libiashim/src/forward.h"
#include "libiashim/src/launch_path.h"

using iashim::Forward;

namespace {

CUresult Synced(CUresult rc, iashim::CallApi api, bool per_thread, CUstream stream) {
  if (rc != CUDA_SUCCESS) return rc;
  iashim::Runtime* rt = iashim::ActiveRuntime();
  if (rt == nullptr) return rc;
  if (iashim::ThreadBuffer* tb = iashim::ThreadBuffer::Current()) {
    iashim::Record(tb, iashim::RecordKind::kSync, api, per_thread, 0, nullptr, stream);
  }
  return rc;
}

}  // namespace

IASHIM_EXPORT CUresult cuStreamSynchronize(CUstream stream) {
  return Synced(Forward(IASHIM_REAL(cuStreamSynchronize), stream), iashim::CallApi::kStreamSynchronize, false,
                stream);
}

IASHIM_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream stream) {
  return Synced(Forward(IASHIM_REAL(cuStreamSynchronize_ptsz), stream),
                iashim::CallApi::kStreamSynchronize, true, stream);
}

IASHIM_EXPORT CUresult cuCtxSynchronize() {
  return Synced(Forward(IASHIM_REAL(cuCtxSynchronize)), iashim::CallApi::kCtxSynchronize, false,
                nullptr);
}

IASHIM_EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx) {
  return Synced(Forward(IASHIM_REAL(cuCtxSynchronize_v2), ctx), iashim::CallApi::kCtxSynchronize,
                false, nullptr);
}

IASHIM_EXPORT CUresult cuEventSynchronize(CUevent event) {
  return Synced(Forward(IASHIM_REAL(cuEventSynchronize), event), iashim::CallApi::kEventSynchronize,
                false, nullptr);
}
